/**
 * How the REST event stream's writers flush (rest-compat/event-stream.ts, docs/subscriptions.md#fan-out):
 * a pass over many streams goes out in slices, the event loop serves other work between two
 * slices, frames that arrive during a pass join the writes of the streams it has not reached, and
 * a stream ended during a pass gets its last frames before its end.
 *
 * The responses here are stand-ins whose write takes 1 ms of CPU, so a pass over a few hundred of
 * them takes longer than a slice (10 ms) on any machine, however loaded: what the tests check is
 * the order of things, never a duration. Real sockets are event-stream-backpressure.test.ts's.
 */
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { FrameWriter } from '../../rest-compat/event-stream.ts';

/** A response that records its writes in one shared log; each write busies the CPU for `writeMs`. */
class SlowResponse {
  readonly writes: string[] = [];
  ended = false;
  destroyed = false;
  writableLength = 0;

  constructor(
    readonly name: number,
    private readonly log: string[],
    private readonly writeMs = 1,
  ) {}

  get writableEnded(): boolean {
    return this.ended;
  }

  write(chunk: Buffer): boolean {
    const until = performance.now() + this.writeMs;
    while (performance.now() < until);
    this.writes.push(chunk.toString());
    this.log.push(`write ${this.name}`);
    return true;
  }

  end(): void {
    this.ended = true;
    this.log.push(`end ${this.name}`);
  }

  destroy(): void {
    this.destroyed = true;
  }
}

function writers(count: number, log: string[]): { responses: SlowResponse[]; writers: FrameWriter[] } {
  const responses = Array.from({ length: count }, (_, i) => new SlowResponse(i, log));
  return { responses, writers: responses.map((res) => new FrameWriter(res as unknown as ServerResponse, 1024 * 1024)) };
}

/** Resolves once `check` holds, looked at between turns of the event loop (the test's timeout fails it otherwise). */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setImmediate(resolve));
}

describe('REST event stream flushes', () => {
  it('writes a pass over many streams in slices, serving other work between them', async () => {
    const log: string[] = [];
    const { responses, writers: streams } = writers(200, log);
    for (const writer of streams) writer.push('data: a\n\n');
    // Other work that becomes ready while the pass runs (as a request would): it runs between two slices.
    const other = setInterval(() => log.push('other'), 0);
    try {
      await until(() => responses.every((res) => res.writes.length === 1));
    } finally {
      clearInterval(other);
    }
    const firstOther = log.indexOf('other');
    const lastWrite = log.lastIndexOf(`write ${responses.length - 1}`);
    expect(firstOther).toBeGreaterThan(0);
    expect(firstOther).toBeLessThan(lastWrite);
    // Every stream once, in the order they became dirty.
    expect(log.filter((entry) => entry.startsWith('write'))).toEqual(responses.map((res) => `write ${res.name}`));
  });

  it('adds frames that arrive during a pass to the writes of the streams it has not reached', async () => {
    const log: string[] = [];
    const { responses, writers: streams } = writers(200, log);
    for (const writer of streams) writer.push('data: a\n\n');
    // Once the pass has begun (some written, not all), a second event arrives for everyone.
    await until(() => responses[0]!.writes.length === 1);
    const reached = responses.filter((res) => res.writes.length === 1).length;
    expect(reached).toBeLessThan(responses.length);
    for (const writer of streams) writer.push('data: b\n\n');
    await until(() => responses.every((res) => res.writes.join('') === 'data: a\n\ndata: b\n\n'));
    for (const res of responses) {
      if (res.name < reached) expect(res.writes).toEqual(['data: a\n\n', 'data: b\n\n']);
      else expect(res.writes).toEqual(['data: a\n\ndata: b\n\n']);
    }
  });

  it('ends a stream only after its last frames, even when the pass has not reached it yet', async () => {
    const log: string[] = [];
    // 400 writes of 1 ms: the pass takes longer than the 200 ms after which ended streams are closed.
    const { responses, writers: streams } = writers(400, log);
    for (const writer of streams) {
      writer.push('data: last\n\n');
      writer.end();
    }
    await until(() => responses.every((res) => res.ended));
    for (const res of responses) {
      expect(res.writes).toEqual(['data: last\n\n']);
      expect(log.indexOf(`write ${res.name}`)).toBeLessThan(log.indexOf(`end ${res.name}`));
    }
  });
});
