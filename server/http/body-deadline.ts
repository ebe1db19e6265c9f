/**
 * A request without a valid credential must send its whole body within ANONYMOUS_BODY_TIMEOUT
 * (default 10 s): anyone can open connections, and one that trickles a body byte by byte would
 * otherwise hold a socket and a parser for REQUEST_TIMEOUT (5 minutes) per connection. When the
 * deadline passes with the body still arriving, the request's credential is checked (only then,
 * so a prompt request costs nothing): a valid one keeps REQUEST_TIMEOUT, the time a large upload
 * on a slow link may need; otherwise the answer is 408 with the REST error body and the
 * connection closes. Headers have HEADERS_TIMEOUT for everyone (Node's headersTimeout, set on the
 * server in server/app.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Services } from '../../src/services.ts';
import { AppError } from '../../src/errors.ts';
import { sendError } from '../../rest-compat/errors.ts';
import type { RequestPolicy } from './policy.ts';
import { contextFor, requestLog } from './request-context.ts';

export function anonymousBodyDeadline(services: Services): RequestPolicy {
  const deadlineMs = services.config.limits.anonymousBodyTimeoutMs;
  return (req, res, next) => {
    if (hasBody(req) && !req.complete) {
      const timer = setTimeout(() => void expire(services, req, res, deadlineMs), deadlineMs);
      timer.unref();
      res.once('close', () => clearTimeout(timer));
      req.once('end', () => clearTimeout(timer));
    }
    next();
  };
}

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

async function expire(services: Services, req: IncomingMessage, res: ServerResponse, deadlineMs: number): Promise<void> {
  if (req.complete || res.writableEnded) return;
  const viewer = await contextFor(services, req).then(
    (ctx) => ctx.viewer,
    () => null,
  );
  if (viewer || req.complete || res.writableEnded) return;
  requestLog(req).info({ deadlineMs, received: req.socket.bytesRead }, 'request body too slow without a credential: 408');
  if (!res.headersSent) {
    res.setHeader('Connection', 'close');
    sendError(
      res,
      new AppError(
        'REQUEST_TIMEOUT',
        `The request body did not arrive within ${deadlineMs / 1000} s; send it at once, or authenticate for longer (ANONYMOUS_BODY_TIMEOUT)`,
      ),
    );
  }
  // Whatever the handler was reading is cut: the rest of the body is not waited for.
  res.once('finish', () => req.socket.destroySoon());
  if (res.headersSent && !res.writableEnded) req.socket.destroy();
}
