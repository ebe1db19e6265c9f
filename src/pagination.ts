import { AppError } from './errors.ts';
/**
 * Page sizes of every list, stated once. The schema puts each on its field (`pageSize`), where
 * GraphQL descriptions, the REST `limit` and the MCP tools' `first` read it.
 */
export interface PageSize {
  /** The page size when the client gives none. */
  first: number;
  /** The largest page a client may ask for. */
  max: number;
}

export const PAGE_SIZES = {
  stickies: { first: 50, max: 200 },
  stickyVersions: { first: 50, max: 200 },
  links: { first: 50, max: 200 },
  tasks: { first: 50, max: 200 },
  news: { first: 20, max: 100 },
  conversations: { first: 20, max: 100 },
  transcripts: { first: 20, max: 100 },
  files: { first: 50, max: 500 },
  generationRuns: { first: 20, max: 100 },
  generationEvents: { first: 500, max: 1000 },
  returnComparison: { first: 50, max: 500 },
  cashTransactions: { first: 100, max: 1000 },
  auditEvents: { first: 50, max: 500 },
  usage: { first: 100, max: 1000 },
  webhookEndpoints: { first: 50, max: 200 },
  webhookDeliveries: { first: 50, max: 200 },
} as const satisfies Record<string, PageSize>;

/** A page as the services return it: rows, whether more follow, and the cursor after the last row. */
export interface Page<T> {
  rows: T[];
  hasMore: boolean;
  nextCursor: string | null;
}

/**
 * Keyset pagination: the service fetched `limit + 1` rows; the extra one only says that more
 * follow. The cursor resumes after the page's last row.
 */
export function keysetPage<T>(rows: T[], limit: number, cursorOf: (row: T) => string): Page<T> {
  const hasMore = rows.length > limit;
  const page = hasMore ? rows.slice(0, limit) : rows;
  const last = page.at(-1);
  return { rows: page, hasMore, nextCursor: hasMore && last !== undefined ? cursorOf(last) : null };
}

/** The one cursor format: the position of a row as base64url JSON (opaque to clients). */
export function encodeCursor(position: Record<string, string | number | null>): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

/**
 * How each list refuses a cursor it did not issue. The wordings and the field named differ since
 * the first releases, and clients may match on them (REST bodies say `Invalid cursor: ...` in every
 * case), so they are kept, stated here once.
 */
export const CURSOR_REFUSALS = {
  /** returns, links, news */
  endpoint: { field: 'cursor', problem: 'is not a cursor this endpoint issued' },
  /** tasks */
  tasks: { field: 'after', problem: 'is not a cursor this endpoint issued' },
  /** stickies, transcripts */
  list: { field: 'after', problem: 'is not a cursor this list issued' },
} as const;

export type CursorRefusal = keyof typeof CURSOR_REFUSALS;

/** Reads a cursor back: `read` checks the decoded fields and returns the position, or undefined if they are not one. */
export function decodeCursor<T>(cursor: string, read: (fields: Record<string, unknown>) => T | undefined, refusal: CursorRefusal): T {
  let fields: unknown;
  try {
    fields = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    fields = undefined;
  }
  const position = fields !== null && typeof fields === 'object' && !Array.isArray(fields) ? read(fields as Record<string, unknown>) : undefined;
  if (position !== undefined) return position;
  throw AppError.badInput(CURSOR_REFUSALS[refusal].field, CURSOR_REFUSALS[refusal].problem);
}

/** A reader for cursors whose fields are all strings. */
export function stringFields<K extends string>(keys: readonly K[]): (fields: Record<string, unknown>) => Record<K, string> | undefined {
  return (fields) => (keys.every((key) => typeof fields[key] === 'string') ? (fields as Record<K, string>) : undefined);
}

/** A canonical UUID (what cursors carry as row ids). */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A reader for the usual keyset position: an instant and a row id (newest first, then by id). */
export function instantAndId(atKey: string, idKey: string): (fields: Record<string, unknown>) => { at: Date; id: string } | undefined {
  return (fields) => {
    const at = fields[atKey];
    const id = fields[idKey];
    if (typeof at !== 'string' || typeof id !== 'string' || !UUID.test(id)) return undefined;
    const date = new Date(at);
    return Number.isNaN(date.getTime()) ? undefined : { at: date, id };
  };
}
