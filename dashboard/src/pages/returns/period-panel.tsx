import { useRef } from 'react';
import { useQuery } from 'urql';
import { Panel } from '../../components/page.tsx';
import { Loading } from '../../components/notice.tsx';
import { formatDate } from '../../components/format.ts';
import { BENCHMARK_READS, ReturnPeriodsQuery } from './analytics-queries.ts';
import { explainAnalyticsError } from './analytics-errors.ts';
import { AnalyticsProblem } from './analytics-problem.tsx';
import { CurrencySelect } from './currency-select.tsx';
import { BenchmarkSelect } from './benchmark-select.tsx';
import { PeriodTable } from './period-table.tsx';
import './analytics.css';

/**
 * The entity's time-weighted returns over the standard periods, as of its latest valuation, net and
 * gross of fees, in the currency chosen here (which the monthly returns below follow).
 */
export function PeriodReturnsPanel({
  entityName,
  currency,
  onCurrencyChange,
}: {
  entityName: string;
  currency: string | null;
  onCurrencyChange: (currency: string | null) => void;
}) {
  const [{ data, error, fetching }] = useQuery({ query: ReturnPeriodsQuery, variables: { entityName, currency }, context: BENCHMARK_READS });
  const result = data?.returnPeriods;
  // The assigned benchmark as last read: the choice stays while another currency's figures fail.
  const assigned = useRef<string | null | undefined>(undefined);
  if (result) assigned.current = result.benchmark ?? null;
  const explained = error ? explainAnalyticsError(error, entityName) : null;
  const converted = result && result.currency !== result.localCurrency;
  return (
    <Panel id="period-returns" title="Returns over standard periods">
      <div className="form-row reporting-controls">
        <CurrencySelect entityName={entityName} value={currency} onChange={onCurrencyChange} />
        {assigned.current !== undefined && <BenchmarkSelect entityName={entityName} assigned={assigned.current} />}
      </div>
      {explained && <AnalyticsProblem explained={explained} title={`The period returns of ${entityName} could not be loaded`} currency={currency} />}
      {fetching && !result && !error && <Loading label={`Loading the period returns of ${entityName}…`} />}
      {result && !error && (
        <div className="analytics-body" aria-busy={fetching}>
          <PeriodTable
            caption={`${result.entityName} (${result.accountCode}): time-weighted returns as of ${formatDate(result.asOf)}, in ${result.currency}`}
            periods={result.periods}
            localCurrency={converted ? result.localCurrency : null}
            benchmark={result.benchmark ?? null}
          />
          <p className="hint">
            Linked from the daily returns since the first valuation on {formatDate(result.inceptionDate)}; every period ends at the valuation of{' '}
            {formatDate(result.periods[0]?.endValuationDate ?? result.asOf)}. Net of fees: the fees paid count as a loss; gross of fees adds them back.
            Annualised only for periods of a year or more; a period that starts before the history is not covered rather than shortened.
            {result.benchmark &&
              ` The benchmark ${result.benchmark}: its return between its levels on or before the period's two valuation dates, and the net return's excess over it (the geometric excess in each figure's tooltip).`}
            {converted &&
              ` Under each net return in ${result.currency}: the same return in ${result.localCurrency}, the entity’s own currency, and the currency effect (FX), the difference the exchange rates made.`}
          </p>
        </div>
      )}
    </Panel>
  );
}
