import { builder } from './builder.ts';
import { AppError } from '../src/errors.ts';
import type { RunSummary } from '../src/scheduler/self-test-scheduler.ts';

const SelfTestCheckResult = builder.simpleObject('SelfTestCheckResult', {
  fields: (t) => ({
    name: t.string(),
    passed: t.boolean(),
    durationMs: t.int(),
    detail: t.string({ nullable: true }),
  }),
});

const SelfTestRun = builder.objectRef<RunSummary>('SelfTestRun').implement({
  description: 'One run of the built-in self-test suite.',
  fields: (t) => ({
    id: t.expose('id', { type: 'UUID' }),
    trigger: t.exposeString('trigger', { description: '`schedule` or `manual`.' }),
    status: t.exposeString('status', { description: '`running`, `passed` or `failed`.' }),
    startedAt: t.expose('startedAt', { type: 'DateTime' }),
    finishedAt: t.expose('finishedAt', { type: 'DateTime', nullable: true }),
    durationMs: t.exposeInt('durationMs', { nullable: true }),
    checks: t.field({ type: [SelfTestCheckResult], resolve: (run) => run.checks }),
  }),
});

export const SchedulerStatus = builder.simpleObject('SchedulerStatus', {
  fields: (t) => ({
    state: t.string({ description: '`idle`, `running`, `disabled` or `stopped`.' }),
    enabled: t.boolean(),
    cron: t.string(),
    nextRunAt: t.field({ type: 'DateTime', nullable: true }),
    secondsUntilNextRun: t.int({ nullable: true }),
    lastRun: t.field({ type: SelfTestRun, nullable: true }),
  }),
});

builder.queryFields((t) => ({
  selfTestScheduler: t.withAuth({ authenticated: true }).field({
    type: SchedulerStatus,
    resolve: (_parent, _args, ctx) => ctx.services.scheduler.status(),
  }),
  selfTestHistory: t.withAuth({ authenticated: true }).field({
    type: [SelfTestRun],
    description: 'Recent runs, newest first.',
    args: { limit: t.arg.int({ defaultValue: 20 }) },
    resolve: (_parent, args, ctx) => {
      const limit = args.limit ?? 20;
      if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw badLimit();
      return ctx.services.scheduler.history(limit);
    },
  }),
}));

builder.mutationField('triggerSelfTest', (t) =>
  t.withAuth({ scope: 'admin' }).field({
    type: SelfTestRun,
    description: 'Start the self-test suite now. CONFLICT while a run is in progress.',
    resolve: (_parent, _args, ctx) => ctx.services.scheduler.trigger('manual'),
  }),
);

const BenchmarkThresholds = builder.simpleObject('BenchmarkThresholds', {
  fields: (t) => ({ fastMs: t.float(), goodMs: t.float(), slowMs: t.float() }),
});

builder.queryField('benchmark', (t) =>
  t.withAuth({ scope: 'read:returns' }).field({
    type: builder.simpleObject('BenchmarkResult', {
      description: 'Execution time of a representative returns query and its rating.',
      fields: (f) => ({
        query: f.string(),
        description: f.string(),
        executionTimeMs: f.float(),
        rating: f.string({ description: '`fast`, `good`, `slow` or `critical`.' }),
        rowCount: f.int(),
        thresholds: f.field({ type: BenchmarkThresholds }),
        measuredAt: f.field({ type: 'DateTime' }),
      }),
    }),
    rateBudget: 'returns',
    description: 'Runs the comparison query once for timing. It costs what a comparison costs.',
    resolve: async (_parent, _args, ctx) => {
      return ctx.services.benchmark.run(await ctx.organizationIds());
    },
  }),
);

function badLimit() {
  return AppError.badInput('limit', 'must be an integer between 1 and 100');
}
