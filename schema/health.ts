import { builder } from './builder.ts';
import { SchedulerStatus } from './scheduler.ts';

const HealthCheck = builder.simpleObject('HealthCheck', {
  description: 'One dependency in a detailed health report.',
  fields: (t) => ({
    status: t.string({ description: '`up` or `down`.' }),
    latencyMs: t.float({ nullable: true }),
    kind: t.string({ nullable: true }),
    path: t.string({ nullable: true }),
    freeBytes: t.field({ type: 'SafeInt', nullable: true }),
    error: t.string({ nullable: true }),
  }),
});

const JobQueueHealth = builder.simpleObject('JobQueueHealth', {
  fields: (t) => ({
    status: t.string(),
    queued: t.int({ nullable: true }),
    running: t.int({ nullable: true }),
    completed: t.int({ nullable: true }),
    failed: t.int({ nullable: true }),
  }),
});

const HealthChecks = builder.simpleObject('HealthChecks', {
  fields: (t) => ({
    database: t.field({ type: HealthCheck }),
    storage: t.field({ type: HealthCheck }),
    jobQueue: t.field({ type: JobQueueHealth }),
  }),
});

const Health = builder.simpleObject('Health', {
  description: 'Liveness; with `detailed`, the state of every dependency.',
  fields: (t) => ({
    status: t.string({ description: '`healthy`, or `unhealthy` when a dependency is down.' }),
    version: t.string({ nullable: true }),
    uptimeSeconds: t.float({ nullable: true }),
    checkedAt: t.field({ type: 'DateTime', nullable: true }),
    checks: t.field({ type: HealthChecks, nullable: true }),
  }),
});

builder.queryField('health', (t) =>
  t
    .withAuth((_parent, args) => (args.detailed ? { authenticated: true } : true))
    .field({
      type: Health,
      description: 'Public liveness. `detailed: true` needs any valid credential and reports database, storage and job queue.',
      args: { detailed: t.arg.boolean({ defaultValue: false }) },
      resolve: async (_parent, args, ctx) => (args.detailed ? ctx.services.health.detailed() : ctx.services.health.basic()),
    }),
);

const WorkerStatus = builder.simpleObject('WorkerStatus', {
  fields: (t) => ({
    state: t.string({ description: '`running` (idle or busy) or `stopped`.' }),
    currentJobId: t.string({ nullable: true }),
    processed: t.int(),
    failed: t.int(),
    lastPollAt: t.field({ type: 'DateTime', nullable: true }),
  }),
});

builder.queryField('serviceStatus', (t) =>
  t.withAuth({ authenticated: true }).field({
    type: builder.simpleObject('ServiceStatus', {
      description: 'Worker and scheduler state (`GET /status`).',
      fields: (f) => ({
        worker: f.field({ type: WorkerStatus }),
        scheduler: f.field({ type: SchedulerStatus }),
        queue: f.field({ type: JobQueueHealth }),
      }),
    }),
    resolve: async (_parent, _args, ctx) => {
      const [scheduler, depths] = await Promise.all([ctx.services.scheduler.status(), ctx.services.jobs.depths()]);
      return { worker: ctx.services.ingestWorker.status(), scheduler, queue: { status: 'up', ...depths } };
    },
  }),
);
