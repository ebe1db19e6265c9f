import type pg from 'pg';

/**
 * Anything that runs parameterised SQL through `pg`: a `pg.Pool`, a `pg.Client` or a checked-out
 * `pg.PoolClient`. Domain code that needs raw SQL (bulk loads, SKIP LOCKED claims) takes this.
 */
export interface SqlClient {
  query<R extends pg.QueryResultRow = any>(text: string, params?: unknown[]): Promise<pg.QueryResult<R>>;
}

/**
 * A PostgreSQL array literal (`{"a","b",NULL}`) for an `unnest($n::type[])` bulk parameter.
 * Every element is quoted (valid for any element type: numeric, date, uuid, enum, text), with
 * backslashes and double quotes escaped; null becomes NULL. Much cheaper than letting `pg`
 * serialise a JS array (two regex replaces and string concatenation per element), which matters
 * for the multi-row loads of the ingest.
 */
export function pgArray(values: ReadonlyArray<string | number | null | undefined>): string {
  const parts = new Array<string>(values.length);
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (value === null || value === undefined) {
      parts[i] = 'NULL';
      continue;
    }
    const text = typeof value === 'string' ? value : String(value);
    parts[i] = text.includes('"') || text.includes('\\') ? `"${text.replace(/[\\"]/g, '\\$&')}"` : `"${text}"`;
  }
  return `{${parts.join(',')}}`;
}
