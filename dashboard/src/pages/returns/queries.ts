import { graphql, type ResultOf, type VariablesOf } from '../../api/graphql.ts';

export type Comparison = ResultOf<typeof ComparisonQuery>['returnComparison']['edges'][number]['node'];
export type ComparisonStatus = Comparison['status'];
export const COMPARISON_STATUSES: ComparisonStatus[] = ['match', 'review', 'investigate'];

export const ComparisonQuery = graphql(`
  query ReturnComparison($accountCode: String, $status: ComparisonStatus, $first: Int, $after: String) {
    returnComparison(accountCode: $accountCode, status: $status, first: $first, after: $after) {
      edges { node { accountCode entityName date custodianReturn computedReturn differenceBps status reason matchThresholdBps reviewThresholdBps } }
      pageInfo { hasNextPage endCursor }
    }
  }
`);

/** The entities (and their dates) the comparisons name: the chart's entity choices and default range. */
export const ENTITY_SCAN = 500;
export const EntityScanQuery = graphql(`
  query ReturnEntities($first: Int) {
    returnComparison(first: $first) { edges { node { accountCode entityName date } } pageInfo { hasNextPage endCursor } }
  }
`);

export type DietzDailyReturns = ResultOf<typeof DietzQuery>['dietzDailyReturns'];
export type DailyReturn = DietzDailyReturns['days'][number];
export type PeriodReturn = DietzDailyReturns['timeWeightedReturn'];
export type DietzVariables = VariablesOf<typeof DietzQuery>;

const PeriodFields = graphql(`fragment PeriodReturnFields on PeriodReturn { value nullReason method weighting }`);

export const DietzQuery = graphql(
  `
  query DietzDailyReturns($entityName: String!, $startDate: Date!, $endDate: Date!) {
    dietzDailyReturns(entityName: $entityName, startDate: $startDate, endDate: $endDate) {
      entityName accountCode startDate endDate annualized
      # cumulativeReturn: the service's linked return from the range's first day up to this one
      days { date startDate beginValue endValue netFlow weightedFlow returnValue cumulativeReturn nullReason }
      timeWeightedReturn { ...PeriodReturnFields }
      modifiedDietzReturn { ...PeriodReturnFields }
    }
  }
`,
  [PeriodFields],
);

export type CashTransaction = ResultOf<typeof CashTransactionsQuery>['cashTransactions']['edges'][number]['node'];

/** The flows themselves (with their descriptions), to explain the markers on the chart. */
export const CashTransactionsQuery = graphql(`
  query CashTransactions($entityName: String!, $first: Int) {
    cashTransactions(entityName: $entityName, first: $first) { edges { node { id date amount timing description } } pageInfo { hasNextPage endCursor } }
  }
`);
