/**
 * A CLI command's event in the audit log: front `cli`, the command's name as the operation, the
 * operator (the OS user and host) as the credential, its options redacted by the log's rule
 * (src/audit/redaction.ts: `--password` never appears). Written before the command answers,
 * through the same writer as the service's events, so the hash chain stays one.
 */
import os from 'node:os';
import type { Database } from '../db/database.ts';
import type { CliAuditFacts, Values } from './command.ts';
import { CommandError } from './errors.ts';
import { load } from './load.ts';

export async function recordCliEvent(db: Database, command: string, values: Values, facts: CliAuditFacts): Promise<void> {
  const [{ AuditRecorder }, { redactVariables }, { createLogger }] = await Promise.all([load.auditRecorder(), load.auditRedaction(), load.log()]);
  const recorder = new AuditRecorder({ pool: db.pool, database: db.kind, log: createLogger('silent'), queueMax: 10, flushMs: 0 });
  const options = Object.fromEntries(Object.entries(values).filter(([name, value]) => value !== undefined && name !== 'json'));
  recorder.record({
    front: 'cli',
    operation: command,
    outcome: 'ok',
    credential: { kind: 'cli', id: operator(), prefix: null },
    target: facts.target ?? null,
    subjectUserId: facts.subjectUserId ?? null,
    organizationId: facts.organizationId,
    userAgent: `cli node/${process.versions.node}`,
    variables: redactVariables(options),
  });
  await recorder.close(WRITE_TIMEOUT_MS);
  // The change is made; say so, and that the log misses it, rather than pass it over.
  if (recorder.queued > 0) throw new CommandError(`${command} ran, but its audit event could not be written within ${WRITE_TIMEOUT_MS / 1000} s`);
}

// Long enough for a loaded machine; it only stops a command from waiting forever on a database that is gone.
const WRITE_TIMEOUT_MS = 60_000;

/** Who ran it, as the machine knows them: `user@host`. */
function operator(): string {
  let user = 'unknown';
  try {
    user = os.userInfo().username;
  } catch {
    // No passwd entry for this uid (a container): the uid is all there is.
    user = String(process.getuid?.() ?? 'unknown');
  }
  return `${user}@${os.hostname()}`;
}
