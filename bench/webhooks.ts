/**
 * Webhook delivery benchmark (issue 27): "1,000 events to 20 receivers, one of them dead: delivery
 * p50/p99 from event to receipt, and the ingest time of a 100k-row file with and without webhooks,
 * in one run".
 *
 *   npx tsx bench/webhooks.ts [--events 1000] [--receivers 20] [--rate 10] [--rows 100000] [--rounds 2] [--flood 200] [--json]
 *
 * One service in this process (its own embedded database, or a PostgreSQL schema with
 * DATABASE_URL), its workers on, WEBHOOK_ALLOW_PRIVATE=true. An organization has `receivers`
 * endpoints: local HTTP servers of this script, the last one dead (its port closed: every attempt
 * is a refused connection, retried on the schedule).
 *
 * 1. Delivery: `events` events published through `services.webhookDispatcher.publish` at `rate` per
 *    second, each to every endpoint; the time from the publish call to the receipt at each live
 *    receiver (the receiver reads the publish time from the event's data), p50/p99/max, and how
 *    long until the last live receipt.
 * 2. Ingest: a generated pnl file of `rows` rows uploaded through REST and ingested by the
 *    service's worker, upload to `processed`, `rounds` times without webhooks and `rounds` times
 *    with them, interleaved (without, with, without, with...): "with" = the file's organization has
 *    the `receivers` endpoints subscribed to the file events, and `flood` more events (at `rate`)
 *    are being delivered to them (the dead one included) while the file loads; each round waits for
 *    the deliveries of the one before to end.
 */
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { writePnlFile } from '../scripts/generate-pnl.ts';
import { createUser, type TestUser } from '../test/helpers/fixtures.ts';
import { restUpload, waitForFileStatus } from '../test/helpers/upload.ts';
import { startBenchService } from './bench-service.ts';
import { encryptSecret, newWebhookSecret, webhookSecretKey } from '../src/webhooks/secrets.ts';
import type { TestServer } from '../test/helpers/server.ts';

const SECRET_KEY = 'bench-webhooks-key-0123456789abcdef-0123';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

interface LiveReceiver {
  url: string;
  /** ms from publish to receipt, one per request */
  latencies: number[];
  close(): Promise<void>;
}

async function liveReceiver(): Promise<LiveReceiver> {
  const latencies: number[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { published_at?: number } };
      if (typeof event.data.published_at === 'number') latencies.push(Date.now() - event.data.published_at);
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    latencies,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A loopback URL nobody listens on. */
async function deadUrl(): Promise<string> {
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return `http://127.0.0.1:${port}/hook`;
}

async function addEndpoints(service: TestServer, user: TestUser, urls: string[]): Promise<void> {
  const key = webhookSecretKey(SECRET_KEY, service.dataDir);
  for (const url of urls) {
    await service.services.db.pool.query(
      `INSERT INTO "WebhookEndpoint" (id, "organizationId", "userId", url, events, "secretCiphertext", "updatedAt")
       VALUES (gen_random_uuid(), $1, $2, $3, ARRAY['file.processed', 'file.failed', 'reconciliation.investigate'], $4, now())`,
      [user.orgId, user.userId, url, encryptSecret(newWebhookSecret(), key)],
    );
  }
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** Publishes `count` events to `user`'s organization at `rate` per second. */
async function publishEvents(service: TestServer, user: TestUser, count: number, rate: number): Promise<void> {
  const gapMs = 1000 / rate;
  const start = Date.now();
  for (let i = 0; i < count; i++) {
    const due = start + i * gapMs;
    if (due > Date.now()) await new Promise((resolve) => setTimeout(resolve, due - Date.now()));
    void service.services.webhookDispatcher.publish({ type: 'file.processed', organizationId: user.orgId, data: { seq: i, published_at: Date.now() } });
  }
}

async function waitFor(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function ingestOnce(service: TestServer, user: TestUser, csv: Buffer): Promise<number> {
  const started = performance.now();
  const upload = await restUpload(service.url, user.key, { orgId: user.orgId, file: { name: 'pnl.csv', bytes: csv } });
  if (upload.status !== 201) throw new Error(`upload answered ${upload.status}`);
  const file = await waitForFileStatus(service.url, user.key, user.orgId, upload.body.data.id, ['processed', 'failed'], 600_000);
  if (file.status !== 'processed') throw new Error(`ingest failed: ${file.status_detail}`);
  return (performance.now() - started) / 1000;
}

async function main(): Promise<void> {
  const events = arg('events', 1000);
  const receiverCount = arg('receivers', 20);
  const rate = arg('rate', 10);
  const rows = arg('rows', 100_000);
  const rounds = arg('rounds', 2);
  const flood = arg('flood', 200);
  const json = process.argv.includes('--json');
  const say = (msg: string) => {
    if (!json) process.stderr.write(`${msg}\n`);
  };

  // WEBHOOK_* variables of this process's environment apply (WEBHOOK_CONCURRENCY, WEBHOOK_MAX_IN_FLIGHT...).
  const passed = Object.fromEntries(
    Object.entries(process.env).filter((entry): entry is [string, string] => entry[0].startsWith('WEBHOOK_') && entry[1] !== undefined),
  );
  const service = await startBenchService({ WORKER_ENABLED: 'true', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_SECRET_KEY: SECRET_KEY, ...passed });
  const receivers = await Promise.all(Array.from({ length: receiverCount - 1 }, () => liveReceiver()));
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-webhooks-'));
  try {
    const { config } = service.services;
    say(
      `${service.services.db.kind}; ${receiverCount} receivers (1 dead); WEBHOOK_CONCURRENCY ${config.webhooks.concurrency}, WEBHOOK_MAX_IN_FLIGHT ${config.webhooks.maxInFlightPerOwner}; ${os.cpus().length} CPUs`,
    );
    const urls = [...receivers.map((r) => r.url), await deadUrl()];

    // 1. Delivery latency.
    const owner = await createUser(service.services);
    await addEndpoints(service, owner, urls);
    const deliveryStart = Date.now();
    await publishEvents(service, owner, events, rate);
    const publishedS = (Date.now() - deliveryStart) / 1000;
    const expected = events * receivers.length;
    const received = () => receivers.reduce((sum, r) => sum + r.latencies.length, 0);
    await waitFor(() => received() >= expected, 600_000, `${expected} receipts`);
    const drainS = (Date.now() - deliveryStart) / 1000;
    const latencies = receivers.flatMap((r) => r.latencies).sort((a, b) => a - b);
    const delivery = {
      events,
      receipts: latencies.length,
      publishedInS: publishedS,
      lastReceiptAfterS: drainS,
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
      maxMs: latencies.at(-1) ?? Number.NaN,
    };
    say(
      `delivery: ${events} events x ${receivers.length} live receivers = ${latencies.length} receipts; published in ${publishedS.toFixed(1)} s, last receipt after ${drainS.toFixed(1)} s; event to receipt p50 ${delivery.p50Ms} ms, p99 ${delivery.p99Ms} ms, max ${delivery.maxMs} ms`,
    );

    // 2. Ingest without and with webhooks, interleaved.
    const csvPath = path.join(dir, 'pnl.csv');
    await writePnlFile(csvPath, { rows, accounts: 20, seed: 1 });
    const csv = await fs.readFile(csvPath);
    const times: Record<'without' | 'with', number[]> = { without: [], with: [] };
    for (let round = 0; round < rounds * 2; round++) {
      const mode = round % 2 === 0 ? 'without' : 'with';
      // Each load into an organization of its own (a first load, the same work every time).
      const user = await createUser(service.services);
      let flooding: Promise<void> = Promise.resolve();
      const before = received();
      if (mode === 'with') {
        await addEndpoints(service, user, urls);
        flooding = publishEvents(service, user, flood, rate);
      }
      const seconds = await ingestOnce(service, user, csv);
      await flooding;
      times[mode].push(seconds);
      say(`ingest ${rows} rows ${mode} webhooks: ${seconds.toFixed(2)} s${mode === 'with' ? ` (${received() - before} receipts meanwhile)` : ''}`);
      if (mode === 'with') await waitFor(() => received() >= before + flood * receivers.length, 600_000, 'the flood to drain');
    }
    const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
    const ingest = { rows, without: times.without, with: times.with, meanWithoutS: mean(times.without), meanWithS: mean(times.with) };
    say(
      `ingest: mean ${ingest.meanWithoutS.toFixed(2)} s without webhooks, ${ingest.meanWithS.toFixed(2)} s with (${(((ingest.meanWithS - ingest.meanWithoutS) / ingest.meanWithoutS) * 100).toFixed(1)}%)`,
    );
    if (json) process.stdout.write(`${JSON.stringify({ database: service.services.db.kind, delivery, ingest }, null, 2)}\n`);
  } finally {
    await Promise.all(receivers.map((r) => r.close()));
    await service.close();
    await fs.rm(dir, { recursive: true, force: true });
  }
}

await main();
