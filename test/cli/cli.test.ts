/**
 * The CLI as operators run it: a child process (`node --import tsx src/cli/main.ts ...`) against a
 * temporary DATA_DIR with the embedded database, once with no service running (the CLI owns the
 * data directory for each command) and once while a service runs on the same DATA_DIR (the CLI
 * attaches to its local socket). Always embedded: DATABASE_URL is cleared for these tests, since
 * sharing the data directory is what is under test.
 */
import { lastLine, runCli, type CliRun } from '../helpers/cli.ts';
import fs from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// Each test runs several CLI processes, each starting Node and opening the embedded database:
// minutes on a loaded two-core machine.
vi.setConfig({ testTimeout: 300_000 });
import { loadConfig } from '../../src/config.ts';
import { startService, type RunningService } from '../../server/app.ts';
import { createLogger } from '../../src/log.ts';
import { lockFilePath } from '../../src/db/embedded.ts';

const KEY_LINE = /^sk_[0-9a-f]{32}$/;

type Run = CliRun;

function cli(dataDir: string, args: string[], input?: string): Promise<Run> {
  return runCli(args, { DATA_DIR: dataDir, DATABASE_URL: '' }, input);
}

function json(run: Run): any {
  expect(run.stdout.trimEnd().split('\n')).toHaveLength(1);
  return JSON.parse(run.stdout);
}

describe.concurrent('CLI usage errors (no database needed)', () => {
  const dataDir = path.join(os.tmpdir(), 'gateway-cli-never-created');

  it.each([
    [['bogus'], /unknown command bogus/],
    [['key:create', '--email', 'a@b.co'], /needs --scopes/],
    [['user:create'], /needs --email/],
    [['key:revoke', '--prefix', 'sk_12345678', '--bogus'], /bogus/],
    [['user:create', '--email', 'a@b.co', '--password', 'x'.repeat(12), '--password-stdin'], /mutually exclusive/],
    [['key:list', 'extra-positional', '--email', 'a@b.co'], /argument/i],
  ])('%j exits 2 with the message on stderr only', async (args, message) => {
    const run = await cli(dataDir, [...args, '--json']);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(message);
  });

  it('prints the usage with help, and as JSON', async () => {
    const run = await cli(dataDir, ['help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('key:create --email E --scopes s1,s2');
    const asJson = json(await cli(dataDir, ['help', '--json']));
    expect(asJson.commands).toContain('db:url');
  });
});

describe('CLI without a running service (owns the data directory)', () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'gateway-cli-'));
  });
  afterAll(async () => {
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('user:create migrates a new data directory and prints the ids', async () => {
    const run = await cli(dataDir, ['user:create', '--email', 'Ops@Example.com', '--name', 'Ops', '--org', 'Acme Corp', '--admin']);
    expect(run.stderr).toMatch(/applied migration/);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/user id: [0-9a-f-]{36}/);
    expect(run.stdout).toMatch(/org id: +[0-9a-f-]{36} \(Acme Corp, member\)/);
    // the directory is released afterwards
    await expect(fs.access(lockFilePath(dataDir))).rejects.toThrow();
  });

  it('key:create prints a valid key alone on the last line', async () => {
    const run = await cli(dataDir, ['key:create', '--email', 'ops@example.com', '--scopes', 'read:returns,write:upload', '--expires-in', '30d']);
    expect(run.code).toBe(0);
    expect(lastLine(run.stdout)).toMatch(KEY_LINE);
    expect(run.stderr).not.toContain(lastLine(run.stdout));
  });

  it('--json prints one object; key:list never shows secrets; key:revoke revokes', async () => {
    const created = json(await cli(dataDir, ['key:create', '--email', 'ops@example.com', '--scopes', 'admin', '--name', 'ci', '--json']));
    expect(created.key).toMatch(KEY_LINE);
    expect(created).toMatchObject({ name: 'ci', scopes: ['admin'], expiresAt: null, prefix: created.key.slice(0, 11) });

    const listRun = await cli(dataDir, ['key:list', '--email', 'ops@example.com', '--json']);
    const listed = json(listRun);
    expect(listed.keys).toHaveLength(2);
    expect(listRun.stdout).not.toContain(created.key);
    expect(listRun.stdout).not.toMatch(/secretHash/);

    const revoked = json(await cli(dataDir, ['key:revoke', '--prefix', created.prefix, '--json']));
    expect(revoked).toMatchObject({ prefix: created.prefix, alreadyRevoked: false });
    expect(revoked.revokedAt).toEqual(expect.any(String));
    const again = await cli(dataDir, ['key:revoke', '--prefix', created.prefix]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/Already revoked/);
    const after = json(await cli(dataDir, ['key:list', '--email', 'ops@example.com', '--json']));
    expect(after.keys.find((key: { prefix: string }) => key.prefix === created.prefix).state).toBe('revoked');
  });

  it('reads --password-stdin and fails with exit 1 on domain errors', async () => {
    const member = json(
      await cli(dataDir, ['user:create', '--email', 'member@example.com', '--org', 'Acme Corp', '--password-stdin', '--json'], 'correct horse battery\n'),
    );
    expect(member).toMatchObject({ created: true, user: { role: 'member', hasPassword: true }, organization: { name: 'Acme Corp' } });

    const forbidden = await cli(dataDir, ['key:create', '--email', 'member@example.com', '--scopes', 'admin', '--json']);
    expect(forbidden.code).toBe(1);
    expect(forbidden.stdout).toBe('');
    expect(forbidden.stderr).toMatch(/Insufficient permissions/);

    const unknownUser = await cli(dataDir, ['key:create', '--email', 'nobody@example.com', '--scopes', 'read:pnl']);
    expect(unknownUser.code).toBe(1);
    expect(unknownUser.stderr).toMatch(/No user with email nobody@example.com/);

    const unknownKey = await cli(dataDir, ['key:revoke', '--prefix', 'sk_00000000']);
    expect(unknownKey.code).toBe(1);
    expect(unknownKey.stderr).toMatch(/not found/);

    const noService = await cli(dataDir, ['db:url']);
    expect(noService.code).toBe(1);
    expect(noService.stderr).toMatch(/No service is serving/);
  });

  it('db:migrate reports that the schema is up to date', async () => {
    const run = json(await cli(dataDir, ['db:migrate', '--json']));
    expect(run).toMatchObject({ applied: [], upToDate: true, database: 'pglite' });
  });
});

describe('CLI while the service runs on the same data directory (attaches to its socket)', () => {
  let dataDir: string;
  let service: RunningService;

  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'gateway-cli-attach-'));
    const config = loadConfig({
      ...process.env,
      NODE_ENV: 'test',
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: '',
      REDIS_URL: '',
      SEED_DEMO_DATA: 'false',
      SELF_TEST_ENABLED: 'false',
      LOG_LEVEL: 'silent',
    });
    service = await startService(config, { log: createLogger('silent') });
  });
  afterAll(async () => {
    await service?.stop();
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('creates a user and a key that the running service accepts, and revokes it', async () => {
    const ownerPid = () => (JSON.parse(readFileSync(lockFilePath(dataDir), 'utf8')) as { pid: number }).pid;
    expect(ownerPid()).toBe(process.pid);

    const user = json(await cli(dataDir, ['user:create', '--email', 'reader@example.com', '--org', 'Reader Org', '--json']));
    expect(user.organization.id).toMatch(/^[0-9a-f-]{36}$/);
    const created = await cli(dataDir, ['key:create', '--email', 'reader@example.com', '--scopes', 'read:returns']);
    expect(created.code).toBe(0);
    const key = lastLine(created.stdout);
    expect(key).toMatch(KEY_LINE);
    expect(ownerPid()).toBe(process.pid); // the service still owns the directory

    const ok = await fetch(`${service.url}/api/returns/comparison`, { headers: { 'x-api-key': key } });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toBeTypeOf('object');

    const revoke = await cli(dataDir, ['key:revoke', '--prefix', key.slice(0, 11)]);
    expect(revoke.code).toBe(0);
    const refused = await fetch(`${service.url}/api/returns/comparison`, { headers: { 'x-api-key': key } });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual({ error: 'Invalid or expired API key' });
  });

  it("org:thresholds sets an organization's thresholds and re-classifies; --clear goes back; bad input is a usage error", async () => {
    await cli(dataDir, ['user:create', '--email', 'thresholds@example.com', '--org', 'Threshold Org']);
    const set = json(await cli(dataDir, ['org:thresholds', '--org', 'Threshold Org', '--match', '2.5', '--review', '25', '--json']));
    expect(set).toMatchObject({ org: { name: 'Threshold Org' }, matchBps: 2.5, reviewBps: 25, own: true, reclassified: 0 });
    const orgId = set.org.id as string;
    const stored = await service.services.prisma.organization.findUniqueOrThrow({ where: { id: orgId } });
    expect([String(stored.matchThresholdBps), String(stored.reconciledMatchBps), String(stored.reconciledReviewBps)]).toEqual(['2.5', '2.5', '25']);

    const cleared = await cli(dataDir, ['org:thresholds', '--org', 'Threshold Org', '--clear']);
    expect(cleared.code).toBe(0);
    expect(cleared.stdout).toContain("Threshold Org: match 1 bps, review 10 bps (the service's); 0 comparison rows re-classified");

    for (const [args, message] of [
      [['--match', '5'], /Give both --match and --review, or --clear/],
      [['--match', '10', '--review', '5'], /--match must not exceed --review/],
      [['--match=-1', '--review', '5'], /Invalid --match/],
      [['--match', 'x', '--review', '5'], /Invalid --match/],
      [['--clear', '--review', '5'], /--clear takes no --match or --review/],
    ] as const) {
      const run = await cli(dataDir, ['org:thresholds', '--org', 'Threshold Org', ...args]);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toMatch(message);
    }
    const unknown = await cli(dataDir, ['org:thresholds', '--org', 'Nobody', '--clear']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('Organization "Nobody" not found');
  });

  it('db:url prints the socket URL of the running service, usable by other clients', async () => {
    const run = await cli(dataDir, ['db:url']);
    expect(run.code).toBe(0);
    const url = run.stdout.trim();
    expect(url).toMatch(/^postgresql:\/\/postgres@127\.0\.0\.1:\d+\/postgres/);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM "User" WHERE email = 'reader@example.com'`);
      expect(rows[0].n).toBe(1);
    } finally {
      await client.end();
    }
    expect(json(await cli(dataDir, ['db:migrate', '--json']))).toMatchObject({ applied: [], upToDate: true });
  });
});
