/**
 * `returns:benchmark`: an entity's benchmark set and cleared from the CLI, through the service the
 * API uses (src/returns/benchmark-service.ts), on a temporary embedded database; run in-process
 * (src/cli/run.ts) as test/cli/audit-events.test.ts does, the data read back with the CLI's own
 * database access.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.ts';
import { openCliDatabase } from '../../src/cli/database.ts';
import { loadConfig } from '../../src/config.ts';

let dataDir: string;
const env = () => ({ DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '', LOG_LEVEL: 'silent', NODE_ENV: 'test' });

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text), env: env(), stdin: async () => '' });
  return { code, stdout, stderr };
}

/** Statements run in order on the CLI's database (opened for them and closed); the last one's rows. */
async function sql<T extends Record<string, unknown>>(...statements: [text: string, values?: unknown[]][]): Promise<T[]> {
  const db = await openCliDatabase(loadConfig(env()), 1);
  try {
    let rows: T[] = [];
    for (const [text, values] of statements) rows = (await db.pool.query<T>(text, values ?? [])).rows;
    return rows;
  } finally {
    await db.close();
  }
}

beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'gateway-cli-benchmark-'));
});
afterAll(async () => {
  await fs.rm(dataDir, { recursive: true, force: true });
});

it("returns:benchmark sets and clears an entity's benchmark; an unknown series, entity or organization fails; bad options are usage errors", async () => {
  const created = await cli(['user:create', '--email', 'ops@example.com', '--org', 'Bench Corp', '--json']);
  expect(created.code).toBe(0);
  const orgId = JSON.parse(created.stdout).organization.id as string;
  await sql(
    [`INSERT INTO "Entity" (id, "orgId", "entityName", "accountCode") VALUES (gen_random_uuid(), $1, 'Harbor Growth Fund LP', 'HG-1')`, [orgId]],
    [
      `INSERT INTO "BenchmarkLevel" ("orgId", benchmark, date, level) VALUES ($1, 'MSCI World', '2025-01-31', 100), ($1, 'MSCI World', '2025-02-28', 101)`,
      [orgId],
    ],
  );

  const set = await cli(['returns:benchmark', '--entity', 'Harbor Growth Fund LP', '--benchmark', 'MSCI World', '--json']);
  expect(set).toMatchObject({ code: 0, stderr: '' });
  const entity = JSON.parse(set.stdout).entity;
  expect(entity).toEqual({ id: expect.any(String), organizationId: orgId, entityName: 'Harbor Growth Fund LP', accountCode: 'HG-1', benchmark: 'MSCI World' });
  expect(await sql([`SELECT benchmark FROM "Entity" WHERE id = $1`, [entity.id]])).toEqual([{ benchmark: 'MSCI World' }]);

  const cleared = await cli(['returns:benchmark', '--entity', 'Harbor Growth Fund LP', '--org', 'Bench Corp', '--clear']);
  expect(cleared).toMatchObject({ code: 0, stdout: 'Harbor Growth Fund LP (HG-1): no benchmark\n' });
  expect(await sql([`SELECT benchmark FROM "Entity" WHERE id = $1`, [entity.id]])).toEqual([{ benchmark: null }]);

  const failures: [string[], number, RegExp][] = [
    [
      ['--entity', 'Harbor Growth Fund LP', '--benchmark', 'S&P 500'],
      1,
      /no benchmark named "S&P 500" has been uploaded to this organization \(file_type=benchmark\)/,
    ],
    [['--entity', 'Nobody', '--benchmark', 'MSCI World'], 1, /Entity "Nobody" not found/],
    [['--entity', 'Harbor Growth Fund LP', '--org', 'No Such Corp', '--clear'], 1, /Organization "No Such Corp" not found/],
    [['--entity', 'Harbor Growth Fund LP'], 2, /Give --benchmark NAME, or --clear/],
    [['--entity', 'Harbor Growth Fund LP', '--benchmark', 'MSCI World', '--clear'], 2, /--clear takes no --benchmark/],
    [['--benchmark', 'MSCI World'], 2, /needs --entity/],
  ];
  for (const [args, code, message] of failures) {
    const run = await cli(['returns:benchmark', ...args]);
    expect(run.code, args.join(' ')).toBe(code);
    expect(run.stderr, args.join(' ')).toMatch(message);
  }
  // Both successful runs are in the audit log, naming the entity.
  const events = await sql<{ operation: string; targetType: string; targetId: string; organizationId: string }>([
    `SELECT operation, "targetType", "targetId", "organizationId" FROM "AuditEvent" WHERE front = 'cli' AND operation = 'returns:benchmark' ORDER BY "occurredAt", seq`,
  ]);
  expect(events).toEqual([
    { operation: 'returns:benchmark', targetType: 'Entity', targetId: entity.id, organizationId: orgId },
    { operation: 'returns:benchmark', targetType: 'Entity', targetId: entity.id, organizationId: orgId },
  ]);
  // A dozen commands, each opening the embedded database: minutes on a loaded machine.
}, 300_000);
