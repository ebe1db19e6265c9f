/**
 * An entity's benchmark (src/returns/benchmark-service.ts; docs/returns-and-csv.md#benchmarks):
 * assigning one, the organizations' series, and the comparison on the period and calendar tables
 * of schema/returns-analytics.ts (fields added to its types here).
 */
import { builder } from './builder.ts';
import { CalendarReturn, CalendarReturns, StandardPeriodReturn, StandardPeriodReturns } from './returns-analytics.ts';
import { AppError } from '../src/errors.ts';
import type { BenchmarkSeries, CalendarBenchmarkComparison, EntityBenchmark, PeriodBenchmarkComparison } from '../src/returns/benchmark-service.ts';
import { CACHED_READ } from './cached-read.ts';

const BENCHMARK_NAME = { description: 'The name of the benchmark series (the `benchmark` column of its file_type=benchmark upload).' } as const;

const PeriodBenchmarkComparisonRef = builder.objectRef<PeriodBenchmarkComparison>('PeriodBenchmarkComparison').implement({
  description:
    'A standard period against the entity’s benchmark: the benchmark’s return between the levels on or before the period’s start and end valuation dates, the excess returns, and from a year on the tracking error (monthly differences, annualised by sqrt(12)) and information ratio. Figures are null with nullReason when the comparison cannot be made.',
  fields: (t) => ({
    name: t.exposeString('name', BENCHMARK_NAME),
    startLevelDate: t.expose('startLevelDate', {
      type: 'Date',
      nullable: true,
      description: 'The level used for the start: the latest on or before startValuationDate.',
    }),
    endLevelDate: t.expose('endLevelDate', {
      type: 'Date',
      nullable: true,
      description: 'The level used for the end: the latest on or before endValuationDate.',
    }),
    returnValue: t.expose('returnValue', { type: 'Decimal', nullable: true, description: 'The benchmark’s return: endLevel / startLevel - 1.' }),
    excessReturn: t.expose('excessReturn', { type: 'Decimal', nullable: true, description: 'Arithmetic: the period’s return - the benchmark’s.' }),
    geometricExcessReturn: t.expose('geometricExcessReturn', {
      type: 'Decimal',
      nullable: true,
      description: 'Geometric: (1 + the period’s return) / (1 + the benchmark’s) - 1.',
    }),
    annualizedExcessReturn: t.expose('annualizedExcessReturn', {
      type: 'Decimal',
      nullable: true,
      description: 'For a year or more: the difference of the two returns annualised over the period’s years (what the information ratio divides).',
    }),
    monthCount: t.exposeInt('monthCount', { nullable: true, description: 'The whole calendar months inside the period: the tracking error’s sample.' }),
    trackingError: t.expose('trackingError', {
      type: 'Decimal',
      nullable: true,
      description:
        'For a year or more: the sample standard deviation (n - 1) of the monthly return differences over the whole calendar months inside the period, x sqrt(12).',
    }),
    trackingErrorNullReason: t.exposeString('trackingErrorNullReason', { nullable: true }),
    informationRatio: t.expose('informationRatio', { type: 'Decimal', nullable: true, description: 'annualizedExcessReturn / trackingError.' }),
    informationRatioNullReason: t.exposeString('informationRatioNullReason', { nullable: true }),
    nullReason: t.exposeString('nullReason', {
      nullable: true,
      description: 'Why there is no comparison: the period has no return, or the benchmark has no level on or before a date it needs.',
    }),
  }),
});

const CalendarBenchmarkComparisonRef = builder.objectRef<CalendarBenchmarkComparison>('CalendarBenchmarkComparison').implement({
  description: 'A calendar month or year against the entity’s benchmark, between the levels on or before the row’s startDate and endDate.',
  fields: (t) => ({
    name: t.exposeString('name', BENCHMARK_NAME),
    startLevelDate: t.expose('startLevelDate', { type: 'Date', nullable: true }),
    endLevelDate: t.expose('endLevelDate', { type: 'Date', nullable: true }),
    returnValue: t.expose('returnValue', { type: 'Decimal', nullable: true, description: 'The benchmark’s return: endLevel / startLevel - 1.' }),
    excessReturn: t.expose('excessReturn', { type: 'Decimal', nullable: true, description: 'The row’s return - the benchmark’s.' }),
    geometricExcessReturn: t.expose('geometricExcessReturn', {
      type: 'Decimal',
      nullable: true,
      description: '(1 + the row’s return) / (1 + the benchmark’s) - 1.',
    }),
    nullReason: t.exposeString('nullReason', { nullable: true }),
  }),
});

const ASSIGNED = {
  nullable: true,
  description: 'The benchmark assigned to the entity (setEntityBenchmark); null: none, and every comparison is null.',
} as const;

builder.objectFields(StandardPeriodReturns, (t) => ({
  benchmark: t.string({ ...ASSIGNED, resolve: (table) => table.benchmark ?? null }),
}));

builder.objectFields(StandardPeriodReturn, (t) => ({
  benchmark: t.field({
    type: PeriodBenchmarkComparisonRef,
    nullable: true,
    description: 'The period against the entity’s benchmark; null when none is assigned.',
    resolve: (row) => row.benchmarkComparison ?? null,
  }),
}));

builder.objectFields(CalendarReturns, (t) => ({
  benchmark: t.string({ ...ASSIGNED, resolve: (table) => table.benchmark ?? null }),
}));

builder.objectFields(CalendarReturn, (t) => ({
  benchmark: t.field({
    type: CalendarBenchmarkComparisonRef,
    nullable: true,
    description: 'The month or year against the entity’s benchmark; null when none is assigned.',
    resolve: (row) => row.benchmarkComparison ?? null,
  }),
}));

const EntityBenchmarkRef = builder.objectRef<EntityBenchmark>('EntityBenchmark').implement({
  description: 'An entity and the benchmark its returns are compared with.',
  fields: (t) => ({
    id: t.expose('id', { type: 'UUID', description: 'The entity’s id.' }),
    organizationId: t.expose('organizationId', { type: 'UUID' }),
    entityName: t.exposeString('entityName'),
    accountCode: t.exposeString('accountCode'),
    benchmark: t.exposeString('benchmark', { nullable: true, description: 'The assigned benchmark’s name; null: none.' }),
  }),
});

const BenchmarkSeriesRef = builder.objectRef<BenchmarkSeries>('BenchmarkSeries').implement({
  description: 'A benchmark’s index levels uploaded to an organization (file_type=benchmark, columns date,benchmark,level).',
  fields: (t) => ({
    organizationId: t.expose('organizationId', { type: 'UUID' }),
    name: t.exposeString('name', BENCHMARK_NAME),
    firstDate: t.expose('firstDate', { type: 'Date', description: 'The date of its first level.' }),
    lastDate: t.expose('lastDate', { type: 'Date', description: 'The date of its last level.' }),
    levelCount: t.exposeInt('levelCount'),
  }),
});

builder.queryFields((t) => ({
  benchmarkSeries: t.withAuth({ scope: 'read:returns' }).field({
    extensions: CACHED_READ,
    type: [BenchmarkSeriesRef],
    description: 'The benchmark series uploaded to your organizations (or to one of them), by organization and name: what setEntityBenchmark accepts.',
    rateBudget: 'returns',
    args: { organizationId: t.arg({ type: 'UUID', required: false, description: 'Only this organization’s (one of yours).' }) },
    resolve: async (_parent, args, ctx) => ctx.services.entityBenchmarks.series({ orgIds: await ctx.organizationIds(), organizationId: args.organizationId }),
  }),
}));

builder.mutationFields((t) => ({
  setEntityBenchmark: t.withAuth({ scope: 'write:upload' }).field({
    type: EntityBenchmarkRef,
    description:
      'Give an entity a benchmark: the name of a series uploaded to its organization (file_type=benchmark; else BAD_USER_INPUT), or null to remove it. The period and calendar returns then carry the comparison. Scope write:upload: it changes how the organization’s returns are reported.',
    rateBudget: 'returns',
    args: {
      entityName: t.arg.string({ required: true }),
      benchmark: t.arg.string({ required: false, description: 'The series’ name; null removes the benchmark (it must be given either way).' }),
    },
    resolve: async (_parent, args, ctx) => {
      if (args.benchmark === undefined) throw AppError.badInput('benchmark', 'is required: the name of a benchmark series, or null to remove it');
      return ctx.services.entityBenchmarks.assign({ orgIds: await ctx.organizationIds(), entityName: args.entityName, benchmark: args.benchmark });
    },
  }),
}));
