/**
 * The latency histogram and the in-memory aggregate behind per-client usage: percentiles exact to a
 * bucket, histograms and counts that add, a failed flush's rows put back without loss.
 */
import { describe, expect, it } from 'vitest';
import { LATENCY_BOUNDS_MS, LATENCY_BUCKETS, addHistogram, bucketOf, emptyHistogram, percentileMs } from '../../src/usage/latency-histogram.ts';
import { UsageAggregate, type OperationUse } from '../../src/usage/usage-aggregate.ts';

describe('latency histogram', () => {
  it('puts a latency in the bucket whose upper bound is the first at or above it', () => {
    expect(LATENCY_BOUNDS_MS.slice(0, 5)).toEqual([1, 1.414, 2, 2.828, 4]);
    expect(bucketOf(0.2)).toBe(0);
    expect(bucketOf(1)).toBe(0);
    expect(bucketOf(1.001)).toBe(1);
    expect(bucketOf(4)).toBe(4);
    expect(bucketOf(100_000)).toBe(LATENCY_BUCKETS - 1);
  });

  it('reports a percentile as the upper bound of its bucket, never under the true value and at most √2 over it', () => {
    const histogram = emptyHistogram();
    const latencies = [3, 3, 3, 3, 3, 3, 3, 3, 3, 50];
    for (const ms of latencies) histogram[bucketOf(ms)] += 1;
    expect(percentileMs(histogram, 0.5)).toBe(4);
    expect(percentileMs(histogram, 0.9)).toBe(4);
    expect(percentileMs(histogram, 0.95)).toBe(64);
    for (const ms of [0.7, 3, 9.5, 180, 2500]) {
      const one = emptyHistogram();
      one[bucketOf(ms)] = 1;
      const reported = percentileMs(one, 0.5)!;
      expect(reported).toBeGreaterThanOrEqual(ms);
      expect(reported).toBeLessThanOrEqual(Math.max(1, ms * Math.SQRT2 + 0.001));
    }
    expect(percentileMs(emptyHistogram(), 0.5)).toBeNull();
  });

  it('adds bucket by bucket', () => {
    const a = emptyHistogram();
    const b = emptyHistogram();
    a[3] = 2;
    b[3] = 5;
    b[7] = 1;
    addHistogram(a, b);
    expect(a[3]).toBe(7);
    expect(a[7]).toBe(1);
  });
});

describe('usage aggregate', () => {
  const use = (over: Partial<OperationUse> = {}): OperationUse => ({
    credentialKind: 'api_key',
    credentialId: 'k1',
    userId: '00000000-0000-4000-8000-000000000001',
    front: 'rest',
    operation: 'Stickies',
    durationMs: 3,
    at: new Date('2026-11-27T13:45:10Z'),
    ...over,
  });

  it('counts each operation in its hour and its day', () => {
    const aggregate = new UsageAggregate();
    aggregate.addOperation(use());
    aggregate.addOperation(use({ errorCode: 'RATE_LIMITED', at: new Date('2026-11-27T13:59:59Z') }));
    aggregate.addOperation(use({ at: new Date('2026-11-27T14:00:00Z') }));
    const { usage } = aggregate.take();
    const hours = usage.filter((row) => row.granularity === 'hour').map((row) => [row.bucketStart.toISOString(), row.requests, row.errors, row.rateLimited]);
    expect(hours).toEqual([
      ['2026-11-27T13:00:00.000Z', 2, 1, 1],
      ['2026-11-27T14:00:00.000Z', 1, 0, 0],
    ]);
    const [day] = usage.filter((row) => row.granularity === 'day');
    expect(day).toMatchObject({ bucketStart: new Date('2026-11-27T00:00:00Z'), requests: 3, errors: 1, errorCodes: { RATE_LIMITED: 1 } });
    expect(day.latencyBuckets.reduce((sum, count) => sum + count, 0)).toBe(3);
    expect(aggregate.size).toBe(0);
  });

  it('puts back the rows of a failed flush, added to those counted meanwhile', () => {
    const aggregate = new UsageAggregate();
    aggregate.addOperation(use());
    const taken = aggregate.take();
    aggregate.addOperation(use({ errorCode: 'BAD_USER_INPUT' }));
    aggregate.restore(taken);
    const hour = aggregate.take().usage.find((row) => row.granularity === 'hour')!;
    expect(hour).toMatchObject({ requests: 2, errors: 1, errorCodes: { BAD_USER_INPUT: 1 } });
  });
});
