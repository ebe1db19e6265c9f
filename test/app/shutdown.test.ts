/**
 * Graceful shutdown of the real service process: on SIGTERM it stops accepting connections,
 * lets the request in flight (a slow streaming upload) finish, closes down and exits 0, logging
 * JSON lines throughout (request ids on request lines, never an API key). A restart on the same
 * data then ingests the file the shutdown left queued: nothing is lost.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createUserWithCli, startChildService, type ChildService } from '../helpers/child-service.ts';
import { getJson } from '../helpers/fixtures.ts';
import { waitForFileStatus } from '../helpers/upload.ts';

let service: ChildService;
let restarted: ChildService | undefined;
let user: { userId: string; orgId: string; key: string };

beforeAll(async () => {
  service = await startChildService();
  user = await createUserWithCli(service, ['write:upload', 'read:pnl', 'read:returns']);
}, 180_000);
afterAll(async () => {
  await restarted?.cleanup();
  if (!restarted) await service?.cleanup();
  else await service.cleanup().catch(() => {});
});

/** An upload whose body the test writes piece by piece (chunked, no Content-Length). */
function streamingUpload(url: string, key: string, orgId: string, agent: http.Agent | false = false) {
  const boundary = `----slow${Date.now()}`;
  const hash = createHash('sha256');
  let fileBytes = 0;
  const req = http.request(new URL('/api/storage/upload', url), {
    method: 'POST',
    agent,
    headers: { 'x-api-key': key, 'content-type': `multipart/form-data; boundary=${boundary}` },
  });
  const response = new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: any }>((resolve, reject) => {
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
  req.write(`--${boundary}\r\nContent-Disposition: form-data; name="org_id"\r\n\r\n${orgId}\r\n`);
  req.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="slow.csv"\r\nContent-Type: text/csv\r\n\r\n`);
  const writeFile = (text: string) => {
    const bytes = Buffer.from(text);
    hash.update(bytes);
    fileBytes += bytes.length;
    req.write(bytes);
  };
  let day = 0;
  const lines = (count: number) => {
    let text = '';
    for (let i = 0; i < count; i++, day++) {
      const date = new Date(Date.UTC(2024, 0, 1 + day)).toISOString().slice(0, 10);
      text += `SLOW-1,Slow Fund,${date},${(1_000_000 + day * 10).toFixed(2)},\n`;
    }
    return text;
  };
  writeFile('account_code,entity_name,date,market_value,cash_flow\n');
  return {
    response,
    sendLines: (count: number) => writeFile(lines(count)),
    finish: () => {
      req.end(`\r\n--${boundary}--\r\n`);
      return { sizeBytes: fileBytes, sha256: hash.digest('hex') };
    },
  };
}

/** A brand-new TCP connection to the port: resolves with the error code when it is refused. */
function connectFresh(port: number): Promise<{ connected: boolean; code?: string }> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/health', agent: false, timeout: 3_000 }, (res) => {
      res.resume();
      resolve({ connected: true });
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ connected: false, code: error.code }));
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
  });
}

it('SIGTERM: refuses new connections, finishes the in-flight upload, exits 0 with JSON logs', async () => {
  // some traffic to log first, with a wrong key among it
  const wrongKey = `sk_${'ab'.repeat(16)}`;
  expect((await getJson(`${service.url}/health`)).status).toBe(200);
  expect((await getJson(`${service.url}/api/returns/comparison`, { headers: { 'x-api-key': wrongKey } })).status).toBe(401);
  expect((await getJson(`${service.url}/api/storage/files?org_id=${user.orgId}`, { headers: { 'x-api-key': user.key } })).status).toBe(200);

  const upload = streamingUpload(service.url, user.key, user.orgId);
  upload.sendLines(200);
  // the service is reading it: the multipart file part is being spooled to a temp file
  const deadline = Date.now() + 10_000;
  while (!(await fs.readdir(service.tmpDir)).some((name) => name.startsWith('capacitor-'))) {
    if (Date.now() > deadline) throw new Error('the service never started reading the upload');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }

  service.process.kill('SIGTERM');
  await service.waitForLine((line) => line.includes('"shutting down"'), 10_000);

  // no new connections...
  const fresh = await connectFresh(service.port);
  expect(fresh).toEqual({ connected: false, code: 'ECONNREFUSED' });
  // ...but the upload in flight goes on, slowly
  for (let i = 0; i < 5; i++) {
    upload.sendLines(100);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(service.process.exitCode).toBeNull();
  const sent = upload.finish();
  const response = await upload.response;
  expect(response.status).toBe(201);
  expect(response.body.data).toMatchObject({ org_id: user.orgId, file_name: 'slow.csv', size_bytes: sent.sizeBytes, sha256: sent.sha256, status: 'uploaded' });
  const requestId = response.headers['x-request-id'];
  expect(typeof requestId).toBe('string');

  const exit = await Promise.race([service.exited, new Promise((resolve) => setTimeout(() => resolve('still running'), 20_000))]);
  expect(exit).toEqual({ code: 0, signal: null });

  // every stdout line is a JSON log record
  const records = service.stdout.map((line) => {
    try {
      return JSON.parse(line) as Record<string, any>;
    } catch {
      throw new Error(`not a JSON log line: ${line}`);
    }
  });
  const messages = records.map((r) => r.msg);
  expect(messages).toContain('service listening');
  expect(messages).toContain('signal received');
  const shuttingDown = messages.indexOf('shutting down');
  const stopped = messages.indexOf('stopped');
  expect(shuttingDown).toBeGreaterThan(-1);
  expect(stopped).toBeGreaterThan(shuttingDown);
  expect(messages.lastIndexOf('stopped')).toBe(records.length - 1);

  // request lines carry a request id; the upload's line comes after "shutting down"
  const requests = records.filter((r) => r.msg === 'request');
  expect(requests.length).toBeGreaterThanOrEqual(4);
  for (const r of requests) {
    expect(r.requestId).toMatch(/^[\w.:-]+$/);
    expect(typeof r.method).toBe('string');
    expect(Number.isInteger(r.status)).toBe(true);
  }
  const uploadLine = records.findIndex((r) => r.msg === 'request' && r.path === '/api/storage/upload');
  expect(records[uploadLine]).toMatchObject({ requestId, method: 'POST', status: 201 });
  expect(uploadLine).toBeGreaterThan(shuttingDown);
  expect(uploadLine).toBeLessThan(stopped);
  expect(records.find((r) => r.msg === 'request' && r.path === '/api/returns/comparison')).toMatchObject({ status: 401 });

  // no API key in the logs, neither the valid one nor the wrong one
  const everything = [...service.stdout, ...service.stderr].join('\n');
  expect(everything).not.toContain(user.key);
  expect(everything).not.toContain(user.key.slice(3));
  expect(everything).not.toContain(wrongKey);
  expect(everything).not.toMatch(/sk_[0-9a-f]{32}/);
}, 120_000);

it('a restart on the same data ingests the upload the shutdown left queued', async () => {
  restarted = await startChildService({ reuse: service });
  const listing = await getJson(`${restarted.url}/api/storage/files?org_id=${user.orgId}`, { headers: { 'x-api-key': user.key } });
  expect(listing.status).toBe(200);
  expect(listing.body.data).toHaveLength(1);
  const file = await waitForFileStatus(restarted.url, user.key, user.orgId, listing.body.data[0].id, ['processed', 'failed']);
  expect(file).toMatchObject({ status: 'processed', row_count: 700, error_count: 0 });
  restarted.process.kill('SIGTERM');
  expect(await restarted.exited).toEqual({ code: 0, signal: null });
}, 120_000);

/**
 * A keep-alive client (fetch, browsers, most SDKs) must not hold the shutdown open or be served
 * new requests after SIGTERM: responses during shutdown carry `Connection: close` and the
 * process exits right after its last request.
 */
it('a keep-alive client is answered with Connection: close and cannot hold the shutdown open', async () => {
  const child = await startChildService();
  try {
    const owner = await createUserWithCli(child, ['write:upload']);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    // a request in flight on a keep-alive connection when SIGTERM arrives
    const upload = streamingUpload(child.url, owner.key, owner.orgId, agent);
    upload.sendLines(50);
    const deadline = Date.now() + 10_000;
    while (!(await fs.readdir(child.tmpDir)).some((name) => name.startsWith('capacitor-'))) {
      if (Date.now() > deadline) throw new Error('the service never started reading the upload');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    child.process.kill('SIGTERM');
    await child.waitForLine((line) => line.includes('"shutting down"'), 10_000);
    upload.finish();
    const response = await upload.response;
    expect(response.status).toBe(201);
    // the in-flight response should close its connection...
    expect(response.headers.connection).toBe('close');
    // ...so nothing more is served on it, and the process exits at once
    const after = await new Promise<number>((resolve) => {
      http
        .get({ host: '127.0.0.1', port: child.port, path: '/health', agent }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        })
        .on('error', () => resolve(0));
    });
    expect(after).toBe(0);
    // No timing assertion (CI machines are noisy): the connection was closed by the server above,
    // and the process exits cleanly without needing the shutdown timeout's forced close.
    expect(await child.exited).toEqual({ code: 0, signal: null });
    expect(child.stdout.some((line) => line.includes('shutdown timeout'))).toBe(false);
    agent.destroy();
  } finally {
    await child.cleanup();
  }
}, 120_000);
