import { Badge } from '../../components/badge.tsx';
import { formatDate, plural } from '../../components/format.ts';
import type { StandardPeriod } from './analytics-queries.ts';
import { signedPercent } from './format.ts';
import { Missing } from './missing-value.tsx';

const PERIOD_NAMES: Record<string, string> = {
  MTD: 'Month to date',
  QTD: 'Quarter to date',
  YTD: 'Year to date',
  '1M': 'One month',
  '3M': 'Three months',
  '6M': 'Six months',
  '1Y': 'One year',
  '3Y': 'Three years',
  '5Y': 'Five years',
  '10Y': 'Ten years',
  SI: 'Since inception',
};

/**
 * The time-weighted return of each standard period, as the service lists them (MTD … SI): net of
 * fees and gross of fees, each with its annualised return from a year on, the benchmark's return
 * and the excess over it when one is assigned, the valuation it starts from (every period ends at
 * the as-of valuation, which the caption names), and a period the history does not cover marked
 * as such, with the reason. In
 * another currency than the entity's (`localCurrency` set), each net return carries the return in
 * the entity's currency and the currency effect on two short lines below it.
 */
export function PeriodTable({
  caption,
  periods,
  localCurrency,
  benchmark,
}: {
  caption: string;
  periods: StandardPeriod[];
  localCurrency: string | null;
  benchmark: string | null;
}) {
  return (
    <>
      {/* Its caption, where a narrow screen does not scroll it out of sight (the table's own caption is for assistive technology). */}
      <h3 className="analytics-title">{caption}</h3>
      <p className="hint scroll-hint">Scroll the table sideways for the gross and benchmark returns, the start valuations and notes.</p>
      <div className="table-wrap" tabIndex={0} role="region" aria-label={`${caption} (scrolls sideways)`}>
        <table className="data period-table">
          <caption className="visually-hidden">{caption}</caption>
          <thead>
            <tr>
              <th scope="col">Period</th>
              <th scope="col" className="num">
                Return, net of fees
              </th>
              <th scope="col" className="num">
                Return, gross of fees
              </th>
              <th scope="col" className="num">
                Annualised, net
              </th>
              <th scope="col" className="num">
                Annualised, gross
              </th>
              {benchmark && (
                <>
                  <th scope="col" className="num">
                    Benchmark return
                  </th>
                  <th scope="col" className="num">
                    Excess, net
                  </th>
                </>
              )}
              <th scope="col">Start valuation</th>
              <th scope="col">Note</th>
            </tr>
          </thead>
          <tbody>
            {periods.map((row) => (
              <tr key={row.period} className={row.complete ? undefined : 'not-covered'} data-period={row.period}>
                <th scope="row" className="period-name">
                  <span className="period-code">{row.period}</span> <span className="hint">{PERIOD_NAMES[row.period] ?? ''}</span>
                </th>
                <td className="num period-return">
                  {!row.complete ? (
                    <Badge tone="warning">not covered</Badge>
                  ) : row.returnValue === null ? (
                    <Missing reason={row.nullReason} label="no return" />
                  ) : (
                    <>
                      <span className="period-value">{signedPercent(row.returnValue, 2)}</span>
                      {localCurrency && <CurrencySplit row={row} localCurrency={localCurrency} />}
                    </>
                  )}
                </td>
                <td className="num period-gross">
                  {row.grossReturnValue === null ? (
                    <Missing reason={row.complete ? row.nullReason : `not covered: ${row.nullReason}`} label="no gross return" />
                  ) : (
                    signedPercent(row.grossReturnValue, 2)
                  )}
                </td>
                <td className="num period-annualized">
                  {row.annualizedReturn === null ? (
                    <Missing reason={row.annualizedNullReason} label="not annualised" />
                  ) : (
                    signedPercent(row.annualizedReturn, 2)
                  )}
                </td>
                <td className="num period-gross-annualized">
                  {row.grossAnnualizedReturn === null ? (
                    <Missing reason={row.annualizedNullReason} label="not annualised" />
                  ) : (
                    signedPercent(row.grossAnnualizedReturn, 2)
                  )}
                </td>
                {benchmark && <BenchmarkCells row={row} />}
                <td className="nowrap">{row.startValuationDate ? <time dateTime={row.startValuationDate}>{formatDate(row.startValuationDate)}</time> : '—'}</td>
                <td className="period-note">{row.nullReason ?? (row.days === null ? '' : plural(row.days, 'day'))}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

/** The benchmark's return over the period and the net return's arithmetic excess (the geometric one in the tooltip). */
function BenchmarkCells({ row }: { row: StandardPeriod }) {
  const comparison = row.benchmark;
  const reason = comparison?.nullReason ?? (comparison ? null : 'no benchmark');
  return (
    <>
      <td className="num period-benchmark">
        {comparison?.returnValue ? signedPercent(comparison.returnValue, 2) : <Missing reason={reason} label="no benchmark return" />}
      </td>
      <td
        className="num period-excess"
        title={comparison?.geometricExcessReturn ? `Geometric excess: ${signedPercent(comparison.geometricExcessReturn, 2)}` : undefined}
      >
        {comparison?.excessReturn ? signedPercent(comparison.excessReturn, 2) : <Missing reason={reason} label="no excess return" />}
      </td>
    </>
  );
}

/** The net return in the entity's own currency and what the exchange rates added, under the converted one. */
function CurrencySplit({ row, localCurrency }: { row: StandardPeriod; localCurrency: string }) {
  return (
    <span className="currency-split">
      <span className="split-line split-local">
        <span className="visually-hidden">in </span>
        {localCurrency} {signedPercent(row.localReturnValue, 2)}
      </span>
      <span className="split-line split-fx">
        <span aria-hidden="true">FX</span>
        <span className="visually-hidden">currency effect</span> {signedPercent(row.currencyEffect, 2)}
      </span>
    </span>
  );
}
