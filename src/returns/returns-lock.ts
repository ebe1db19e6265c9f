/**
 * The lock that serialises writes to an organization's returns data: the ingest takes it while it
 * loads a file and recomputes (src/ingest/ingest-service.ts), the growth index's fill takes it
 * before it writes (./growth-index-store.ts). A transaction-scoped PostgreSQL advisory lock with
 * two keys: this class and the organization.
 */
const RETURNS_LOCK_CLASS = 727_071;

export async function lockOrganizationReturns(client: { query(sql: string, params?: unknown[]): Promise<unknown> }, orgId: string): Promise<void> {
  await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [RETURNS_LOCK_CLASS, orgId]);
}
