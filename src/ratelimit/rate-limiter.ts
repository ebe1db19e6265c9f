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
export type Budget = 'returns' | 'upload' | 'login' | 'chat' | 'generate' | 'oauth' | 'webhooks';

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
  /** When the window this decision counted in ends (epoch ms). */
  resetsAt: number;
}

export interface RateLimitStore {
  readonly kind: 'memory' | 'redis';
  consume(budget: Budget, subject: string): Promise<RateLimitDecision>;
  /** Gives back one point consumed in the current window (a reservation no charge took). */
  refund(budget: Budget, subject: string): Promise<RateLimitDecision>;
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
  if (!redis) {
    return decidingStore('memory', policies, {
      consume: (budget, subject) => local.get(budget)!.consume(subject),
      refund: (budget, subject) => local.get(budget)!.reward(subject, 1),
    });
  }
  const shared = limitersFor(
    policies,
    // Not ready (reconnecting): fail at once, without sending anything, and count locally.
    (limiterOptions) => new RateLimiterRedis({ ...limiterOptions, storeClient: redis, useRedisPackage: false, rejectIfRedisNotReady: true }),
    keyPrefix,
  );
  const outage = new OutageLog(log);
  /** Redis when it answers, else this instance's own counter (the same policy). */
  const sharedOrLocal =
    (action: (limiter: RateLimiterAbstract, subject: string) => Promise<RateLimiterRes>) =>
    async (budget: Budget, subject: string): Promise<RateLimiterRes> => {
      try {
        const answer = await action(shared.get(budget)!, subject);
        outage.answered();
        return answer;
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) {
          // Redis answered: the budget is spent.
          outage.answered();
          throw rejection;
        }
        outage.failed(rejection);
        return action(local.get(budget)!, subject);
      }
    };
  return decidingStore('redis', policies, {
    consume: sharedOrLocal((limiter, subject) => limiter.consume(subject)),
    refund: sharedOrLocal((limiter, subject) => limiter.reward(subject, 1)),
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

type LimiterAction = (budget: Budget, subject: string) => Promise<RateLimiterRes>;

/**
 * A store from a `consume` that resolves with the points left or rejects with a RateLimiterRes
 * when the budget is spent (rate-limiter-flexible's convention), and a `refund` (its `reward`).
 */
function decidingStore(
  kind: RateLimitStore['kind'],
  policies: Record<Budget, BudgetPolicy>,
  limiter: { consume: LimiterAction; refund: LimiterAction },
): RateLimitStore {
  const decide = (budget: Budget, res: RateLimiterRes, allowed: boolean): RateLimitDecision => ({
    budget,
    allowed,
    limit: policies[budget].points,
    remaining: Math.min(policies[budget].points, Math.max(0, res.remainingPoints)),
    resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
    windowSeconds: policies[budget].windowSeconds,
    resetsAt: Date.now() + res.msBeforeNext,
  });
  return {
    kind,
    async consume(budget, subject) {
      try {
        return decide(budget, await limiter.consume(budget, subject), true);
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) return decide(budget, rejection, false);
        throw rejection;
      }
    },
    async refund(budget, subject) {
      return decide(budget, await limiter.refund(budget, subject), true);
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

interface Reservation {
  subject: string;
  decision: Promise<RateLimitDecision>;
}

/**
 * A request's charges: the one place that decides what a request pays, whichever front it came
 * through (REST, GraphQL over HTTP or WebSocket, a batch, an MCP tool call).
 *
 * The invariant: a request pays one point of a budget for each resolution of a field that costs it
 * (`rateBudget`), charged after that field's authentication, scope check and argument validation;
 * nothing else costs a point, so a refused request (401, 403, 400) costs nothing on every front.
 *
 * A front that must refuse a spent budget before reading a large body (a multipart upload)
 * `reserve`s the point first: the first charge of that budget takes the reservation, and a
 * reservation that no charge took (the operation was refused, or never reached the field) is
 * given back when the request settles. A refused reservation refuses the request (429). A field
 * its own resolver refuses (400, 401, 403: what only the resolver can judge) gives its point back
 * (`refundLastCharge`, called by the rateBudget plugin).
 * The decisions are kept for the response headers.
 */
export class RequestBudgets {
  private readonly charged = new Map<Budget, Promise<RateLimitDecision>[]>();
  private readonly reservations = new Map<Budget, Reservation>();

  constructor(
    private readonly store: RateLimitStore,
    private readonly subject: () => string,
  ) {}

  reserve(budget: Budget): Promise<RateLimitDecision> {
    const subject = this.subject();
    const decision = this.consume(budget, subject);
    this.reservations.set(budget, { subject, decision });
    return decision.then(refuseIfLimited);
  }

  async charge(budget: Budget): Promise<RateLimitDecision> {
    const reservation = this.reservations.get(budget);
    this.reservations.delete(budget);
    return refuseIfLimited(await (reservation?.decision ?? this.consume(budget)));
  }

  /**
   * Charges one point of `budget` to a subject named by the caller instead of the request's
   * credential (`ip:<address>`, `account:<email>`): a budget that no credential the client
   * presents can reset (sign-in guesses against an account, OAuth client registrations).
   */
  async chargeTo(budget: Budget, subject: string): Promise<RateLimitDecision> {
    return refuseIfLimited(await this.consume(budget, subject));
  }

  /**
   * Ends the request's charging: reservations no charge took are given back, then one decision per
   * budget charged (a refusal if there was one, else the one with the least remaining). Safe to
   * call more than once; a reservation is given back once.
   */
  async settled(): Promise<RateLimitDecision[]> {
    await Promise.all([...this.reservations].map(([budget, reservation]) => this.giveBack(budget, reservation)));
    return Promise.all(
      [...this.charged.values()].map(async (pending) => {
        const decisions = await Promise.all(pending);
        return decisions.find((d) => !d.allowed) ?? decisions.reduce((least, d) => (d.remaining < least.remaining ? d : least));
      }),
    );
  }

  /**
   * Gives back the point this request's last charge of `budget` took, when the field it paid for
   * was then refused by its resolver (input only the resolver can judge: a malformed cursor, a
   * page size out of range, an organization the viewer is not in): refused requests cost nothing.
   */
  async refundLastCharge(budget: Budget): Promise<void> {
    const last = this.charged.get(budget)?.at(-1);
    if (last) await this.giveBack(budget, { subject: this.subject(), decision: last });
  }

  private async giveBack(budget: Budget, taken: Reservation): Promise<void> {
    if (this.reservations.get(budget) === taken) this.reservations.delete(budget);
    const reserved = await taken.decision;
    // A refused charge took nothing (the budget was spent); one whose window has ended has
    // nothing left to give back (a refund would credit the next window).
    if (!reserved.allowed || reserved.resetsAt <= Date.now()) return;
    const refunded = this.store.refund(budget, taken.subject).catch(() => reserved);
    // The headers still tell the client where the budget stands, though this request paid nothing.
    this.charged.set(
      budget,
      (this.charged.get(budget) ?? []).map((decision) => (decision === taken.decision ? refunded : decision)),
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
