/**
 * Each client's share of the service's attention (docs/limits.md, Fair share): a client has at
 * most REQUESTS_IN_FLIGHT_PER_CLIENT requests being served at once; its further requests wait in
 * its own queue (first come, first served) until one of its own ends, and past
 * REQUESTS_QUEUED_PER_CLIENT waiting ones it is refused at once (429). So a client that opens a
 * hundred connections gets its requests served a few at a time, and another organization's
 * request never waits behind them: it is served as soon as it arrives.
 *
 * The client is the credential as presented (its hash: x-api-key, Authorization or the session
 * cookie), or, without one, the client address. No database is asked: a client is told apart
 * before anything is spent on it, and a forged credential only queues behind itself.
 *
 * A request's place is given back when its response starts (its headers are written: a JSON
 * answer is then complete, an event stream or a multipart subscription has begun and lives on
 * without holding one) or when its connection closes.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError } from '../../src/errors.ts';
import { QUEUE_RETRY_AFTER_SECONDS, type ClientQueues } from '../../src/ratelimit/client-queues.ts';
import { presentedCredential } from '../../src/auth/known-credentials.ts';
import { sendError } from '../../rest-compat/errors.ts';
import { beforeWriteHead, type RequestPolicy } from './policy.ts';
import { requestLog } from './request-context.ts';

/** The request policy: each request waits for its client's turn (server/http/request-policies.ts). */
export function clientQueuePolicy(queues: ClientQueues): RequestPolicy {
  const { limits } = queues;
  return (req, res, next) => {
    const admitted = queues.admit(clientOf(req), (done) => {
      givenBackWhenAnswered(res, done);
      if (res.destroyed) return done(); // the client left while it waited
      next();
    });
    if (admitted) return;
    requestLog(req).info({ queued: limits.queuedPerClient }, 'client queue full: 429');
    res.setHeader('Retry-After', String(QUEUE_RETRY_AFTER_SECONDS));
    sendError(
      res,
      new AppError(
        'RATE_LIMITED',
        `Too many requests at once from this client: ${limits.inFlightPerClient} are served at a time and ${limits.queuedPerClient} may wait (REQUESTS_QUEUED_PER_CLIENT); wait for answers before sending more`,
      ),
    );
  };
}

/** The client a request counts for: its presented credential (hashed), else its address. */
export function clientOf(req: IncomingMessage): string {
  const credential = presentedCredential(req.headers);
  return credential === undefined ? `address:${req.socket.remoteAddress ?? 'unknown'}` : `credential:${credential}`;
}

function givenBackWhenAnswered(res: ServerResponse, done: () => void): void {
  beforeWriteHead(res, done);
  // `done` gives the place back once; 'close' comes once per response (`on`: no once-wrapper held by a long stream).
  res.on('close', done);
}
