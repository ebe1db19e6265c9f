/**
 * Runs one agent of a run: reports `started`, lets the agent report `active` progress (rising,
 * 1..99, clamped here so an agent cannot make it go backwards), then `complete` (100) or
 * `failed` with a readable message. Every agent is bounded by a timeout and stops when the run
 * is cancelled or the service shuts down.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { AppError } from '../errors.ts';
import type { AgentStatus } from './run-store.ts';

export type Emit = (agent: string, status: AgentStatus, progress: number, message: string, data?: Record<string, unknown>) => Promise<void>;

export interface AgentOutcome<T> {
  value: T;
  message: string;
  data?: Record<string, unknown>;
}

export type AgentResult<T> = { ok: true; value: T } | { ok: false; error: string };

export type AgentWork<T> = (
  report: (progress: number, message: string, data?: Record<string, unknown>) => Promise<void>,
  signal: AbortSignal,
) => Promise<AgentOutcome<T>>;

/** Thrown when the run itself stops (cancel, shutdown): not the agent's failure. */
export class RunStopped extends Error {
  constructor(readonly reason: 'cancelled' | 'shutdown') {
    super(reason === 'cancelled' ? 'Cancelled by its owner' : 'The service shut down while the run was in progress');
  }
}

export interface AgentRunnerOptions {
  emit: Emit;
  /** Aborted with a RunStopped reason when the run is cancelled or the worker stops. */
  runSignal: AbortSignal;
  timeoutMs: number;
  /** Pause before each progress report (GENERATION_STEP_DELAY; 0 in production). */
  stepDelayMs: number;
  /** Logs an unexpected error and returns the message to show instead of its internals. */
  describeUnexpected: (agent: string, error: unknown) => string;
}

export async function runAgent<T>(agent: string, startMessage: string, work: AgentWork<T>, options: AgentRunnerOptions): Promise<AgentResult<T>> {
  const { emit, runSignal, timeoutMs, stepDelayMs } = options;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = AbortSignal.any([runSignal, timeout]);
  let progress = 0;
  const report = async (value: number, message: string, data: Record<string, unknown> = {}) => {
    if (stepDelayMs > 0) await delay(stepDelayMs, undefined, { signal });
    signal.throwIfAborted();
    progress = Math.min(99, Math.max(progress, Math.round(value), 1));
    await emit(agent, 'active', progress, message, data);
  };
  await emit(agent, 'started', 0, startMessage);
  try {
    if (stepDelayMs > 0) await delay(stepDelayMs, undefined, { signal });
    const outcome = await untilAborted(work(report, signal), signal);
    await emit(agent, 'complete', 100, outcome.message, outcome.data ?? {});
    return { ok: true, value: outcome.value };
  } catch (error) {
    if (runSignal.aborted) {
      const stopped = runSignal.reason instanceof RunStopped ? runSignal.reason : new RunStopped('shutdown');
      await emit(agent, 'failed', progress, stopped.reason === 'cancelled' ? 'Cancelled' : 'Interrupted by a service shutdown', { reason: stopped.reason });
      throw stopped;
    }
    const message = timeout.aborted ? `Timed out after ${formatSeconds(timeoutMs)}` : errorMessage(agent, error, options);
    await emit(agent, 'failed', progress, message, { reason: timeout.aborted ? 'timeout' : 'error' });
    return { ok: false, error: message };
  }
}

/** The work's result, or a rejection as soon as the signal aborts (work that ignores the signal is left behind). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function errorMessage(agent: string, error: unknown, options: AgentRunnerOptions): string {
  // Our own errors (provider failures, validation) are written for users; anything else may carry internals.
  if (error instanceof AppError) return error.message;
  return options.describeUnexpected(agent, error);
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
