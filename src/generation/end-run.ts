/**
 * How a generation run ends, whoever ends it: the run executor (completed, failed, cancelled
 * while running, interrupted by shutdown), the service's cancel of a queued run, and the worker's
 * sweep of a run whose worker died. One statement writes the final state and the final event
 * together (RunStore.append), then the event is published to the run's followers.
 *
 * Every final event's `data` starts with run_id, failed_agents and state and ends with
 * duration_ms (null when the run never started here); its status is `complete` for a completed
 * run and `failed` otherwise.
 */
import type { Logger } from '../log.ts';
import { snakeKeys } from '../util/snake-case.ts';
import { retryWhileUnavailable } from '../db/retry-unavailable.ts';
import type { ProgressHub } from './progress-hub.ts';
import { RUN_AGENT, type FinalRunState, type GenerationEventRecord, type RunStore, type RunUpdate } from './run-store.ts';

export interface RunEnding {
  state: FinalRunState;
  message: string;
  /** The event's data besides run_id, failed_agents, state and duration_ms (error, reason, summary...). */
  data?: Record<string, unknown>;
  /** Columns written with the final state (error, summary, references...). */
  update?: Omit<RunUpdate, 'state' | 'finishedAt' | 'failedAgents'>;
  failedAgents?: string[];
  durationMs?: number | null;
}

export interface EndRunDeps {
  store: RunStore;
  hub: ProgressHub;
  /** Where a failed publish is reported (followers still get the event from the log). */
  log?: Logger;
}

/**
 * Ends the run; null (nothing written) when it had already ended or does not exist. The write is
 * retried while the database is unavailable (a run whose connections dropped still ends).
 */
export async function endRun(deps: EndRunDeps, runId: string, ending: RunEnding): Promise<GenerationEventRecord | null> {
  const failedAgents = ending.failedAgents ?? [];
  const data = { run_id: runId, failed_agents: failedAgents, state: ending.state, ...ending.data, duration_ms: ending.durationMs ?? null };
  const event = await retryWhileUnavailable(() =>
    deps.store.append(
      runId,
      // `data` keys are snake_case on every front, whatever an agent wrote.
      {
        agent: RUN_AGENT,
        status: ending.state === 'completed' ? 'complete' : 'failed',
        progress: 100,
        message: ending.message,
        data: snakeKeys(data) as Record<string, unknown>,
      },
      { ...ending.update, ...(ending.failedAgents ? { failedAgents } : {}), state: ending.state, finishedAt: 'now' },
    ),
  );
  if (event) {
    await deps.hub.publish(event).catch((error: unknown) => deps.log?.warn({ err: error, runId }, 'could not publish a generation event'));
  }
  return event;
}
