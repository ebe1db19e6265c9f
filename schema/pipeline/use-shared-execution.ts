/**
 * A subscription's events executed once per group of followers, not once per follower.
 *
 * Every follower still subscribes on its own, through the whole pipeline: its subscribe resolver
 * runs with its own context (authentication, scopes, ownership of the run, its stream slot), so
 * who may follow is decided per follower, as before. What is shared is the execution of each event
 * against the selection: followers whose source streams hand out the same event object (the
 * progress hub gives every follower of a run the same object) and who sent the same document,
 * operation name and variables, as the same user with the same scopes, get the
 * same ExecutionResult object: the selection runs once for the group, and the transports that
 * serialize a result once (src/util/shared-json.ts) write the same bytes to each of them.
 *
 * Why the viewer is in the key: a field below a subscription may depend on who asks (a scope
 * check, the user's organizations). Followers that differ in any of these never share.
 * Why the first follower's context is used for the group's execution: every member of the group
 * has the same user and scopes (and so the same organizations), and that is all a resolver below a subscription
 * may read from its context (its own request id and log are the first follower's: an error there
 * is masked again for each follower by the error-masking plugin, with the follower's own context).
 *
 * This plugin sets the engine's subscribe function, so it goes before every plugin that wraps the
 * subscribe function (tracing) and the REST stream's source-events switch (useSourceEvents, below:
 * the REST stream renders the source events itself) still replaces it. The pipeline's only module
 * that calls graphql-js's executors directly (test/schema/one-pipeline).
 */
import { createSourceEventStream, execute, print, type DocumentNode, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { isAsyncIterable, type Plugin, type SubscribeFunction } from '@envelop/core';
import type { RequestContext } from '../../src/context.ts';
import type { Metrics } from '../../src/metrics/metrics.ts';
import { mapAsyncIterator } from '../../src/util/async-iterator.ts';

type Execution = ExecutionResult | Promise<ExecutionResult>;

/** Per event object: the execution of each group that has seen it. Gone with the event. */
const executions = new WeakMap<object, Map<string, Execution>>();
/** A document's printed form, once per parsed document (yoga caches parsed documents by source). */
const printed = new WeakMap<DocumentNode, string>();

/** Counts results executed and shared (gateway_subscription_results_total). */
type SharedExecutionObserver = Pick<Metrics, 'subscriptionExecution'>;

export function useSharedExecution(): Plugin {
  return {
    onSubscribe({ args, setSubscribeFn }) {
      const observer = (args.contextValue as Partial<RequestContext> | undefined)?.services?.metrics;
      setSubscribeFn((subscribeArgs) => subscribeShared(subscribeArgs as ExecutionArgs, observer));
    },
  };
}

async function subscribeShared(args: ExecutionArgs, observer?: SharedExecutionObserver): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
  const source = await createSourceEventStream(args);
  if (!isAsyncIterable(source)) return source as ExecutionResult;
  const group = groupKey(args);
  return mapAsyncIterator(source as AsyncIterableIterator<unknown>, (payload) =>
    executeShared(args, group, payload, observer),
  ) as AsyncIterableIterator<ExecutionResult>;
}

function executeShared(args: ExecutionArgs, group: string, payload: unknown, observer?: SharedExecutionObserver): Execution {
  if (typeof payload !== 'object' || payload === null) {
    observer?.subscriptionExecution(false);
    return execute({ ...args, rootValue: payload });
  }
  let byGroup = executions.get(payload);
  if (!byGroup) {
    byGroup = new Map();
    executions.set(payload, byGroup);
  }
  let result = byGroup.get(group);
  if (result === undefined) {
    observer?.subscriptionExecution(false);
    const executed = execute({ ...args, rootValue: payload });
    result = executed instanceof Promise ? executed.then(serializedOnce) : serializedOnce(executed);
    byGroup.set(group, result);
  } else {
    observer?.subscriptionExecution(true);
  }
  return result;
}

/**
 * The group's result serializes once: yoga's SSE and multipart responses call a result's own
 * `stringify` when it has one (graphql-yoga's jsonStringifyResultWithoutInternals), so every
 * follower of the group on those transports is written the same JSON text. Not enumerable: no
 * transport ever sends it.
 */
function serializedOnce(result: ExecutionResult): ExecutionResult {
  let text: string | undefined;
  Object.defineProperty(result, 'stringify', {
    value: (value: unknown) => (value === result ? (text ??= JSON.stringify(result)) : JSON.stringify(value)),
    enumerable: false,
  });
  return result;
}

/** Followers with equal keys get the same result object for the same event. */
export function groupKey(args: Pick<ExecutionArgs, 'document' | 'operationName' | 'variableValues' | 'contextValue'>): string {
  let source = printed.get(args.document);
  if (source === undefined) {
    source = print(args.document);
    printed.set(args.document, source);
  }
  return JSON.stringify([source, args.operationName ?? null, args.variableValues ?? null, viewerKey(args.contextValue)]);
}

/** What a resolver below a subscription may depend on: the user (and so their organizations) and the credential's scopes. */
function viewerKey(context: unknown): unknown {
  const viewer = (context as Partial<RequestContext> | undefined)?.viewer;
  return viewer ? [viewer.user.id, [...viewer.scopes].sort()] : null;
}

/**
 * rootValue that asks the pipeline for a subscription's source events instead of executed results
 * (one per call): it keeps the source stream as the subscribe resolver returned it, so the front
 * can read its push side (src/util/async-iterator.ts) past the wrappers the pipeline's plugins add.
 */
export class SourceEventsRoot {
  source?: unknown;
}

/** Swaps the subscribe function for the source event stream when a front asks for it (see sourceEvents). */
export function useSourceEvents(): Plugin {
  return {
    onSubscribe({ args, setSubscribeFn }) {
      const root = args.rootValue;
      if (!(root instanceof SourceEventsRoot)) return;
      setSubscribeFn(async (subscribeArgs) => {
        const source = await createSourceEventStream(subscribeArgs as ExecutionArgs);
        root.source = source;
        return source as Awaited<ReturnType<SubscribeFunction>>;
      });
    },
  };
}
