/**
 * The policies every HTTP request passes before a route answers it, in order: response metrics,
 * the request's trace span, the request id and access log, the shutdown header, the client's turn
 * (client-queue.ts), and the deadline of a body sent without a credential. Express runs
 * them (http-app.ts) and so does the REST lane (rest-lane.ts): one list, attached once.
 */
import type { ServerResponse } from 'node:http';
import type { Services } from '../../src/services.ts';
import { requestTracing } from '../../src/tracing/index.ts';
import { httpMetrics } from './metrics.ts';
import { requestLogging } from './request-context.ts';
import { anonymousBodyDeadline } from './body-deadline.ts';
import { clientQueuePolicy } from './client-queue.ts';
import { beforeWriteHead, type RequestPolicy } from './policy.ts';

export type { PolicyRequest, RequestPolicy } from './policy.ts';

export interface Lifecycle {
  stopping: boolean;
}

/**
 * [count the response, trace, log, close when stopping, the client's turn, the anonymous body deadline]. Express mounts the probes and the
 * metrics page after the first (they are counted, not traced or logged).
 */
export function requestPolicies(services: Services, lifecycle: Lifecycle): [RequestPolicy, ...RequestPolicy[]] {
  return [
    httpMetrics(services.metrics),
    requestTracing(),
    requestLogging(services.log),
    closeWhenStopping(lifecycle),
    clientQueuePolicy(services.clientQueues),
    anonymousBodyDeadline(services),
  ];
}

/**
 * A response written while shutting down (even for a request that came in before) tells its
 * keep-alive client to reconnect elsewhere.
 */
function closeWhenStopping(lifecycle: Lifecycle): RequestPolicy {
  return (_req, res, next) => {
    beforeWriteHead(res, () => {
      if (lifecycle.stopping && !res.headersSent) res.setHeader('Connection', 'close');
    });
    next();
  };
}
