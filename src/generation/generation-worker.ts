/**
 * Wiring of summary generation: the run store, the progress hub, the executor with its
 * collector and writer model, the service, and the worker that runs `generation` jobs.
 */
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { Logger } from '../log.ts';
import type { JobQueue } from '../jobs/job-queue.ts';
import { JobWorker } from '../jobs/job-worker.ts';
import { workerOptionsFor } from '../jobs/worker-options.ts';
import type { PubSub } from '../pubsub/pubsub.ts';
import type { DatabaseOutageLog } from '../db/outage-log.ts';
import { OpenAiChatProvider } from '../workspace/chat/openai-provider.ts';
import { ServiceCollector, type WorkspaceServices } from './collector.ts';
import { GENERATION_QUEUE, GenerationService } from './generation-service.ts';
import { CredentialWatch } from '../auth/credential-watch.ts';
import { ProgressHub, type ProgressObserver } from './progress-hub.ts';
import { RunExecutor } from './run-executor.ts';
import { endRun } from './end-run.ts';
import { RunStore } from './run-store.ts';
import { StreamSlots } from '../ratelimit/stream-slots.ts';

export interface GenerationJobPayload {
  runId: string;
}

export interface GenerationWiring {
  config: Config;
  db: Database;
  jobs: JobQueue;
  pubsub: PubSub;
  workspace: WorkspaceServices;
  log: Logger;
  /** Told of every published event and live delivery (the metrics). */
  progressObserver?: ProgressObserver;
  /** Polls that meet an unavailable database are logged once per outage. */
  databaseOutage?: DatabaseOutageLog;
}

export function createGeneration(wiring: GenerationWiring) {
  const { config, db, jobs, pubsub, log } = wiring;
  const store = new RunStore(db.pool);
  const hub = new ProgressHub({ store, pubsub, heartbeatMs: config.generation.heartbeatMs, log, observer: wiring.progressObserver });
  const model = config.chat.apiUrl
    ? new OpenAiChatProvider({ apiUrl: config.chat.apiUrl, apiKey: config.chat.apiKey, model: config.chat.model, timeoutMs: config.chat.timeoutMs, log })
    : null;
  const executor = new RunExecutor({
    store,
    hub,
    pubsub,
    collector: new ServiceCollector(wiring.workspace),
    model,
    agentTimeoutMs: config.generation.agentTimeoutMs,
    stepDelayMs: config.generation.stepDelayMs,
    log,
  });
  const worker = new JobWorker<GenerationJobPayload>({
    queue: GENERATION_QUEUE,
    jobs,
    log,
    ...workerOptionsFor(config, db, wiring.databaseOutage),
    concurrency: config.generation.concurrency,
    handle: (job, signal) => executor.execute(job.payload.runId, signal),
    // A handler that failed without ending its run (its final write failed for good, or it threw
    // before the executor could): the run still ends, failed, so its followers are not left waiting.
    onFailure: async ({ payload }) => {
      await endRun({ store, hub, log }, payload.runId, {
        state: 'failed',
        message: 'Generation failed: the run could not continue; start a new run',
        update: { error: 'The run could not continue' },
        data: { error: 'The run could not continue', reason: 'failed' },
      });
    },
    // Runs are not retried (agents would report from the start again): an abandoned run fails.
    onAbandoned: async ({ payload }) => {
      await endRun({ store, hub, log }, payload.runId, {
        state: 'failed',
        message: 'Generation interrupted: its worker stopped; start a new run',
        update: { error: 'Its worker stopped before the run finished' },
        data: { error: 'Its worker stopped', reason: 'abandoned' },
      });
    },
  });
  const streams = new StreamSlots(config.limits.streamsPerUser);
  const credentials = new CredentialWatch(db.pool, config.generation.heartbeatMs, log);
  const service = new GenerationService({ pool: db.pool, prisma: db.prisma, store, hub, pubsub, wakeWorker: () => worker.wake(), streams, credentials });
  return { store, hub, service, worker, streams };
}
