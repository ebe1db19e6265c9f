import { useQuery } from 'urql';
import { Panel } from '../../components/page.tsx';
import { EmptyState, ErrorNotice, Loading } from '../../components/notice.tsx';
import { formatDate } from '../../components/format.ts';
import { ReturnPeriodsQuery } from './analytics-queries.ts';
import { explainAnalyticsError } from './analytics-errors.ts';
import { PeriodTable } from './period-table.tsx';
import './analytics.css';

/** The entity's time-weighted returns over the standard periods, as of its latest valuation. */
export function PeriodReturnsPanel({ entityName }: { entityName: string }) {
  const [{ data, error, fetching }] = useQuery({ query: ReturnPeriodsQuery, variables: { entityName } });
  const result = data?.returnPeriods;
  const explained = error ? explainAnalyticsError(error, entityName) : null;
  return (
    <Panel id="period-returns" title="Returns over standard periods">
      {explained && 'error' in explained && <ErrorNotice error={explained.error} title={`The period returns of ${entityName} could not be loaded`} />}
      {explained && 'empty' in explained && <EmptyState>{explained.empty}</EmptyState>}
      {fetching && !result && !error && <Loading label={`Loading the period returns of ${entityName}…`} />}
      {result && !error && (
        <div className="analytics-body" aria-busy={fetching}>
          <PeriodTable
            caption={`${result.entityName} (${result.accountCode}): time-weighted returns as of ${formatDate(result.asOf)}, in ${result.currency}`}
            periods={result.periods}
          />
          <p className="hint">
            Linked from the daily returns since the first valuation on {formatDate(result.inceptionDate)}. Annualised only for periods of a year or more; a
            period that starts before the history is not covered rather than shortened.
          </p>
        </div>
      )}
    </Panel>
  );
}
