import { lexicographicSortSchema, type GraphQLSchema } from 'graphql';
import { builder } from './builder.ts';
import './scalars.ts';
import './viewer.ts';
import './connected-apps.ts';
import './health.ts';
import './returns.ts';
import './returns-analytics.ts';
import './returns-benchmark.ts';
import './returns-currencies.ts';
import './returns-benchmark-levels.ts';
import './storage.ts';
import './scheduler.ts';
import './stickies.ts';
import './links.ts';
import './transcripts.ts';
import './chat.ts';
import './tasks.ts';
import './news.ts';
import './generation.ts';
import './audit.ts';
import './usage.ts';
import './webhooks.ts';

let schema: GraphQLSchema | undefined;

/** The one GraphQL schema every front (GraphQL, REST, JSON-RPC) executes against. */
export function getSchema(): GraphQLSchema {
  schema ??= builder.toSchema({ sortSchema: false });
  return schema;
}

export function sortedSchema(): GraphQLSchema {
  return lexicographicSortSchema(getSchema());
}
