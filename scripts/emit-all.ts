/**
 * `npm run emit`: every committed artefact generated from the code, in the order they depend on
 * each other, in one process. Run it after changing the schema, a route, a tool, a rate budget, a
 * limit or a configuration variable; a test fails for each artefact left stale. Files whose text
 * did not change are not written, so a second run changes nothing.
 *
 * 1. the SDL (schema/schema.graphql), README.md's fronts table, docs/limits.md's table, and the
 *    dashboard's gql.tada introspection read from the SDL just written (scripts/emit-schema.ts);
 * 2. the OpenAPI document, openapi.json (scripts/emit-openapi.ts);
 * 3. its TypeScript types, read from the openapi.json just written (scripts/emit-openapi-types.ts);
 * 4. docs/configuration.md's tables of the environment variables (scripts/emit-configuration-doc.ts).
 *
 * Not here: the Prisma client (src/generated/, not committed), which `npm install` generates; after
 * changing prisma/schema.prisma run `npm run postinstall` first (docs/developing.md).
 */
import { emitConfigurationDoc } from './emit-configuration-doc.ts';
import { emitOpenApiTypes } from './emit-openapi-types.ts';
import { emitOpenApi } from './emit-openapi.ts';
import { emitSchema } from './emit-schema.ts';

await emitSchema();
emitOpenApi();
await emitOpenApiTypes();
emitConfigurationDoc();
