import type { Request, Response } from 'express';
import type { Plugin } from 'graphql-yoga';
import type { Services } from '../../../src/services.ts';
import { rateLimitHeaders } from '../../../src/ratelimit/rate-limiter.ts';
import { contextFor } from '../request-context.ts';

/** The RateLimit headers of the budgets the request charged, as the REST routes send them. */
export function useRateLimitHeaders(services: Services): Plugin<Record<string, unknown>, { req: Request; res: Response }> {
  return {
    async onResponse({ response, serverContext }) {
      if (!serverContext?.req) return;
      const ctx = await contextFor(services, serverContext.req).catch(() => undefined);
      const decisions = ctx ? await ctx.budgets.settled().catch(() => []) : [];
      for (const [name, value] of Object.entries(rateLimitHeaders(decisions))) response.headers.set(name, value);
    },
  };
}
