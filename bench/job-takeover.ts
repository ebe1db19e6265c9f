/**
 * Job takeover benchmark (issue 11, defect 7d): how long a killed instance's work stays stuck.
 *
 *   DATABASE_URL=postgresql://... [REDIS_URL=redis://...] npx tsx bench/job-takeover.ts [--rounds 5] [--stale-after 15s] [--rows 20000] [--kind both|ingest|generation]
 *
 * Two service processes (`node --import tsx server/main.ts`) share one PostgreSQL schema and one
 * DATA_DIR, as instances behind a load balancer do. Each round, for each kind:
 * - ingest: a generated pnl file of --rows rows is uploaded; as soon as an instance has claimed
 *   its job and started the load, that instance is killed with SIGKILL. Measured from the kill:
 *   until the other instance has claimed the job (its lock went stale, the sweep requeued it, a
 *   worker took it), and until the file is `processed` (the whole file loaded again).
 * - generation: a summary generation is started (GENERATION_STEP_DELAY 1s keeps it running); a
 *   follower connects to the instance that is not running it; the running instance is killed.
 *   Measured from the kill until the follower has the run's final event (`failed`, `abandoned`).
 * The killed instance is replaced (not timed) before the next measurement. JOB_STALE_AFTER is the
 * service default unless --stale-after is given. Prints min / median / max over the rounds.
 * Needs PostgreSQL: two processes cannot open the same embedded database.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { writePnlFile } from '../scripts/generate-pnl.ts';
import { createUserWithCli, startChildService, type ChildService } from '../test/helpers/child-service.ts';
import { openStream } from '../test/helpers/sse.ts';
import { restUpload } from '../test/helpers/upload.ts';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    'stale-after': { type: 'string' },
    rows: { type: 'string', default: '20000' },
    kind: { type: 'string', default: 'both' },
  },
});
const ROUNDS = Number(values.rounds);
const ROWS = Number(values.rows);
const KINDS = values.kind === 'both' ? ['ingest', 'generation'] : [values.kind!];
const CEILING_MS = 5 * 60_000;

const instanceEnv: Record<string, string> = {
  WORKER_POLL_INTERVAL: '1s',
  GENERATION_STEP_DELAY: '1s',
  RATE_LIMIT_UPLOAD_PER_MINUTE: '1000',
  RATE_LIMIT_GENERATE_PER_MINUTE: '1000',
  ...(values['stale-after'] ? { JOB_STALE_AFTER: values['stale-after'] } : {}),
  ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
};

let first: ChildService;
let instances: ChildService[] = [];
let db: pg.Client;

const alive = (instance: ChildService) => instance.process.exitCode === null && instance.process.signalCode === null;

async function keepTwoRunning(): Promise<void> {
  instances = instances.filter(alive);
  while (instances.length < 2) {
    instances.push(await startChildService({ reuse: { dataDir: first.dataDir, tmpDir: first.tmpDir, env: first.env }, env: instanceEnv }));
  }
}

async function poll<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + CEILING_MS;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

interface JobState {
  id: string;
  state: string;
  lockedBy: string | null;
  attempts: number;
}

async function job(where: string, param: string): Promise<JobState | null> {
  const { rows } = await db.query<JobState>(
    `SELECT id, state::text AS state, "lockedBy", attempts FROM "Job" WHERE ${where} ORDER BY "createdAt" DESC LIMIT 1`,
    [param],
  );
  return rows[0] ?? null;
}

/** The instance holding the running job, and a live other one. */
function holderAndOther(row: JobState): { holder: ChildService; other: ChildService } {
  const pid = Number(row.lockedBy!.split(':').at(-1));
  const holder = instances.find((instance) => instance.pid === pid)!;
  const other = instances.find((instance) => instance !== holder && alive(instance))!;
  return { holder, other };
}

async function kill(instance: ChildService): Promise<number> {
  const killedAt = performance.now();
  instance.process.kill('SIGKILL');
  await instance.exited;
  return killedAt;
}

async function ingestRound(key: string, orgId: string, csv: Buffer): Promise<{ claimMs: number; finishMs: number }> {
  await keepTwoRunning();
  const upload = await restUpload(instances[0].url, key, { orgId, file: { name: 'takeover.csv', bytes: csv } });
  if (upload.status !== 201) throw new Error(`upload answered ${upload.status}: ${JSON.stringify(upload.body)}`);
  const fileId = String(upload.body.data.id);
  const running = (await poll(
    () => job(`payload->>'fileId' = $1`, fileId),
    (row) => row?.state === 'running',
    'the ingest to be claimed',
  ))!;
  await poll(
    () => fileStatus(fileId),
    (status) => status === 'processing',
    'the load to start',
  );
  const { holder } = holderAndOther(running);
  const killedAt = await kill(holder);
  await poll(
    () => job(`payload->>'fileId' = $1`, fileId),
    (row) => row !== null && row.attempts > running.attempts,
    'the other instance to claim the job',
  );
  const claimMs = performance.now() - killedAt;
  const status = await poll(
    () => fileStatus(fileId),
    (value) => value === 'processed' || value === 'failed',
    'the file to be processed',
  );
  const finishMs = performance.now() - killedAt;
  if (status !== 'processed') throw new Error(`the file ended ${status}`);
  return { claimMs, finishMs };
}

async function generationRound(key: string): Promise<{ finalMs: number }> {
  await keepTwoRunning();
  const starter = await openStream(`${instances[0].url}/api/generate?sources=stickies`, { 'x-api-key': key });
  if (!starter.reader) throw new Error(`starting a run answered ${starter.status}: ${starter.text}`);
  try {
    const runId = String((await starter.reader.nextEvent(60_000))!.payload.data.run_id);
    const running = (await poll(
      () => job(`payload->>'runId' = $1`, runId),
      (row) => row?.state === 'running',
      'the run to be claimed',
    ))!;
    await starter.reader.until((event) => event.payload.agent === 'collector', 60_000);
    const { holder, other } = holderAndOther(running);
    const followed = await openStream(`${other.url}/api/generate?run_id=${runId}`, { 'x-api-key': key });
    if (!followed.reader) throw new Error(`following the run answered ${followed.status}`);
    try {
      await followed.reader.nextEvent(60_000);
      const killedAt = await kill(holder);
      const final = await followed.reader.until((event) => event.event === 'done', CEILING_MS);
      const finalMs = performance.now() - killedAt;
      if (final?.payload.data.reason !== 'abandoned') throw new Error(`unexpected final event ${JSON.stringify(final)}`);
      return { finalMs };
    } finally {
      followed.reader.close();
    }
  } finally {
    starter.reader.close();
  }
}

async function fileStatus(fileId: string): Promise<string | null> {
  const { rows } = await db.query<{ status: string }>(`SELECT status::text AS status FROM "UploadedFile" WHERE id = $1`, [fileId]);
  return rows[0]?.status ?? null;
}

function summary(label: string, samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const median = sorted.length % 2 ? sorted[(sorted.length - 1) / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
  return `${label.padEnd(44)} min ${s(sorted[0])}  median ${s(median)}  max ${s(sorted.at(-1)!)}  (${samples.map(s).join(', ')})`;
}

async function main(): Promise<void> {
  if (!process.env.DATABASE_URL) {
    process.stderr.write('bench/job-takeover needs DATABASE_URL (PostgreSQL): two processes cannot share the embedded database\n');
    process.exitCode = 2;
    return;
  }
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-takeover-'));
  first = await startChildService({ env: instanceEnv });
  instances = [first];
  try {
    await keepTwoRunning();
    const { key, orgId } = await createUserWithCli(first, ['write:upload', 'read:pnl', 'read:workspace', 'write:workspace']);
    const schema = new URL(first.env.DATABASE_URL).searchParams.get('schema')!;
    db = new pg.Client({ connectionString: process.env.DATABASE_URL, options: `-c search_path="${schema}"` });
    await db.connect();
    await writePnlFile(path.join(dir, 'pnl.csv'), { rows: ROWS, accounts: 10, seed: 3 });
    const csv = await fs.readFile(path.join(dir, 'pnl.csv'));
    process.stderr.write(
      `JOB_STALE_AFTER ${values['stale-after'] ?? 'default (15s)'}, ${ROUNDS} rounds, ${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(1)}, Redis ${process.env.REDIS_URL ? 'yes' : 'no'}\n`,
    );
    const claims: number[] = [];
    const ingests: number[] = [];
    const finals: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      if (KINDS.includes('ingest')) {
        const { claimMs, finishMs } = await ingestRound(key, orgId, csv);
        claims.push(claimMs);
        ingests.push(finishMs);
        process.stderr.write(
          `round ${round} ingest: claimed by the survivor after ${(claimMs / 1000).toFixed(1)} s, processed after ${(finishMs / 1000).toFixed(1)} s\n`,
        );
      }
      if (KINDS.includes('generation')) {
        const { finalMs } = await generationRound(key);
        finals.push(finalMs);
        process.stderr.write(`round ${round} generation: final event at the follower after ${(finalMs / 1000).toFixed(1)} s\n`);
      }
    }
    process.stdout.write('from SIGKILL of the instance running the job:\n');
    if (claims.length) {
      process.stdout.write(`${summary('ingest job claimed by the other instance', claims)}\n`);
      process.stdout.write(`${summary(`ingest file processed (${ROWS} rows)`, ingests)}\n`);
    }
    if (finals.length) process.stdout.write(`${summary('generation final event at a follower', finals)}\n`);
  } finally {
    await db?.end().catch(() => {});
    for (const instance of instances.filter((i) => i !== first)) await instance.cleanup().catch(() => {});
    await first.cleanup();
    await fs.rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench/job-takeover: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
