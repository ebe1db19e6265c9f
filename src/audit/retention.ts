/**
 * Retention of the audit log (AUDIT_RETENTION, default 400 days): the maintenance job deletes
 * each chain's oldest events, a prefix of the chain at a time, so the chain stays verifiable:
 * the head (AuditChain) keeps the last deleted event's seq and hash, from which audit:verify
 * starts. A prefix ends before the chain's first event that is still within the retention (events
 * are chained in the order they were written, which the times of several instances may not follow exactly).
 */
import type { AuditPool } from './recorder.ts';

export async function purgeAuditEvents(pool: AuditPool, retentionMs: number, now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - retentionMs);
  const { rows: chains } = await pool.query<{ chain: string }>('SELECT DISTINCT chain FROM "AuditEvent" WHERE "occurredAt" < $1 ORDER BY chain', [cutoff]);
  let deleted = 0;
  for (const { chain } of chains) deleted += await purgeChain(pool, chain, cutoff);
  return deleted;
}

async function purgeChain(pool: AuditPool, chain: string, cutoff: Date): Promise<number> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    // The head is locked, so no writer extends the chain while its start moves.
    const head = await client.query<{ seq: string; purgedSeq: string }>(
      'SELECT seq::text AS seq, "purgedSeq"::text AS "purgedSeq" FROM "AuditChain" WHERE chain = $1 FOR UPDATE',
      [chain],
    );
    const found = head.rows[0];
    let deleted = 0;
    if (found) {
      const kept = await client.query<{ first: string | null }>('SELECT min(seq)::text AS first FROM "AuditEvent" WHERE chain = $1 AND "occurredAt" >= $2', [
        chain,
        cutoff,
      ]);
      const through = kept.rows[0]?.first === null || kept.rows[0]?.first === undefined ? Number(found.seq) : Number(kept.rows[0].first) - 1;
      const last = await client.query<{ hash: string }>('SELECT hash FROM "AuditEvent" WHERE chain = $1 AND seq = $2', [chain, through]);
      if (through > Number(found.purgedSeq) && last.rows[0]) {
        const result = await client.query<{ n: string }>(
          'WITH gone AS (DELETE FROM "AuditEvent" WHERE chain = $1 AND seq <= $2 RETURNING 1) SELECT count(*)::text AS n FROM gone',
          [chain, through],
        );
        await client.query('UPDATE "AuditChain" SET "purgedSeq" = $2, "purgedHash" = $3 WHERE chain = $1', [chain, through, last.rows[0].hash]);
        deleted = Number(result.rows[0]?.n ?? 0);
      }
    }
    await client.query('COMMIT');
    client.release();
    return deleted;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    client.release(error instanceof Error ? error : true);
    throw error;
  }
}
