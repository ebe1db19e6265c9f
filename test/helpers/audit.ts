/** The audit log as tests read it: everything queued written first, then the rows themselves. */
import type { Services } from '../../src/services.ts';
import type { AuditEvent } from '../../src/audit/types.ts';

/** The events a request recorded (by its X-Request-Id), in chain order. */
export async function auditEventsOf(services: Services, requestId: string): Promise<AuditEvent[]> {
  await services.audit.flush();
  const { rows } = await services.db.pool.query<AuditEvent>('SELECT * FROM "AuditEvent" WHERE "requestId" = $1 ORDER BY seq', [requestId]);
  return rows;
}
