import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';
import { AppError } from '../errors.ts';

/**
 * Named request budgets. Each read or write of the data a budget guards costs one point,
 * whichever front (REST, GraphQL, JSON-RPC) it comes through: a REST request pays once, and a
 * GraphQL request pays once per field that reads the data (aliases included), so GraphQL is no
 * way around REST's limit.
 */
export type Budget = 'returns' | 'upload' | 'login' | 'chat' | 'generate';

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

/**
 * A request's charges. `prepay` charges one point before anything else runs (REST routes and
 * multipart uploads, before the body is read); the operation's own `charge` for that budget is
 * then covered by it, so the request pays once. Every further `charge` costs one more point.
 * The decisions are kept for the response headers.
 */
export class RequestBudgets {
  private readonly charged = new Map<Budget, Promise<RateLimitDecision>[]>();
  private readonly credits = new Map<Budget, Promise<RateLimitDecision>>();

  constructor(private readonly store: RateLimitStore, private readonly subject: () => string) {}

  prepay(budget: Budget): Promise<RateLimitDecision> {
    const decision = this.consume(budget);
    this.credits.set(budget, decision);
    return decision.then(refuseIfLimited);
  }

  async charge(budget: Budget): Promise<RateLimitDecision> {
    const credit = this.credits.get(budget);
    this.credits.delete(budget);
    return refuseIfLimited(await (credit ?? this.consume(budget)));
  }

  /** One decision per budget charged: a refusal if there was one, else the one with the least remaining. */
  async settled(): Promise<RateLimitDecision[]> {
    return Promise.all(
      [...this.charged.values()].map(async (pending) => {
        const decisions = await Promise.all(pending);
        return decisions.find((d) => !d.allowed) ?? decisions.reduce((least, d) => (d.remaining < least.remaining ? d : least));
      }),
    );
  }

  private consume(budget: Budget): Promise<RateLimitDecision> {
    const decision = this.store.consume(budget, this.subject());
    this.charged.set(budget, [...(this.charged.get(budget) ?? []), decision]);
    return decision;
  }
}

function refuseIfLimited(result: RateLimitDecision): RateLimitDecision {
  if (!result.allowed) {
    throw new AppError('RATE_LIMITED', `Rate limit exceeded: ${result.limit} requests per ${result.windowSeconds} seconds; retry in ${result.resetSeconds} seconds`, {
      retryAfterSeconds: result.resetSeconds,
      budget: result.budget,
    });
  }
  return result;
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
