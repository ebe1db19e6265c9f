/**
 * The REST event stream's writer under a client that stops reading (docs/subscriptions.md#slow-followers):
 * real sockets, one client that never reads and one that reads everything, both sent the same
 * frames. The one that stopped is closed once its unsent bytes pass the limit (its buffer never
 * grows past it); the other gets every byte, in order, and its stream ends normally.
 */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Response } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FrameWriter } from '../../rest-compat/event-stream.ts';

// STREAM_UNSENT_MAX_BYTES's default.
const UNSENT_MAX = 1024 * 1024;
const FRAME = Buffer.from(`data: ${'x'.repeat(64 * 1024 - 8)}\n\n`);
// One write carries the frames pushed since the last flush (a few here).
const MAX_WRITE = 8 * FRAME.length;
// Far more than the kernel's socket buffers on loopback hold (up to tcp_rmem + tcp_wmem, 36 MB here), so a client that stops reading fills them.
const FRAMES = 1_200;
// A frame every 2 ms (32 MB/s): a client that reads keeps up, on a loaded machine too.
const FRAME_INTERVAL_MS = 2;

interface Served {
  closedEarly: boolean;
  maxUnsent: number;
  pushed: number;
}

let server: http.Server;
let url: URL;
const served = new Map<string, Promise<Served>>();

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const name = req.url!.slice(1);
    served.set(name, serve(res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Pushes FRAMES frames, one every FRAME_INTERVAL_MS (as events come), unless the connection is closed first. */
function serve(res: http.ServerResponse): Promise<Served> {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const writer = new FrameWriter(res as unknown as Response, UNSENT_MAX);
  const result: Served = { closedEarly: false, maxUnsent: 0, pushed: 0 };
  return new Promise((resolve) => {
    res.once('close', () => {
      result.closedEarly = result.pushed < FRAMES || !res.writableFinished;
      resolve(result);
    });
    const step = () => {
      if (res.destroyed) return;
      result.maxUnsent = Math.max(result.maxUnsent, res.writableLength);
      if (result.pushed === FRAMES) return writer.end();
      writer.push(FRAME);
      result.pushed++;
      setTimeout(step, FRAME_INTERVAL_MS);
    };
    step();
  });
}

describe('REST event stream: a client that stops reading', () => {
  it('is closed once STREAM_UNSENT_MAX_BYTES are unsent, while a reading client gets every frame', async () => {
    // A client that sends its request and never reads a byte of the answer.
    const stalled = net.connect(Number(url.port), '127.0.0.1');
    stalled.write(`GET /stalled HTTP/1.1\r\nhost: ${url.host}\r\n\r\n`);
    stalled.pause();

    // A client that reads everything.
    let received = 0;
    let corrupted = false;
    const reader = new Promise<{ complete: boolean }>((resolve, reject) => {
      http
        .get(new URL('/reader', url), (res) => {
          res.on('data', (chunk: Buffer) => {
            // Every frame whole and in order: the bytes are FRAME repeated.
            for (let i = 0; i < chunk.length; ) {
              const offset = (received + i) % FRAME.length;
              const n = Math.min(FRAME.length - offset, chunk.length - i);
              if (!chunk.subarray(i, i + n).equals(FRAME.subarray(offset, offset + n))) corrupted = true;
              i += n;
            }
            received += chunk.length;
          });
          res.on('end', () => resolve({ complete: res.complete }));
          res.on('error', reject);
        })
        .on('error', reject);
    });

    const [readerEnd] = await Promise.all([reader, waitFor('reader')]);
    const stalledServed = await waitFor('stalled');
    stalled.destroy();

    expect(readerEnd.complete).toBe(true);
    expect(received).toBe(FRAMES * FRAME.length);
    expect(corrupted).toBe(false);
    const readerServed = await served.get('reader')!;
    expect(readerServed.closedEarly).toBe(false);

    expect(stalledServed.closedEarly).toBe(true);
    expect(stalledServed.pushed).toBeLessThan(FRAMES);
    // What waited for the stalled client in the process never passed the limit by more than one write's frames.
    expect(stalledServed.maxUnsent).toBeLessThanOrEqual(UNSENT_MAX + MAX_WRITE);
  }, 60_000);
});

async function waitFor(name: string): Promise<Served> {
  while (!served.has(name)) await new Promise((resolve) => setTimeout(resolve, 10));
  return served.get(name)!;
}
