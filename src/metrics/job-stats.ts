import type { SqlClient } from '../db/sql-client.ts';
import type { JobQueueStat } from './prometheus-metrics.ts';

/**
 * The job table (src/jobs/job-queue.ts) summed up per queue and state, with the age of the oldest
 * job since it was enqueued: one read-only query per scrape.
 */
export async function jobQueueStats(pool: SqlClient): Promise<JobQueueStat[]> {
  const { rows } = await pool.query<{ queue: string; state: string; count: string; age: string | null }>(
    `SELECT queue, state::text AS state, count(*)::text AS count, extract(epoch FROM now() - min("createdAt"))::text AS age FROM "Job" GROUP BY queue, state`,
  );
  return rows.map((row) => ({ queue: row.queue, state: row.state, count: Number(row.count), oldestAgeSeconds: Math.max(0, Number(row.age ?? 0)) }));
}
