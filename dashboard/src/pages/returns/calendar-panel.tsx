import { useMemo } from 'react';
import { useQuery } from 'urql';
import { Panel } from '../../components/page.tsx';
import { EmptyState, ErrorNotice, Loading } from '../../components/notice.tsx';
import { formatDate } from '../../components/format.ts';
import { CalendarReturnsQuery } from './analytics-queries.ts';
import { explainAnalyticsError } from './analytics-errors.ts';
import { heatRows } from './heat-scale.ts';
import { CalendarHeatmap } from './calendar-heatmap.tsx';
import { HeatLegend } from './heat-legend.tsx';
import './analytics.css';

/** The entity's return in every calendar month and year, as a heat map. */
export function CalendarReturnsPanel({ entityName }: { entityName: string }) {
  const [{ data, error, fetching }] = useQuery({ query: CalendarReturnsQuery, variables: { entityName } });
  const result = data?.calendarReturns;
  const years = useMemo(() => (result ? heatRows(result) : []), [result]);
  const explained = error ? explainAnalyticsError(error, entityName) : null;
  return (
    <Panel id="calendar-returns" title="Monthly and yearly returns">
      {explained && 'error' in explained && <ErrorNotice error={explained.error} title={`The calendar returns of ${entityName} could not be loaded`} />}
      {explained && 'empty' in explained && <EmptyState>{explained.empty}</EmptyState>}
      {fetching && !result && !error && <Loading label={`Loading the calendar returns of ${entityName}…`} />}
      {result && !error && years.length === 0 && <EmptyState>{result.entityName} has no daily returns yet: there is no month to show.</EmptyState>}
      {result && !error && years.length > 0 && (
        <div className="analytics-body" aria-busy={fetching}>
          <CalendarHeatmap
            caption={`${result.entityName} (${result.accountCode}): time-weighted return of each month and year, in ${result.currency}, from ${formatDate(result.inceptionDate)} to ${formatDate(result.asOf)}`}
            years={years}
          />
          <HeatLegend />
        </div>
      )}
    </Panel>
  );
}
