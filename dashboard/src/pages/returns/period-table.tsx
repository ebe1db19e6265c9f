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
 * The time-weighted return of each standard period, as the service lists them (MTD … SI): the
 * return, the annualised return from a year on, the two valuations it runs between, and a period
 * the history does not cover marked as such, with the reason.
 */
export function PeriodTable({ caption, periods }: { caption: string; periods: StandardPeriod[] }) {
  return (
    <>
      {/* Its caption, where a narrow screen does not scroll it out of sight (the table's own caption is for assistive technology). */}
      <h3 className="analytics-title">{caption}</h3>
      <p className="hint scroll-hint">Scroll the table sideways for the valuation dates and notes.</p>
      <div className="table-wrap" tabIndex={0} role="region" aria-label={`${caption} (scrolls sideways)`}>
        <table className="data period-table">
          <caption className="visually-hidden">{caption}</caption>
          <thead>
            <tr>
              <th scope="col">Period</th>
              <th scope="col" className="num">
                Return
              </th>
              <th scope="col" className="num">
                Annualised
              </th>
              <th scope="col">Start valuation</th>
              <th scope="col">End valuation</th>
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
                    signedPercent(row.returnValue, 2)
                  )}
                </td>
                <td className="num period-annualized">
                  {row.annualizedReturn === null ? (
                    <Missing reason={row.annualizedNullReason} label="not annualised" />
                  ) : (
                    signedPercent(row.annualizedReturn, 2)
                  )}
                </td>
                <td className="nowrap">{row.startValuationDate ? <time dateTime={row.startValuationDate}>{formatDate(row.startValuationDate)}</time> : '—'}</td>
                <td className="nowrap">
                  <time dateTime={row.endValuationDate}>{formatDate(row.endValuationDate)}</time>
                </td>
                <td className="period-note">{row.nullReason ?? (row.days === null ? '' : plural(row.days, 'day'))}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
