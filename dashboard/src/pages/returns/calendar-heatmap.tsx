import type { CalendarRow } from './analytics-queries.ts';
import { signedPercent } from './format.ts';
import { heatClass, MONTH_NAMES, MONTHS, type HeatYear } from './heat-scale.ts';
import { Missing } from './missing-value.tsx';

/**
 * Months by year: a row per calendar year, a column per month and the year's own return last.
 * Each month is coloured by the sign and size of its return (the legend's bands) and shows it as
 * text; a partial month or year carries a dagger and an outline, its reason in the tooltip and for
 * assistive technology. Months outside the history are empty. Scrolls sideways on a phone.
 */
export function CalendarHeatmap({ caption, years }: { caption: string; years: HeatYear[] }) {
  return (
    <>
      {/* Its caption, where a narrow screen does not scroll it out of sight (the table's own caption is for assistive technology). */}
      <h3 className="analytics-title">{caption}</h3>
      <p className="hint scroll-hint">Scroll the table sideways for the later months and the year.</p>
      <div className="table-wrap heatmap-wrap" tabIndex={0} role="region" aria-label={`${caption} (scrolls sideways)`}>
        <table className="data heatmap">
          <caption className="visually-hidden">{caption}</caption>
          <thead>
            <tr>
              <th scope="col" className="heat-year-head">
                <span className="visually-hidden">Calendar year</span>
              </th>
              {MONTHS.map((month, index) => (
                <th scope="col" key={month} className="num" title={MONTH_NAMES[index]}>
                  {month}
                </th>
              ))}
              <th scope="col" className="num heat-total-head" title="The year's return: its months linked">
                Year
              </th>
            </tr>
          </thead>
          <tbody>
            {years.map((row) => (
              <tr key={row.year}>
                <th scope="row" className="heat-year">
                  {row.year}
                </th>
                {row.months.map((month, index) => (
                  <HeatCell key={MONTHS[index]} row={month} kind="month" />
                ))}
                <HeatCell row={row.total} kind="year" />
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

function HeatCell({ row, kind }: { row: CalendarRow | undefined; kind: 'month' | 'year' }) {
  if (!row) return <td className="num heat-cell heat-outside" />;
  const tone = kind === 'year' ? 'heat-total' : `heat-${heatClass(row.returnValue)}`;
  const title = [
    row.returnValue === null ? `No return: ${row.nullReason ?? 'no reason given'}` : null,
    row.partial ? `Partial ${kind}: ${row.partialReason}` : null,
  ]
    .filter(Boolean)
    .join('. ');
  return (
    <td className={`num heat-cell ${tone}${row.partial ? ' heat-partial' : ''}`} title={title || undefined}>
      {row.returnValue === null ? (
        <Missing reason={row.nullReason} label="no return" />
      ) : (
        <span className="heat-value">{signedPercent(row.returnValue, 2)}</span>
      )}
      {row.partial && (
        <>
          <span className="partial-mark" aria-hidden="true">
            †
          </span>
          <span className="visually-hidden">
            (partial {kind}: {row.partialReason})
          </span>
        </>
      )}
    </td>
  );
}
