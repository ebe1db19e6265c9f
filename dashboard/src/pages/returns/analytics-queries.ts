import { graphql, type ResultOf } from '../../api/graphql.ts';

/** The reported returns of one entity (docs/returns-and-csv.md#reported-returns): fractions in decimal strings, null with a reason. */
export const ReturnPeriodsQuery = graphql(`
  query ReturnPeriods($entityName: String!) {
    returnPeriods(entityName: $entityName) {
      entityName accountCode currency asOf inceptionDate
      periods { period boundaryDate startValuationDate endValuationDate days years extraDays complete returnValue nullReason annualizedReturn annualizedNullReason }
    }
  }
`);

export type StandardPeriod = ResultOf<typeof ReturnPeriodsQuery>['returnPeriods']['periods'][number];

const CalendarFields = graphql(`fragment CalendarReturnFields on CalendarReturn { period startDate endDate returnValue nullReason partial partialReason }`);

export const CalendarReturnsQuery = graphql(
  `
  query CalendarReturns($entityName: String!) {
    calendarReturns(entityName: $entityName) {
      entityName accountCode currency inceptionDate asOf
      months { ...CalendarReturnFields }
      years { ...CalendarReturnFields }
    }
  }
`,
  [CalendarFields],
);

export type CalendarTable = ResultOf<typeof CalendarReturnsQuery>['calendarReturns'];
export type CalendarRow = CalendarTable['months'][number];
