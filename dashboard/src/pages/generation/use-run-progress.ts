/**
 * Follows one run live: its log so far (kept in sessionStorage, so a reload picks up where it
 * was), then the generationProgress subscription from the last sequence seen. Events are merged
 * by sequence, so an event delivered twice never shows twice. When the feed errors, closes before
 * the final event or goes quiet, the view says so and subscribes again after the last event it has.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useSubscription, type CombinedError } from 'urql';
import { ProgressSubscription, type Heartbeat, type ProgressEvent, type ProgressItem } from './api.ts';
import { contiguousEnd, finalEvent, forgetStoredEvents, loadStoredEvents, mergeEvents, storeEvents } from './progress.ts';

/** What this subscription has delivered (urql keeps it across resubscriptions, until an error). */
interface Received {
  events: ProgressEvent[];
  heartbeat: Heartbeat | null;
}

const NOTHING: ProgressEvent[] = [];

/** Pure, as urql calls it inside a state update: appends each payload. */
function accumulate(previous: Received | undefined, data: { generationProgress: ProgressItem }): Received {
  const base = previous ?? { events: NOTHING, heartbeat: null };
  const item = data.generationProgress;
  if (item.__typename === 'GenerationHeartbeat') return { ...base, heartbeat: { at: item.at, lastSequence: item.lastSequence } };
  const { __typename: _typename, ...event } = item;
  return { ...base, events: [...base.events, event] };
}

/** Errors that another try will not fix. */
const PERMANENT = new Set(['NOT_FOUND', 'FORBIDDEN', 'UNAUTHENTICATED']);
/** Waits before resubscribing after the 1st, 2nd... consecutive failure. */
const RETRY_DELAYS_MS = [1000, 2000, 5000, 10_000, 20_000, 30_000];
/** Heartbeats come every GENERATION_HEARTBEAT (15 s by default): this much silence means the feed is gone. */
export const QUIET_LIMIT_MS = 45_000;

export interface FeedProblem {
  /** The API's error, or null when the feed just closed or went quiet. */
  error: CombinedError | null;
  message: string;
  permanent: boolean;
  /** When the next try starts (ms since epoch); null while it is under way or when permanent. */
  retryAt: number | null;
}

export type Connection = 'connecting' | 'live' | 'reconnecting' | 'stopped' | 'ended';

export interface RunProgress {
  events: ProgressEvent[];
  final: ProgressEvent | undefined;
  connection: Connection;
  problem: FeedProblem | null;
  /** When this page last heard from the server (an event or a heartbeat), ms since epoch. */
  lastHeardAt: number | null;
  reconnect(): void;
}

export function useRunProgress(runId: string, enabled: boolean): RunProgress {
  const [initial] = useState(() => loadStoredEvents(runId));
  const [committed, setCommitted] = useState(initial);
  const committedRef = useRef(committed);
  const [attempt, setAttempt] = useState(() => ({ n: 0, after: contiguousEnd(initial), startedAt: Date.now() }));
  const [restarting, setRestarting] = useState(false);
  const [problem, setProblem] = useState<FeedProblem | null>(null);
  const [failures, setFailures] = useState(0);
  const [lastHeardAt, setLastHeardAt] = useState<number | null>(null);

  const finished = !!finalEvent(committed);
  const context = useMemo(() => ({ attempt: attempt.n }), [attempt.n]);
  const [result] = useSubscription(
    {
      query: ProgressSubscription,
      variables: { runId, after: attempt.after },
      context,
      pause: !enabled || finished || restarting || !!problem?.permanent,
    },
    accumulate,
  );
  // urql keeps the last result (and error) while the next subscription starts: only this attempt's count.
  const current = result.operation?.context.attempt === attempt.n;
  const received = result.data?.events ?? NOTHING;
  const events = useMemo(() => mergeEvents(committed, received), [committed, received]);
  const final = finalEvent(events);

  // What arrived becomes part of the log, which is stored for a reload.
  useEffect(() => {
    if (received.length === 0) return;
    setCommitted((log) => mergeEvents(log, received));
    // Progress resets the back-off; a heartbeat alone does not (a feed that keeps closing waits longer each time).
    setFailures(0);
  }, [received]);
  useEffect(() => {
    committedRef.current = committed;
    if (committed.length > 0) storeEvents(runId, committed);
  }, [runId, committed]);
  useEffect(() => {
    if (!result.data) return;
    setLastHeardAt(Date.now());
    setProblem(null);
  }, [result.data]);

  // A new try: pausing first tears the old subscription down, so the new one starts afresh after the last event kept.
  const reconnect = useCallback(() => {
    setProblem((p) => (p ? { ...p, retryAt: null } : p));
    setRestarting(true);
  }, []);
  useEffect(() => {
    if (!restarting) return;
    setAttempt((a) => ({ n: a.n + 1, after: contiguousEnd(committedRef.current), startedAt: Date.now() }));
    setRestarting(false);
  }, [restarting]);

  const retryLater = useCallback(
    (error: CombinedError | null, message: string) => {
      setProblem({ error, message, permanent: false, retryAt: Date.now() + RETRY_DELAYS_MS[Math.min(failures, RETRY_DELAYS_MS.length - 1)] });
      setFailures((f) => f + 1);
    },
    [failures],
  );

  const error = current ? result.error : undefined;
  // urql rebuilds the error when the failed subscription then completes: one failure per attempt.
  const failedAttempt = useRef(-1);
  useEffect(() => {
    if (!error || finished || failedAttempt.current === attempt.n) return;
    failedAttempt.current = attempt.n;
    const code = error.graphQLErrors[0]?.extensions?.code;
    if (code === 'BAD_USER_INPUT' && attempt.after > 0) {
      // The kept log does not match the server's (`after` beyond its last event): read it all again.
      forgetStoredEvents(runId);
      committedRef.current = [];
      setCommitted([]);
      retryLater(error, 'The events kept in this tab did not match the run; reading them again.');
    } else if (typeof code === 'string' && PERMANENT.has(code)) {
      setProblem({ error, message: '', permanent: true, retryAt: null });
    } else {
      retryLater(error, '');
    }
    // Only a new error starts this (retryLater changes with the failure count it raises).
  }, [error]);

  // The feed completed without the final event (e.g. the server shut down): follow again.
  // urql's state carries the last result's `hasNext` (untyped on the hook): false once a subscription has completed.
  const completed = (result as { hasNext?: boolean }).hasNext === false;
  const closedEarly = current && completed && !result.error && !!result.data && !final;
  useEffect(() => {
    if (closedEarly) retryLater(null, 'The server closed the live feed before the run ended.');
  }, [closedEarly]);

  // Silence longer than a few heartbeats: the connection is gone even if the browser has not noticed.
  const watching = enabled && !final && !problem;
  useEffect(() => {
    if (!watching) return;
    const timer = window.setInterval(() => {
      const since = Math.max(lastHeardAt ?? 0, attempt.startedAt);
      if (Date.now() - since > QUIET_LIMIT_MS) retryLater(null, `No word from the server for ${Math.round((Date.now() - since) / 1000)} s.`);
    }, 5000);
    return () => window.clearInterval(timer);
  }, [watching, lastHeardAt, attempt.startedAt, retryLater]);

  // The scheduled try.
  const retryAt = problem?.retryAt ?? null;
  useEffect(() => {
    if (retryAt === null || final) return;
    const timer = window.setTimeout(reconnect, Math.max(0, retryAt - Date.now()));
    return () => window.clearTimeout(timer);
  }, [retryAt, final, reconnect]);

  let connection: Connection;
  if (final) connection = 'ended';
  else if (problem?.permanent) connection = 'stopped';
  else if (problem) connection = 'reconnecting';
  else if (lastHeardAt === null) connection = 'connecting';
  else connection = 'live';

  return { events, final, connection, problem: final ? null : problem, lastHeardAt, reconnect };
}
