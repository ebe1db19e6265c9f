import { gql } from 'urql';
import { PAGE_INFO_FIELDS, type PageInfo } from '../../components/pager.tsx';

export type ComparisonStatus = 'match' | 'review' | 'investigate';
export const COMPARISON_STATUSES: ComparisonStatus[] = ['match', 'review', 'investigate'];

export interface Comparison {
  accountCode: string;
  entityName: string;
  date: string;
  custodianReturn: string | null;
  computedReturn: string | null;
  differenceBps: string | null;
  status: ComparisonStatus;
  reason: string;
  matchThresholdBps: string;
  reviewThresholdBps: string;
}

export interface ComparisonVariables {
  accountCode: string | null;
  status: ComparisonStatus | null;
  first: number;
  after: string | null;
}

export const ComparisonQuery = gql<{ returnComparison: { edges: { node: Comparison }[]; pageInfo: PageInfo } }, ComparisonVariables>(`
  query ReturnComparison($accountCode: String, $status: ComparisonStatus, $first: Int, $after: String) {
    returnComparison(accountCode: $accountCode, status: $status, first: $first, after: $after) {
      edges { node { accountCode entityName date custodianReturn computedReturn differenceBps status reason matchThresholdBps reviewThresholdBps } }
      ${PAGE_INFO_FIELDS}
    }
  }
`);

/** The entities (and their dates) the comparisons name: the chart's entity choices and default range. */
export const ENTITY_SCAN = 500;
export const EntityScanQuery = gql<{ returnComparison: { edges: { node: Pick<Comparison, 'accountCode' | 'entityName' | 'date'> }[]; pageInfo: PageInfo } }>(`
  query ReturnEntities {
    returnComparison(first: ${ENTITY_SCAN}) { edges { node { accountCode entityName date } } ${PAGE_INFO_FIELDS} }
  }
`);

export interface DailyReturn {
  date: string;
  startDate: string;
  beginValue: string;
  endValue: string;
  netFlow: string;
  weightedFlow: string;
  returnValue: string | null;
  /** The service's linked return from the range's first day up to this one. */
  cumulativeReturn: string | null;
  nullReason: string | null;
}

export interface PeriodReturn {
  value: string | null;
  nullReason: string | null;
  method: string;
  weighting: string;
}

export interface DietzDailyReturns {
  entityName: string;
  accountCode: string;
  startDate: string;
  endDate: string;
  annualized: boolean;
  days: DailyReturn[];
  timeWeightedReturn: PeriodReturn;
  modifiedDietzReturn: PeriodReturn;
}

export interface DietzVariables {
  entityName: string;
  startDate: string;
  endDate: string;
}

const PERIOD_FIELDS = 'value nullReason method weighting';
export const DietzQuery = gql<{ dietzDailyReturns: DietzDailyReturns }, DietzVariables>(`
  query DietzDailyReturns($entityName: String!, $startDate: Date!, $endDate: Date!) {
    dietzDailyReturns(entityName: $entityName, startDate: $startDate, endDate: $endDate) {
      entityName accountCode startDate endDate annualized
      days { date startDate beginValue endValue netFlow weightedFlow returnValue cumulativeReturn nullReason }
      timeWeightedReturn { ${PERIOD_FIELDS} }
      modifiedDietzReturn { ${PERIOD_FIELDS} }
    }
  }
`);

export interface CashTransaction {
  id: string;
  date: string;
  amount: string;
  timing: 'start_of_day' | 'end_of_day';
  description: string | null;
}

/** The flows themselves (with their descriptions), to explain the markers on the chart. */
export const CashTransactionsQuery = gql<{ cashTransactions: { edges: { node: CashTransaction }[]; pageInfo: PageInfo } }, { entityName: string; first: number }>(`
  query CashTransactions($entityName: String!, $first: Int) {
    cashTransactions(entityName: $entityName, first: $first) { edges { node { id date amount timing description } } ${PAGE_INFO_FIELDS} }
  }
`);
