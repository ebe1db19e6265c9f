/**
 * The levels of an entity's assigned benchmark with its cumulative return over a range
 * (src/returns/benchmark-levels.ts; docs/returns-and-csv.md#reported-returns): the benchmark line
 * beside the cumulative linked return of the daily returns.
 */
import { builder } from './builder.ts';
import type { BenchmarkLevelPoint, BenchmarkLevelsTable } from '../src/returns/benchmark-levels.ts';
import { DIETZ_MAX_RANGE_DAYS } from '../src/returns/returns-service.ts';
import { CACHED_READ } from './cached-read.ts';

const BenchmarkLevelPointRef = builder.objectRef<BenchmarkLevelPoint>('BenchmarkLevelPoint').implement({
  description: 'The benchmark’s level at the close of a date and its return since the base level.',
  fields: (t) => ({
    date: t.expose('date', { type: 'Date' }),
    level: t.expose('level', { type: 'Decimal', description: 'The index level, as uploaded (file_type=benchmark).' }),
    cumulativeReturn: t.expose('cumulativeReturn', { type: 'Decimal', description: 'level / baseLevel - 1: 12 decimal places, half-even.' }),
  }),
});

const BenchmarkLevelsRef = builder.objectRef<BenchmarkLevelsTable>('BenchmarkLevels').implement({
  description: 'The assigned benchmark of one entity over a range: its levels and cumulative return, measured from the latest level on or before startDate.',
  fields: (t) => ({
    entityName: t.exposeString('entityName'),
    accountCode: t.exposeString('accountCode'),
    benchmark: t.exposeString('benchmark', { nullable: true, description: 'The assigned benchmark’s name; null when none is assigned.' }),
    nullReason: t.exposeString('nullReason', { nullable: true, description: 'Why there are no points: no benchmark is assigned.' }),
    startDate: t.expose('startDate', { type: 'Date' }),
    endDate: t.expose('endDate', { type: 'Date' }),
    baseDate: t.expose('baseDate', {
      type: 'Date',
      nullable: true,
      description: 'The date of the level the cumulative return is measured from: the latest on or before startDate.',
    }),
    baseLevel: t.expose('baseLevel', { type: 'Decimal', nullable: true }),
    points: t.field({
      type: [BenchmarkLevelPointRef],
      resolve: (table) => table.points,
      description: 'The base level first (cumulative return 0), then every level after it up to endDate, by date; empty when no benchmark is assigned.',
    }),
  }),
});

builder.queryFields((t) => ({
  benchmarkLevels: t.withAuth({ scope: 'read:returns' }).field({
    extensions: CACHED_READ,
    type: BenchmarkLevelsRef,
    description: `The levels of the benchmark assigned to one entity from the latest level on or before startDate up to endDate, each with its cumulative return since that level. The range may span at most ${DIETZ_MAX_RANGE_DAYS} days, as for dietzDailyReturns; a benchmark without a level on or before startDate is BAD_USER_INPUT.`,
    rateBudget: 'returns',
    args: {
      entityName: t.arg.string({ required: true }),
      startDate: t.arg({ type: 'Date', required: true }),
      endDate: t.arg({ type: 'Date', required: true }),
    },
    resolve: async (_parent, args, ctx) => ctx.services.benchmarkLevels.forEntity({ orgIds: await ctx.organizationIds(), ...args }),
  }),
}));
