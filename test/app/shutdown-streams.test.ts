/**
 * Graceful shutdown with progress streams open: on SIGTERM a REST event stream ends at once
 * without a final event (its EventSource client reconnects, with its last event id, to another
 * instance), the run in progress gets half of SHUTDOWN_TIMEOUT to finish and is then failed with
 * a final event that says why, and the process exits 0. After a restart on the same data the
 * run's stream replays to that final event.
 */
import http from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createUserWithCli, startChildService, type ChildService } from '../helpers/child-service.ts';

let service: ChildService;
let restarted: ChildService | undefined;
let key: string;

beforeAll(async () => {
  // Each progress step waits 400 ms: the run lasts far longer than the 1 s it gets at shutdown.
  service = await startChildService({ env: { GENERATION_STEP_DELAY: '400ms', SHUTDOWN_TIMEOUT: '2s' } });
  ({ key } = await createUserWithCli(service, ['read:workspace', 'write:workspace']));
}, 180_000);
afterAll(async () => {
  await restarted?.cleanup();
  if (!restarted) await service?.cleanup();
  else await service.cleanup().catch(() => {});
});

interface Frame {
  id?: number;
  event?: string;
  data?: { agent: string; status: string; data: Record<string, unknown> };
}

/** Opens GET `path` as an event stream; frames are parsed as they arrive. */
function openStream(baseUrl: string, path: string) {
  const frames: Frame[] = [];
  let text = '';
  let status = 0;
  const ended = new Promise<void>((resolve, reject) => {
    const request = http.get(new URL(path, baseUrl), { agent: false, headers: { 'x-api-key': key, accept: 'text/event-stream' } }, (response) => {
      status = response.statusCode ?? 0;
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
        let end: number;
        while ((end = text.indexOf('\n\n')) >= 0) {
          const block = text.slice(0, end);
          text = text.slice(end + 2);
          const frame: Frame = {};
          for (const line of block.split('\n')) {
            if (line.startsWith('id: ')) frame.id = Number(line.slice(4));
            if (line.startsWith('event: ')) frame.event = line.slice(7);
            if (line.startsWith('data: ')) frame.data = JSON.parse(line.slice(6)) as Frame['data'];
          }
          if (frame.event) frames.push(frame);
        }
      });
      response.on('end', resolve);
      response.on('error', reject);
    });
    request.on('error', reject);
  });
  return { frames, ended, status: () => status };
}

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

it('SIGTERM ends open progress streams at once, fails the interrupted run with a reason, and exits 0; the log survives a restart', async () => {
  const stream = openStream(service.url, '/api/generate?sources=stickies');
  await until(() => stream.frames.some((frame) => frame.data?.agent === 'collector' && frame.data.status === 'started'), 30_000);
  const runId = String(stream.frames[0].data!.data.run_id);

  const signalledAt = Date.now();
  service.process.kill('SIGTERM');
  await stream.ended;
  // The stream ended without a final event: a client reconnects and resumes elsewhere.
  expect(Date.now() - signalledAt).toBeLessThan(1_500);
  expect(stream.status()).toBe(200);
  expect(stream.frames.some((frame) => frame.event === 'done')).toBe(false);
  const exit = await Promise.race([service.exited, new Promise((resolve) => setTimeout(() => resolve('still running'), 20_000))]);
  expect(exit).toEqual({ code: 0, signal: null });

  // The run got its grace period, then its final event said why it stopped.
  restarted = await startChildService({ reuse: service, env: { GENERATION_STEP_DELAY: '400ms' } });
  const seen = stream.frames.at(-1)!.id!;
  const resumed = openStream(restarted.url, `/api/generate?run_id=${runId}&last_event_id=${seen}`);
  await resumed.ended;
  expect(resumed.status()).toBe(200);
  expect(resumed.frames[0].id).toBe(seen + 1);
  const final = resumed.frames.at(-1)!;
  expect(final.event).toBe('done');
  expect(final.data).toMatchObject({ agent: 'run', status: 'failed', data: { run_id: runId, state: 'failed', reason: 'shutdown' } });
  // The agent that was running says it was interrupted.
  expect(resumed.frames.some((frame) => frame.data?.status === 'failed' && frame.data.agent !== 'run')).toBe(true);
}, 120_000);
