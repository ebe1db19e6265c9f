import type { GraphQLResolveInfo } from 'graphql';
import { AppError } from '../src/errors.ts';
import type { Page, PageSize } from '../src/pagination.ts';
import { pageSizeHere } from './plugins/page-size.ts';

/** The arguments of a page: connections offer `first` and `after` only (plugins/page-size.ts drops Relay's last and before). */
export interface ConnectionArgs {
  first?: number | null;
  after?: string | null;
}

/**
 * Forward pagination: `first` (default and maximum: the field's pageSize, or the size given)
 * and `after`.
 */
export function forwardPage(args: ConnectionArgs, sizeOrInfo: PageSize | GraphQLResolveInfo) {
  const defaults = 'fieldName' in sizeOrInfo ? pageSizeHere(sizeOrInfo) : sizeOrInfo;
  const first = args.first ?? defaults.first;
  if (!Number.isInteger(first) || first < 1 || first > defaults.max) throw AppError.badInput('first', `must be an integer between 1 and ${defaults.max}`);
  return { limit: first, cursor: args.after ?? null };
}

/** Relay connection shape for a service page; each edge's cursor resumes after that row. */
export function toConnection<T>(page: Page<T>, cursorOf: (row: T) => string) {
  // Cursors are computed when a client selects them (getters): REST and most pages never do.
  const edges = page.rows.map((node) => ({
    node,
    get cursor() {
      return cursorOf(node);
    },
  }));
  return {
    edges,
    pageInfo: {
      hasNextPage: page.hasMore,
      hasPreviousPage: false,
      get startCursor() {
        return edges[0]?.cursor ?? null;
      },
      get endCursor() {
        return page.nextCursor ?? edges.at(-1)?.cursor ?? null;
      },
    },
  };
}
