/**
 * The CLI's commands in the audit log: every command that changes data declares its event, and
 * each successful run is recorded (front `cli`, the command as the operation, the operator as the
 * credential, the options redacted). Run in-process (src/cli/run.ts) on a temporary embedded
 * database, read back through the CLI's own database access.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.ts';
import { COMMANDS } from '../../src/cli/commands/index.ts';
import { openCliDatabase } from '../../src/cli/database.ts';
import { loadConfig } from '../../src/config.ts';
import type { AuditEvent } from '../../src/audit/types.ts';

/** The commands that change nothing an organization owns: no event. Any other command must declare one. */
const READ_ONLY = ['help', 'key:list', 'token:list', 'db:url', 'db:migrate', 'audit:verify'];

it('every command that changes data declares its audit event', () => {
  const undeclared = Object.entries(COMMANDS)
    .filter(([name, command]) => !READ_ONLY.includes(name) && !command.audit)
    .map(([name]) => name);
  expect(undeclared).toEqual([]);
});

describe('recorded runs', () => {
  let dataDir: string;
  const env = () => ({ DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '', LOG_LEVEL: 'silent', NODE_ENV: 'test' });

  async function cli(args: string[], input = ''): Promise<Record<string, any>> {
    let stdout = '';
    let stderr = '';
    const code = await runCli([...args, '--json'], {
      stdout: (text) => (stdout += text),
      stderr: (text) => (stderr += text),
      env: env(),
      stdin: async () => input,
    });
    expect({ code, stderr }).toMatchObject({ code: 0 });
    return JSON.parse(stdout) as Record<string, any>;
  }

  async function events(): Promise<AuditEvent[]> {
    const db = await openCliDatabase(loadConfig(env()), 1);
    try {
      return (await db.pool.query<AuditEvent>(`SELECT * FROM "AuditEvent" WHERE front = 'cli' ORDER BY "occurredAt", seq`)).rows;
    } finally {
      await db.close();
    }
  }

  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'gateway-cli-audit-'));
  });
  afterAll(async () => {
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('records user:create, key:create, key:revoke and org:thresholds; a second revoke and a failed command are not recorded', async () => {
    const password = 'a long enough password';
    const created = await cli(['user:create', '--email', 'ops@example.com', '--org', 'Audit Corp', '--admin', '--password-stdin'], `${password}\n`);
    const key = await cli(['key:create', '--email', 'ops@example.com', '--scopes', 'read:returns', '--name', 'nightly job']);
    await cli(['key:revoke', '--prefix', key.prefix]);
    await cli(['key:revoke', '--prefix', key.prefix]);
    await cli(['org:thresholds', '--org', 'Audit Corp', '--match', '5', '--review', '50']);
    let failed = '';
    const code = await runCli(['org:thresholds', '--org', 'No Such Corp', '--match', '5', '--review', '50'], {
      stdout: () => {},
      stderr: (text) => (failed += text),
      env: env(),
      stdin: async () => '',
    });
    expect(code).toBe(1);
    expect(failed).toMatch(/not found/);

    const recorded = await events();
    expect(recorded.map((e) => e.operation)).toEqual(['user:create', 'key:create', 'key:revoke', 'org:thresholds']);
    const orgId = created.organization.id as string;
    const userId = created.user.id as string;
    for (const event of recorded) {
      expect(event).toMatchObject({ front: 'cli', outcome: 'ok', credentialKind: 'cli', organizationId: orgId, actorId: null });
      expect(event.credentialId).toMatch(/.@./);
      expect(JSON.stringify(event)).not.toContain(password);
      expect(JSON.stringify(event)).not.toContain(key.key);
    }
    expect(recorded[0]).toMatchObject({ targetType: 'User', targetId: userId });
    expect(recorded[0].variables).toMatchObject({ email: 'ops@example.com', org: 'Audit Corp', admin: true, 'password-stdin': true });
    expect(recorded[1]).toMatchObject({ targetType: 'ApiKey', targetId: key.id });
    expect(recorded[1].variables).toMatchObject({ scopes: 'read:returns', name: 'nightly job' });
    expect(recorded[2]).toMatchObject({ targetType: 'ApiKey', targetId: key.id });
    expect(recorded[3]).toMatchObject({ targetType: 'Organization', targetId: orgId, variables: { org: 'Audit Corp', match: '5', review: '50' } });
    // Seven commands, each opening the embedded database: minutes on a loaded machine.
  }, 300_000);

  it('a password given on the command line is redacted', async () => {
    await cli(['user:create', '--email', 'second@example.com', '--org', 'Audit Corp', '--password', 'visible on the command line']);
    const event = (await events()).at(-1)!;
    expect(event.operation).toBe('user:create');
    expect(event.variables).toMatchObject({ password: '[redacted]' });
  }, 120_000);

  it('the chain still verifies with the CLI events in it', async () => {
    const report = await cli(['audit:verify']);
    expect(report).toMatchObject({ ok: true });
    expect(report.events).toBeGreaterThanOrEqual(5);
  }, 120_000);
});
