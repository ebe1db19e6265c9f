import { graphql, type ResultOf } from '../../api/graphql.ts';

/**
 * The reported returns of one entity (docs/returns-and-csv.md#reported-returns): fractions in decimal
 * strings, null with a reason. `currency` null: the entity's own; another is converted at the
 * uploaded rates, each row with its local return and the currency effect. Net of fees, the gross
 * beside.
 */
export const ReturnPeriodsQuery = graphql(`
  query ReturnPeriods($entityName: String!, $currency: String) {
    returnPeriods(entityName: $entityName, currency: $currency) {
      entityName accountCode currency localCurrency asOf inceptionDate benchmark
      periods {
        period boundaryDate startValuationDate endValuationDate days years extraDays complete returnValue nullReason annualizedReturn annualizedNullReason
        localReturnValue currencyEffect grossReturnValue grossAnnualizedReturn
        benchmark { name returnValue excessReturn geometricExcessReturn nullReason }
      }
    }
  }
`);

export type PeriodTableData = ResultOf<typeof ReturnPeriodsQuery>['returnPeriods'];
export type StandardPeriod = PeriodTableData['periods'][number];

const CalendarFields = graphql(`fragment CalendarReturnFields on CalendarReturn { period startDate endDate returnValue nullReason partial partialReason }`);

export const CalendarReturnsQuery = graphql(
  `
  query CalendarReturns($entityName: String!, $currency: String) {
    calendarReturns(entityName: $entityName, currency: $currency) {
      entityName accountCode currency localCurrency inceptionDate asOf
      months { ...CalendarReturnFields }
      years { ...CalendarReturnFields }
    }
  }
`,
  [CalendarFields],
);

export type CalendarTable = ResultOf<typeof CalendarReturnsQuery>['calendarReturns'];
export type CalendarRow = CalendarTable['months'][number];

/** The currencies the entity's returns can be reported in: its own, and those one uploaded pair away. */
export const ReturnCurrenciesQuery = graphql(`
  query ReturnCurrencies($entityName: String!) {
    exchangeRateCurrencies(entityName: $entityName) { entityName localCurrency currencies }
  }
`);

/** The assigned benchmark's cumulative return over the chart's dates (from its level on or before startDate). */
export const BenchmarkLevelsQuery = graphql(`
  query BenchmarkLevels($entityName: String!, $startDate: Date!, $endDate: Date!) {
    benchmarkLevels(entityName: $entityName, startDate: $startDate, endDate: $endDate) {
      benchmark nullReason baseDate points { date cumulativeReturn }
    }
  }
`);

/** The benchmark series of the viewer's organizations: the choices of an entity's benchmark. */
export const BenchmarkSeriesQuery = graphql(`
  query BenchmarkSeriesChoices {
    benchmarkSeries { organizationId name firstDate lastDate }
  }
`);

export const SetEntityBenchmarkMutation = graphql(`
  mutation AssignEntityBenchmark($entityName: String!, $benchmark: String) {
    setEntityBenchmark(entityName: $entityName, benchmark: $benchmark) { id entityName benchmark }
  }
`);

/**
 * The reads that show an entity's benchmark, refetched when an assignment (an EntityBenchmark)
 * comes back: urql's document cache knows them by these types.
 */
export const BENCHMARK_READS = { additionalTypenames: ['EntityBenchmark'] };

export type BenchmarkLevelsData = ResultOf<typeof BenchmarkLevelsQuery>['benchmarkLevels'];
