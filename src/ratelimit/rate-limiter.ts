import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';
import { AppError } from '../errors.ts';

/**
 * Named request budgets. A budget is charged once per HTTP request, whichever front (REST,
 * GraphQL, JSON-RPC) reads or writes the data it guards, so GraphQL is no way around REST's limit.
 */
export type Budget = 'returns' | 'upload' | 'login';

export interface BudgetPolicy {
  points: number;
  windowSeconds: number;
}

export interface RateLimitDecision {
  budget: Budget;
  allowed: boolean;
  limit: number;
  remaining: number;
  resetSeconds: number;
  windowSeconds: number;
}

export interface RateLimitStore {
  readonly kind: 'memory' | 'redis';
  consume(budget: Budget, subject: string): Promise<RateLimitDecision>;
}

export function createRateLimitStore(policies: Record<Budget, BudgetPolicy>, options: { redis?: Redis; keyPrefix?: string } = {}): RateLimitStore {
  const { redis, keyPrefix = 'rl' } = options;
  const limiters = new Map<Budget, RateLimiterAbstract>();
  for (const [budget, policy] of Object.entries(policies) as [Budget, BudgetPolicy][]) {
    const options = { points: policy.points, duration: policy.windowSeconds, keyPrefix: `${keyPrefix}:${budget}` };
    limiters.set(budget, redis ? new RateLimiterRedis({ ...options, storeClient: redis, useRedisPackage: false }) : new RateLimiterMemory(options));
  }
  return {
    kind: redis ? 'redis' : 'memory',
    async consume(budget, subject) {
      const limiter = limiters.get(budget)!;
      const policy = policies[budget];
      const decide = (res: RateLimiterRes, allowed: boolean): RateLimitDecision => ({
        budget,
        allowed,
        limit: policy.points,
        remaining: Math.max(0, res.remainingPoints),
        resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
        windowSeconds: policy.windowSeconds,
      });
      try {
        return decide(await limiter.consume(subject), true);
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) return decide(rejection, false);
        throw rejection;
      }
    },
  };
}

/** Charges each budget at most once per request and remembers the decisions for response headers. */
export class RequestBudgets {
  readonly decisions = new Map<Budget, Promise<RateLimitDecision>>();

  constructor(private readonly store: RateLimitStore, private readonly subject: () => string) {}

  async charge(budget: Budget): Promise<RateLimitDecision> {
    let decision = this.decisions.get(budget);
    if (!decision) {
      decision = this.store.consume(budget, this.subject());
      this.decisions.set(budget, decision);
    }
    const result = await decision;
    if (!result.allowed) {
      throw new AppError('RATE_LIMITED', `Rate limit exceeded: ${result.limit} requests per ${result.windowSeconds} seconds; retry in ${result.resetSeconds} seconds`, {
        retryAfterSeconds: result.resetSeconds,
        budget,
      });
    }
    return result;
  }

  async settled(): Promise<RateLimitDecision[]> {
    return Promise.all(this.decisions.values());
  }
}

/** IETF draft-ietf-httpapi-ratelimit-headers: RateLimit-Policy and RateLimit fields. */
export function rateLimitHeaders(decisions: RateLimitDecision[]): Record<string, string> {
  if (decisions.length === 0) return {};
  const headers: Record<string, string> = {
    'RateLimit-Policy': decisions.map((d) => `"${d.budget}";q=${d.limit};w=${d.windowSeconds}`).join(', '),
    RateLimit: decisions.map((d) => `"${d.budget}";r=${d.remaining};t=${d.resetSeconds}`).join(', '),
  };
  const refused = decisions.find((d) => !d.allowed);
  if (refused) headers['Retry-After'] = String(refused.resetSeconds);
  return headers;
}
