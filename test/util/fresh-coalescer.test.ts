import { describe, expect, it } from 'vitest';
import { FreshCoalescer } from '../../src/util/fresh-coalescer.ts';

/** A lookup whose reads the test settles by hand, numbered in the order they began. */
function manualLoads() {
  const started: { n: number; resolve: (value: number) => void; reject: (error: Error) => void }[] = [];
  const load = () => new Promise<number>((resolve, reject) => started.push({ n: started.length + 1, resolve, reject }));
  return { started, load };
}

describe('FreshCoalescer', () => {
  it('a burst of callers shares two reads: the running one, and one begun after it for everyone who arrived meanwhile', async () => {
    const coalescer = new FreshCoalescer<number>();
    const { started, load } = manualLoads();
    const first = coalescer.run('k', load);
    const later = Array.from({ length: 100 }, () => coalescer.run('k', load));
    expect(started).toHaveLength(1);
    started[0]!.resolve(1);
    expect(await first).toBe(1);
    // The callers who arrived during read 1 are answered by read 2, which began after they asked.
    await Promise.resolve();
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toHaveLength(2);
    started[1]!.resolve(2);
    expect(new Set(await Promise.all(later))).toEqual(new Set([2]));
  });

  it('never answers a caller with a read that began before it asked, and keys do not share', async () => {
    const coalescer = new FreshCoalescer<number>();
    const { started, load } = manualLoads();
    const a = coalescer.run('a', load);
    const b = coalescer.run('b', load);
    expect(started).toHaveLength(2);
    started[0]!.resolve(10);
    started[1]!.resolve(20);
    expect([await a, await b]).toEqual([10, 20]);
    // Idle again: the next caller starts a read of its own at once.
    await new Promise((resolve) => setImmediate(resolve));
    const c = coalescer.run('a', load);
    expect(started).toHaveLength(3);
    started[2]!.resolve(30);
    expect(await c).toBe(30);
  });

  it('a failed read fails its callers only; the next read serves the callers queued behind it', async () => {
    const coalescer = new FreshCoalescer<number>();
    const { started, load } = manualLoads();
    const first = coalescer.run('k', load);
    const queued = coalescer.run('k', load);
    started[0]!.reject(new Error('connection lost'));
    await expect(first).rejects.toThrow('connection lost');
    await new Promise((resolve) => setImmediate(resolve));
    started[1]!.resolve(5);
    expect(await queued).toBe(5);
  });
});
