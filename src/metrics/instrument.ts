/**
 * Decorators that report to Metrics from outside the domain code: the rate-limit store (its
 * refusals) and the file ingester (rows and durations). server/app.ts wraps the real ones.
 */
import type { RateLimitStore } from '../ratelimit/rate-limiter.ts';
import type { FileIngester } from '../ingest/ingest-service.ts';
import type { Metrics } from './metrics.ts';

/** The same store; every refused charge is counted by budget. */
export function countingRefusals(store: RateLimitStore, metrics: Metrics): RateLimitStore {
  if (!metrics.enabled) return store;
  return {
    kind: store.kind,
    async consume(budget, subject) {
      const decision = await store.consume(budget, subject);
      if (!decision.allowed) metrics.rateLimitRefused(decision.budget);
      return decision;
    },
    refund: (budget, subject) => store.refund(budget, subject),
  };
}

/** The same ingester; each file's result (rows, status, timings) is recorded. */
export function measuredIngester(ingester: FileIngester, metrics: Metrics): FileIngester {
  if (!metrics.enabled) return ingester;
  return {
    async ingestFile(fileId) {
      const result = await ingester.ingestFile(fileId);
      metrics.ingested(result);
      return result;
    },
    markFailed: (fileId, detail) => ingester.markFailed(fileId, detail),
    ...(ingester.markRetrying ? { markRetrying: (fileId: string, detail: string) => ingester.markRetrying!(fileId, detail) } : {}),
  };
}
