/**
 * Latency as a fixed-bucket histogram, so that counts from any number of instances, hours and
 * flushes add up bucket by bucket (`count = count + excluded.count`) and percentiles are computed
 * from the merged counts when they are read.
 *
 * Bucket `i` holds the latencies in (bound(i-1), bound(i)] milliseconds, bound(i) = 2^(i/2): log
 * spaced, each bucket √2 (about 41 %) wider than the one below, from 1 ms to about 33 s; the last
 * bucket takes everything slower. A percentile is reported as the upper bound of the bucket it
 * falls in: exact to a bucket (never under the true value, at most 41 % over it).
 */

/** How many buckets each row holds (the upper bounds below and one overflow bucket). */
export const LATENCY_BUCKETS = 32;

/** Upper bounds in milliseconds of buckets 0 … LATENCY_BUCKETS - 2; the last bucket has none. */
export const LATENCY_BOUNDS_MS: readonly number[] = Array.from({ length: LATENCY_BUCKETS - 1 }, (_, i) => roundBound(2 ** (i / 2)));

function roundBound(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

export function emptyHistogram(): number[] {
  return new Array<number>(LATENCY_BUCKETS).fill(0);
}

/** The bucket a latency falls in. */
export function bucketOf(ms: number): number {
  const index = LATENCY_BOUNDS_MS.findIndex((bound) => ms <= bound);
  return index === -1 ? LATENCY_BUCKETS - 1 : index;
}

/** Adds `from` into `into`, bucket by bucket (both LATENCY_BUCKETS long). */
export function addHistogram(into: number[], from: readonly number[]): void {
  for (let i = 0; i < LATENCY_BUCKETS; i++) into[i] += from[i] ?? 0;
}

/**
 * The latency under which `fraction` (0.5, 0.95) of the counted requests fell, as the upper bound
 * of its bucket in ms; null with nothing counted; in the overflow bucket, the last bound (the
 * true value is above it).
 */
export function percentileMs(histogram: readonly number[], fraction: number): number | null {
  const total = histogram.reduce((sum, count) => sum + count, 0);
  if (total === 0) return null;
  const rank = Math.ceil(fraction * total);
  let seen = 0;
  for (let i = 0; i < histogram.length; i++) {
    seen += histogram[i];
    if (seen >= rank) return LATENCY_BOUNDS_MS[Math.min(i, LATENCY_BOUNDS_MS.length - 1)];
  }
  return LATENCY_BOUNDS_MS.at(-1) ?? null;
}
