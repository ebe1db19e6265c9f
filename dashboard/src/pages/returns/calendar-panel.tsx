import { useMemo } from 'react';
import { useQuery } from 'urql';
import { Panel } from '../../components/page.tsx';
import { EmptyState, Loading } from '../../components/notice.tsx';
import { formatDate } from '../../components/format.ts';
import { BENCHMARK_READS, CalendarReturnsQuery } from './analytics-queries.ts';
import { explainAnalyticsError } from './analytics-errors.ts';
import { AnalyticsProblem } from './analytics-problem.tsx';
import { heatRows } from './heat-scale.ts';
import { CalendarHeatmap } from './calendar-heatmap.tsx';
import { HeatLegend } from './heat-legend.tsx';
import './analytics.css';

/** The entity's net-of-fee return in every calendar month and year, as a heat map, in the currency chosen above it. */
export function CalendarReturnsPanel({ entityName, currency }: { entityName: string; currency: string | null }) {
  const [{ data, error, fetching }] = useQuery({ query: CalendarReturnsQuery, variables: { entityName, currency }, context: BENCHMARK_READS });
  const result = data?.calendarReturns;
  const years = useMemo(() => (result ? heatRows(result) : []), [result]);
  const explained = error ? explainAnalyticsError(error, entityName) : null;
  return (
    <Panel id="calendar-returns" title="Monthly and yearly returns">
      {explained && <AnalyticsProblem explained={explained} title={`The calendar returns of ${entityName} could not be loaded`} currency={currency} />}
      {fetching && !result && !error && <Loading label={`Loading the calendar returns of ${entityName}…`} />}
      {result && !error && years.length === 0 && <EmptyState>{result.entityName} has no daily returns yet: there is no month to show.</EmptyState>}
      {result && !error && years.length > 0 && (
        <div className="analytics-body" aria-busy={fetching}>
          <CalendarHeatmap
            caption={`${result.entityName} (${result.accountCode}): time-weighted return of each month and year, net of fees, in ${result.currency}, from ${formatDate(result.inceptionDate)} to ${formatDate(result.asOf)}`}
            years={years}
          />
          <HeatLegend />
          <p className="hint">{`Net of fees, in ${result.currency}, the currency chosen for the periods above${result.currency === result.localCurrency ? '' : ` (the entity’s own is ${result.localCurrency})`}; the gross-of-fee returns are in the period table.`}</p>
        </div>
      )}
    </Panel>
  );
}
