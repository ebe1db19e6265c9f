import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';
import { AppError } from '../errors.ts';
import { createLogger, type Logger } from '../log.ts';

/**
 * Named request budgets. Each read or write of the data a budget guards costs one point,
 * whichever front (REST, GraphQL, JSON-RPC) it comes through: a REST request pays once, and a
 * GraphQL request pays once per field that reads the data (aliases included), so GraphQL is no
 * way around REST's limit.
 */
export type Budget = 'returns' | 'upload' | 'login' | 'chat' | 'generate' | 'oauth';

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

/**
 * The budgets' counters: in memory, or in Redis so that all instances share one budget. While
 * Redis does not answer (down, unreachable, or slower than REDIS_COMMAND_TIMEOUT_MS), each
 * instance counts in its own memory with the same policy, so requests are neither failed nor
 * refused because of Redis (a fleet of N instances allows up to N times the budget meanwhile);
 * the next charge that Redis answers goes back to the shared counter.
 */
export function createRateLimitStore(
  policies: Record<Budget, BudgetPolicy>,
  options: { redis?: Redis; keyPrefix?: string; log?: Logger } = {},
): RateLimitStore {
  const { redis, keyPrefix = 'rl', log = createLogger('silent') } = options;
  const local = limitersFor(policies, (limiterOptions) => new RateLimiterMemory(limiterOptions), keyPrefix);
  if (!redis) return decidingStore('memory', policies, (budget, subject) => local.get(budget)!.consume(subject));
  const shared = limitersFor(
    policies,
    // Not ready (reconnecting): fail at once, without sending anything, and count locally.
    (limiterOptions) => new RateLimiterRedis({ ...limiterOptions, storeClient: redis, useRedisPackage: false, rejectIfRedisNotReady: true }),
    keyPrefix,
  );
  const outage = new OutageLog(log);
  return decidingStore('redis', policies, async (budget, subject) => {
    try {
      const answer = await shared.get(budget)!.consume(subject);
      outage.answered();
      return answer;
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) {
        // Redis answered: the budget is spent.
        outage.answered();
        throw rejection;
      }
      outage.failed(rejection);
      return local.get(budget)!.consume(subject);
    }
  });
}

type LimiterOptions = { points: number; duration: number; keyPrefix: string };

function limitersFor(
  policies: Record<Budget, BudgetPolicy>,
  create: (options: LimiterOptions) => RateLimiterAbstract,
  keyPrefix: string,
): Map<Budget, RateLimiterAbstract> {
  const limiters = new Map<Budget, RateLimiterAbstract>();
  for (const [budget, policy] of Object.entries(policies) as [Budget, BudgetPolicy][]) {
    limiters.set(budget, create({ points: policy.points, duration: policy.windowSeconds, keyPrefix: `${keyPrefix}:${budget}` }));
  }
  return limiters;
}

/**
 * A store from a `consume` that resolves with the points left or rejects with a RateLimiterRes
 * when the budget is spent (rate-limiter-flexible's convention).
 */
function decidingStore(
  kind: RateLimitStore['kind'],
  policies: Record<Budget, BudgetPolicy>,
  consume: (budget: Budget, subject: string) => Promise<RateLimiterRes>,
): RateLimitStore {
  return {
    kind,
    async consume(budget, subject) {
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
        return decide(await consume(budget, subject), true);
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) return decide(rejection, false);
        throw rejection;
      }
    },
  };
}

/** One warning when the counters go local, one info line when Redis answers again: not one per request. */
class OutageLog {
  private since: number | null = null;

  constructor(private readonly log: Logger) {}

  failed(error: unknown): void {
    if (this.since !== null) return;
    this.since = Date.now();
    // The reason only: the stack of an expected failure is noise.
    this.log.warn(
      { reason: error instanceof Error ? error.message : String(error) },
      'Redis unreachable: rate limits are counted by this instance alone until Redis answers again',
    );
  }

  answered(): void {
    if (this.since === null) return;
    this.log.info({ localForMs: Date.now() - this.since }, 'Rate limits are counted in Redis again');
    this.since = null;
  }
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

  constructor(
    private readonly store: RateLimitStore,
    private readonly subject: () => string,
  ) {}

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

  /**
   * Charges one point of `budget` to a subject named by the caller instead of the request's
   * credential (`ip:<address>`, `account:<email>`): a budget that no credential the client
   * presents can reset (sign-in guesses against an account, OAuth client registrations).
   */
  async chargeTo(budget: Budget, subject: string): Promise<RateLimitDecision> {
    return refuseIfLimited(await this.consume(budget, subject));
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

  private consume(budget: Budget, subject = this.subject()): Promise<RateLimitDecision> {
    const decision = this.store.consume(budget, subject);
    this.charged.set(budget, [...(this.charged.get(budget) ?? []), decision]);
    return decision;
  }
}

function refuseIfLimited(result: RateLimitDecision): RateLimitDecision {
  if (!result.allowed) {
    throw new AppError(
      'RATE_LIMITED',
      `Rate limit exceeded: ${result.limit} requests per ${result.windowSeconds} seconds; retry in ${result.resetSeconds} seconds`,
      {
        retryAfterSeconds: result.resetSeconds,
        budget: result.budget,
      },
    );
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
