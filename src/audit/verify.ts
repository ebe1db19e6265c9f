/**
 * audit:verify: walks every chain of the audit log in order and recomputes each event's hash from
 * its predecessor's. The first broken link of a chain is reported: an edited event (its hash no
 * longer matches), a deleted event (a gap in seq, or the chain head pointing past the last event),
 * or an event whose predecessor was edited or deleted (the link does not match).
 */
import { eventHash } from './hash-chain.ts';
import { fromRow } from './queries.ts';
import type { AuditEvent } from './types.ts';

interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: T[] }>;
}

export interface BrokenLink {
  chain: string;
  seq: number;
  eventId: string | null;
  problem: string;
}

export interface VerifyReport {
  chains: number;
  events: number;
  broken: BrokenLink[];
}

const PAGE = 1000;

export async function verifyAuditLog(sql: Queryable): Promise<VerifyReport> {
  const heads = await sql.query<{ chain: string; seq: string; hash: string; purgedSeq: string; purgedHash: string }>(
    `SELECT chain, seq::text AS seq, hash, "purgedSeq"::text AS "purgedSeq", "purgedHash" FROM "AuditChain"
     UNION ALL
     SELECT DISTINCT chain, '-1', '', '0', '' FROM "AuditEvent" e WHERE NOT EXISTS (SELECT 1 FROM "AuditChain" c WHERE c.chain = e.chain)
     ORDER BY chain`,
  );
  const report: VerifyReport = { chains: heads.rows.length, events: 0, broken: [] };
  for (const head of heads.rows) {
    if (head.seq === '-1') {
      report.broken.push({ chain: head.chain, seq: 0, eventId: null, problem: 'events of a chain that has no head (AuditChain row deleted)' });
      continue;
    }
    const result = await verifyChain(sql, head.chain, { seq: Number(head.purgedSeq), hash: head.purgedHash }, { seq: Number(head.seq), hash: head.hash });
    report.events += result.events;
    if (result.broken) report.broken.push(result.broken);
  }
  return report;
}

async function verifyChain(
  sql: Queryable,
  chain: string,
  start: { seq: number; hash: string },
  head: { seq: number; hash: string },
): Promise<{ events: number; broken?: BrokenLink }> {
  let previous = start;
  let events = 0;
  for (;;) {
    const { rows } = await sql.query<Omit<AuditEvent, 'seq'> & { seq: string }>(
      `SELECT id, chain, seq::text AS seq, "occurredAt", "organizationId", "actorId", "credentialKind", "credentialId", "credentialPrefix",
         front, operation, "targetType", "targetId", outcome, "clientAddress", "userAgent", "requestId", "traceId", variables, hash
       FROM "AuditEvent" e WHERE chain = $1 AND e.seq > $2 ORDER BY e.seq LIMIT ${PAGE}`,
      [chain, previous.seq],
    );
    for (const row of rows.map(fromRow)) {
      events++;
      if (row.seq !== previous.seq + 1) {
        return {
          events,
          broken: {
            chain,
            seq: previous.seq + 1,
            eventId: null,
            problem: `event ${previous.seq + 1} is missing (deleted); the next is ${row.seq} (${row.id})`,
          },
        };
      }
      const { hash, ...fields } = row;
      if (eventHash(previous.hash, fields) !== hash) {
        return {
          events,
          broken: { chain, seq: row.seq, eventId: row.id, problem: `event ${row.seq} (${row.id}) does not match its hash: edited, or its predecessor was` },
        };
      }
      previous = { seq: row.seq, hash };
    }
    if (rows.length < PAGE) break;
  }
  if (previous.seq !== head.seq || previous.hash !== head.hash) {
    return {
      events,
      broken: {
        chain,
        seq: previous.seq + 1,
        eventId: null,
        problem: `the chain head is at event ${head.seq} but the last event is ${previous.seq}: events deleted or edited at the end`,
      },
    };
  }
  return { events };
}
