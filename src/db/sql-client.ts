import type pg from 'pg';

/**
 * Anything that runs parameterised SQL through `pg`: a `pg.Pool`, a `pg.Client` or a checked-out
 * `pg.PoolClient`. Domain code that needs raw SQL (bulk loads, SKIP LOCKED claims) takes this.
 */
export interface SqlClient {
  query<R extends pg.QueryResultRow = any>(text: string, params?: unknown[]): Promise<pg.QueryResult<R>>;
}
