/**
 * Database connections dropped under the service (issue 11, defect 1): the service process
 * keeps running, an ingest interrupted mid-load is retried and ends `processed` with every row
 * exactly once, a generation run interrupted mid-run ends in a final state with its final event,
 * and requests that lose their connection answer 503 with Retry-After, never 500.
 *
 * PostgreSQL only: the fault is `pg_terminate_backend` on the service's own backends, found by
 * a unique `application_name` in its DATABASE_URL (other tests share the database; they are
 * never touched). The embedded database has one in-process session and no such operation.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUserWithCli, startChildService, type ChildService } from '../helpers/child-service.ts';
import { getJson } from '../helpers/fixtures.ts';
import { waitForFileStatus } from '../helpers/upload.ts';

const baseUrl = process.env.DATABASE_URL?.trim();
const ACCOUNTS = 20;
const DAYS = 2_500;

describe.skipIf(!baseUrl)('dropped database connections (PostgreSQL)', () => {
  const schema = `test_${randomBytes(6).toString('hex')}`;
  const applicationName = `fault_${randomBytes(4).toString('hex')}`;
  let admin: pg.Client;
  let service: ChildService;
  let user: { userId: string; orgId: string; key: string };

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: baseUrl });
    await admin.connect();
    await admin.query(`CREATE SCHEMA "${schema}"`);
    const url = new URL(baseUrl!);
    url.searchParams.set('schema', schema);
    url.searchParams.set('application_name', applicationName);
    service = await startChildService({ env: { DATABASE_URL: url.toString(), GENERATION_STEP_DELAY: '300ms', JOB_STALE_AFTER: '5s' } });
    user = await createUserWithCli(service, ['read:pnl', 'read:returns', 'write:upload', 'read:workspace', 'write:workspace']);
  }, 180_000);

  afterAll(async () => {
    await service?.cleanup();
    await admin?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin?.end();
  });

  /** Terminates every backend of this test's service; returns how many were in a transaction. */
  async function dropConnections(): Promise<{ total: number; inTransaction: number }> {
    const { rows } = await admin.query<{ state: string | null; terminated: boolean }>(
      `SELECT state, pg_terminate_backend(pid) AS terminated FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()`,
      [applicationName],
    );
    const terminated = rows.filter((row) => row.terminated);
    return { total: terminated.length, inTransaction: terminated.filter((row) => row.state !== 'idle').length };
  }

  /** Waits until one of the service's backends is inside a transaction that wrote valuations. */
  async function waitForLoadTransaction(timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const { rows } = await admin.query(
        `SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND state IN ('active', 'idle in transaction')
            AND query ILIKE '%Valuation%'`,
        [applicationName],
      );
      if (rows.length > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error('the ingest never reached its load transaction');
  }

  async function retryUnavailable<T>(attempt: () => Promise<T>, tries = 5): Promise<T> {
    for (let i = 1; ; i++) {
      try {
        return await attempt();
      } catch (error) {
        if (i >= tries || !String(error).includes('answered 503')) throw error;
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  }

  function bigPnlCsv(): string {
    const lines = ['account_code,entity_name,date,market_value,cash_flow,flow_timing,description'];
    for (let account = 1; account <= ACCOUNTS; account++) {
      for (let day = 0; day < DAYS; day++) {
        const date = new Date(Date.UTC(2010, 0, 1 + day)).toISOString().slice(0, 10);
        lines.push(`F-${account},Fault Fund ${account},${date},${(1_000_000 + day * 10 + account).toFixed(2)},,,`);
      }
    }
    return `${lines.join('\n')}\n`;
  }

  it('an ingest whose connection is terminated mid-load is retried and loads every row exactly once; the process stays up', async () => {
    const form = new FormData();
    form.set('org_id', user.orgId);
    form.set('file', new Blob([bigPnlCsv()], { type: 'text/csv' }), 'fault.csv');
    const upload = await getJson(`${service.url}/api/storage/upload`, { method: 'POST', headers: { 'x-api-key': user.key }, body: form });
    expect(upload.status).toBe(201);
    const fileId = upload.body.data.id as string;

    await waitForLoadTransaction();
    const dropped = await dropConnections();
    expect(dropped.inTransaction).toBeGreaterThan(0);

    // A listing that races the terminated connections may itself get the documented 503: a
    // client retries after Retry-After, as this wait does.
    const file = await retryUnavailable(() => waitForFileStatus(service.url, user.key, user.orgId, fileId, ['processed', 'failed'], 120_000));
    expect(file.status).toBe('processed');
    expect(file.row_count).toBe(ACCOUNTS * DAYS);
    const { rows } = await admin.query<{ count: string }>(
      `SELECT count(*) AS count FROM "${schema}"."Valuation" v JOIN "${schema}"."Entity" e ON e.id = v."entityId" WHERE e."orgId" = $1`,
      [user.orgId],
    );
    expect(Number(rows[0].count)).toBe(ACCOUNTS * DAYS);

    const health = await getJson(`${service.url}/health`);
    expect(health.status).toBe(200);
    expect(service.process.exitCode).toBeNull();
    expect(service.stderr.join('\n')).not.toMatch(/Unhandled 'error' event/);
    // The log stayed JSON and told the operator what happened.
    expect(service.stdout.every((line) => line.startsWith('{'))).toBe(true);
    expect(service.stdout.some((line) => line.includes('database unavailable') || line.includes('Connection terminated'))).toBe(true);
  }, 180_000);

  it('a generation run whose connections are terminated mid-run ends in a final state with its final event', async () => {
    const gql = (query: string, variables: Record<string, unknown> = {}) =>
      getJson(`${service.url}/graphql`, {
        method: 'POST',
        headers: { 'x-api-key': user.key, 'content-type': 'application/json' },
        body: JSON.stringify({ query, variables }),
      });
    const started = await gql(`mutation { startGeneration(input: { days: 7 }) { id state } }`);
    expect(started.status).toBe(200);
    const runId = started.body.data.startGeneration.id as string;

    // Wait until the run is executing, then drop every connection under it.
    await expect
      .poll(async () => (await gql(`query($id: UUID!) { generationRun(id: $id) { state } }`, { id: runId })).body.data?.generationRun?.state, {
        timeout: 60_000,
      })
      .toBe('running');
    await dropConnections();

    let run: { state: string; finished: boolean; lastSequence: number; events: { agent: string; status: string }[] } | undefined;
    const finished = expect
      .poll(
        async () => {
          const answer = await gql(`query($id: UUID!) { generationRun(id: $id) { state finished lastSequence events { agent status } } }`, { id: runId });
          run = answer.body.data?.generationRun;
          return run?.finished;
        },
        { timeout: 120_000, interval: 250 },
      )
      .toBe(true);
    await finished.catch((error: unknown) => {
      console.error(
        JSON.stringify(run),
        service.stdout
          .filter((line) => /"level":(40|50|60)|generation/.test(line))
          .slice(-40)
          .join('\n'),
      );
      throw error;
    });
    expect(['completed', 'failed']).toContain(run!.state);
    // One final event, and it is the last one.
    const finals = run!.events.filter((event) => event.agent === 'run' && (event.status === 'complete' || event.status === 'failed'));
    expect(finals).toHaveLength(1);
    expect(run!.events.at(-1)).toEqual(finals[0]);
    expect(service.process.exitCode).toBeNull();
  }, 240_000);

  it('a request whose connection is terminated under it answers 503 with Retry-After or succeeds on a new connection, never 500', async () => {
    const statuses: number[] = [];
    const requests = Array.from({ length: 40 }, async (_, i) => {
      const answer = await getJson(`${service.url}/api/returns/comparison?org_id=${user.orgId}&limit=50`, { headers: { 'x-api-key': user.key } });
      statuses.push(answer.status);
      if (answer.status === 503) {
        expect(answer.headers.get('retry-after')).toBe('1');
        expect(answer.body).toEqual({ error: 'The database is temporarily unavailable; retry shortly' });
      }
      if (i % 10 === 0) await dropConnections();
    });
    await Promise.all(requests);
    expect(statuses.every((status) => status === 200 || status === 503 || status === 429)).toBe(true);
    expect((await getJson(`${service.url}/health`)).status).toBe(200);
  }, 120_000);
});
