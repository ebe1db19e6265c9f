/**
 * Upload benchmark: a 500 MB pnl CSV streamed through POST /api/storage/upload to the service
 * running as its own process, while its resident memory is sampled from /proc/<pid>/status
 * (VmRSS) every 50 ms. Goal: RSS grows by less than 64 MB (the file is never held in memory).
 *
 *   npx tsx bench/upload.ts [--mb 500] [--graphql] [--s3]
 *
 * - The service: `node --import tsx server/main.ts` in a child process with its own DATA_DIR and
 *   TMPDIR, UPLOAD_MAX_BYTES raised above the file size, the ingest worker off (this measures
 *   the upload, not the ingest of 11 million rows; see bench/ingest for that), embedded database
 *   unless DATABASE_URL is set.
 * - The body is generated on the fly (a header, then valid pnl lines: unique account/date pairs),
 *   written with backpressure, so the client holds one chunk at a time.
 * - "before" is the RSS after a small warm-up upload (code paths loaded, JIT warm) and 2 s idle;
 *   "peak" the highest sample from the first byte sent to the response. Growth is peak minus the
 *   lowest RSS seen before or during the upload (start-up garbage collected during the upload
 *   would otherwise hide growth): an upper bound.
 * - `--graphql` sends the same bytes through /graphql (GraphQL multipart request spec) instead.
 * - `--s3` runs the service with BLOB_STORE=s3 against an S3-compatible server started for the run
 *   (s3rver in a child process of its own, test/helpers/s3-server.ts; only the service's RSS is
 *   measured): the file goes up as a streaming multipart upload, and the object's size in the
 *   bucket is checked too.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { createUserWithCli, startChildService, type ChildService } from '../test/helpers/child-service.ts';
import { S3RVER_CREDENTIALS, startS3Server, type S3TestServer } from '../test/helpers/s3-server.ts';

const { values } = parseArgs({
  options: { mb: { type: 'string', default: '500' }, graphql: { type: 'boolean', default: false }, s3: { type: 'boolean', default: false } },
});
const TARGET_BYTES = Math.round(Number(values.mb) * 1024 * 1024);
const GOAL_MB = 64;
const MB = 1024 * 1024;

function rssBytes(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  if (!match) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(match[1]) * 1024;
}

/**
 * Samples VmRSS every `everyMs` on a worker thread (its own event loop: the upload's producer on
 * the main thread must not delay the samples) until stopped; returns the peak and the count.
 */
function sampleRss(pid: number, everyMs = 50) {
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     const fs = require('node:fs');
     const read = () => { try { return Number(/^VmRSS:\\s+(\\d+)\\s+kB/m.exec(fs.readFileSync('/proc/' + workerData.pid + '/status', 'utf8'))[1]) * 1024; } catch { return 0; } };
     let peak = read(); let min = peak; let samples = 1;
     const sample = () => { const rss = read(); if (rss > 0) { peak = Math.max(peak, rss); min = Math.min(min, rss); samples++; } };
     const timer = setInterval(sample, workerData.everyMs);
     parentPort.on('message', () => { clearInterval(timer); sample(); parentPort.postMessage({ peak, min, samples }); });`,
    { eval: true, workerData: { pid, everyMs } },
  );
  return {
    stop: async (): Promise<{ peak: number; min: number; samples: number }> => {
      const result = new Promise<{ peak: number; min: number; samples: number }>((resolve) => worker.once('message', resolve));
      worker.postMessage('stop');
      const value = await result;
      await worker.terminate();
      return value;
    },
  };
}

const HEADER = 'account_code,entity_name,date,market_value,cash_flow,flow_timing,description\n';
const DAYS = 36_500;
const DATES = Array.from({ length: DAYS }, (_, i) => new Date(Date.UTC(1950, 0, 1 + i)).toISOString().slice(0, 10));

/** Exactly `total` bytes of pnl CSV (the last line padded), in ~256 KiB chunks, made as they are read. */
async function* pnlBody(total: number, hash: ReturnType<typeof createHash>): AsyncGenerator<Buffer> {
  let produced = 0;
  let row = 0;
  const emit = (text: string) => {
    const buffer = Buffer.from(text, 'utf8');
    hash.update(buffer);
    produced += buffer.length;
    return buffer;
  };
  yield emit(HEADER);
  const line = () => {
    const account = Math.floor(row / DAYS);
    const flow = row % 7 === 0 ? `${(row % 5000) + 1}.25,start_of_day,Subscription` : ',,';
    const text = `BENCH-${account},Bench Fund ${account},${DATES[row % DAYS]},${1_000_000 + (row % 100_000)}.${String(row % 100).padStart(2, '0')},${flow}\n`;
    row++;
    return text;
  };
  const chunkTarget = 256 * 1024;
  for (;;) {
    const room = total - produced;
    if (room <= 0) return;
    let text = '';
    if (room > chunkTarget + 1024) {
      while (text.length < chunkTarget) text += line();
      yield emit(text);
      continue;
    }
    // the last chunk: lines up to ~200 bytes short of the end, then one line padded to the exact size
    while (text.length < room - 200) text += line();
    const last = 'BENCH-X,Bench Fund X,2000-01-01,1.00,,,';
    text += `${last}${' '.repeat(room - text.length - last.length - 1)}\n`;
    yield emit(text);
    return;
  }
}

interface UploadResult {
  status: number;
  body: any;
  sentBytes: number;
  fileBytes: number;
  sha256: string;
  seconds: number;
}

async function upload(service: ChildService, key: string, orgId: string, fileBytes: number, graphql: boolean): Promise<UploadResult> {
  const boundary = `----bench${Date.now()}`;
  const hash = createHash('sha256');
  let preamble: string;
  if (graphql) {
    const operations = JSON.stringify({
      query: 'mutation Upload($file: Upload!, $orgId: UUID!) { uploadFile(file: $file, orgId: $orgId) { id sizeBytes sha256 status } }',
      variables: { file: null, orgId },
    });
    preamble =
      `--${boundary}\r\nContent-Disposition: form-data; name="operations"\r\n\r\n${operations}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="map"\r\n\r\n{"0":["variables.file"]}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="0"; filename="bench.csv"\r\nContent-Type: text/csv\r\n\r\n`;
  } else {
    preamble =
      `--${boundary}\r\nContent-Disposition: form-data; name="org_id"\r\n\r\n${orgId}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file_type"\r\n\r\npnl\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench.csv"\r\nContent-Type: text/csv\r\n\r\n`;
  }
  const epilogue = `\r\n--${boundary}--\r\n`;
  const contentLength = Buffer.byteLength(preamble) + fileBytes + Buffer.byteLength(epilogue);
  let sentBytes = 0;
  async function* body(): AsyncGenerator<Buffer> {
    for (const part of [Buffer.from(preamble)]) yield part;
    yield* pnlBody(fileBytes, hash);
    yield Buffer.from(epilogue);
  }
  const started = process.hrtime.bigint();
  const req = http.request(new URL(graphql ? '/graphql' : '/api/storage/upload', service.url), {
    method: 'POST',
    agent: false,
    headers: { 'x-api-key': key, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(contentLength) },
  });
  const response = new Promise<{ status: number; body: any }>((resolve, reject) => {
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        try {
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) });
        } catch {
          resolve({ status: res.statusCode ?? 0, body: text });
        }
      });
    });
    req.on('error', reject);
  });
  const counter = async function* (source: AsyncIterable<Buffer>) {
    for await (const chunk of source) {
      sentBytes += chunk.length;
      yield chunk;
    }
  };
  await pipeline(Readable.from(counter(body())), req);
  const result = await response;
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { ...result, sentBytes, fileBytes, sha256: hash.digest('hex'), seconds };
}

const mb = (bytes: number) => (bytes / MB).toFixed(1);

/** With --s3: the object's size in the bucket (the service's key is `<org id>/<file id>`). */
async function objectSize(s3: S3TestServer, key: string): Promise<number | undefined> {
  const client = new S3Client({ region: 'us-east-1', endpoint: s3.endpoint, forcePathStyle: true, credentials: S3RVER_CREDENTIALS });
  try {
    return (await client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: key }))).ContentLength;
  } finally {
    client.destroy();
  }
}

async function main(): Promise<void> {
  const s3 = values.s3 ? await startS3Server({ bucket: 'bench-uploads' }) : undefined;
  const s3Env: Record<string, string> = s3
    ? { ...s3.env, AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId, AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey }
    : {};
  const service = await startChildService({
    env: {
      UPLOAD_MAX_BYTES: String(TARGET_BYTES + 64 * MB),
      RATE_LIMIT_UPLOAD_PER_MINUTE: '100',
      WORKER_ENABLED: 'false',
      ...s3Env,
    },
  }).catch(async (error: unknown) => {
    await s3?.stop();
    throw error;
  });
  let exitCode = 0;
  try {
    const atStart = rssBytes(service.pid);
    const user = await createUserWithCli(service, ['write:upload', 'read:pnl']);
    // warm-up: load the upload path once
    const warm = await upload(service, user.key, user.orgId, 256 * 1024, values.graphql);
    if (warm.status !== (values.graphql ? 200 : 201)) throw new Error(`warm-up upload failed: ${warm.status} ${JSON.stringify(warm.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 2000));

    const before = rssBytes(service.pid);
    const sampler = sampleRss(service.pid, 50);
    const result = await upload(service, user.key, user.orgId, TARGET_BYTES, values.graphql);
    const { peak, min, samples } = await sampler.stop();
    const after = rssBytes(service.pid);
    // The idle baseline still holds start-up garbage that a collection during the upload may free,
    // so growth is counted from the lowest RSS seen (before or during): an upper bound.
    const baseline = Math.min(before, min);

    const record = values.graphql ? result.body?.data?.uploadFile : result.body?.data;
    const sizeOk = record && Number(record.size_bytes ?? record.sizeBytes) === result.fileBytes;
    const hashOk = record && record.sha256 === result.sha256;
    const storedBytes = s3 && record ? await objectSize(s3, `${user.orgId}/${record.id}`) : undefined;
    const storedOk = !s3 || storedBytes === result.fileBytes;
    const growth = peak - baseline;
    console.log(
      JSON.stringify(
        {
          front: values.graphql ? 'graphql' : 'rest',
          database: process.env.DATABASE_URL ? 'postgresql' : 'pglite',
          blobStore: s3 ? 's3' : 'local',
          ...(s3 ? { objectInBucketMatches: storedOk } : {}),
          status: result.status,
          fileMB: Number(mb(result.fileBytes)),
          sentMB: Number(mb(result.sentBytes)),
          sizeMatches: Boolean(sizeOk),
          sha256Matches: Boolean(hashOk),
          seconds: Number(result.seconds.toFixed(2)),
          throughputMBps: Number((result.fileBytes / MB / result.seconds).toFixed(1)),
          rssAtStartMB: Number(mb(atStart)),
          rssBeforeMB: Number(mb(before)),
          rssMinDuringMB: Number(mb(min)),
          rssPeakMB: Number(mb(peak)),
          rssAfterMB: Number(mb(after)),
          rssGrowthMB: Number(mb(growth)),
          rssSamples: samples,
          goalMB: GOAL_MB,
          pass: growth < GOAL_MB * MB && Boolean(sizeOk) && Boolean(hashOk) && storedOk,
        },
        null,
        2,
      ),
    );
    if (!(growth < GOAL_MB * MB && sizeOk && hashOk && storedOk)) exitCode = 1;
  } finally {
    service.process.kill('SIGTERM');
    await service.exited;
    await service.cleanup();
    await s3?.stop();
  }
  process.exit(exitCode);
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
