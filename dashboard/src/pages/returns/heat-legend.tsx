import { useId } from 'react';
import { STEPS } from './heat-scale.ts';

/** The heat map's colour bands, in its own colours, and what its marks mean. */
export function HeatLegend() {
  const titleId = useId();
  const bands = legendBands();
  return (
    <div className="heat-legend">
      <p className="heat-legend-title" id={titleId}>
        Colour of a month’s return
      </p>
      <ul className="heat-swatches" aria-labelledby={titleId}>
        {bands.map((band) => (
          <li key={band.tone} className={`heat-swatch heat-${band.tone}`}>
            {band.label}
          </li>
        ))}
      </ul>
      <p className="hint heat-notes">
        <span className="partial-mark" aria-hidden="true">
          †
        </span>{' '}
        partial: the history starts or ends inside the month or year (the reason is in its tooltip). — no return (the reason is in its tooltip). Empty cells are
        outside the history. The Year column is the year’s return, its months linked.
      </p>
    </div>
  );
}

/** Losses from the deepest to the lightest, then gains from the lightest to the deepest. */
function legendBands(): { tone: string; label: string }[] {
  const edges = [0, ...STEPS];
  const band = (sign: '+' | '−', index: number) => {
    const low = edges[index];
    const high = edges[index + 1];
    const near = low === 0 ? '0' : `${sign}${low}`;
    const label =
      high === undefined ? `${sign}${low} % or ${sign === '+' ? 'more' : 'less'}` : sign === '+' ? `${near} to +${high} %` : `−${high} to ${near} %`;
    return { tone: `${sign === '+' ? 'gain' : 'loss'}-${index + 1}`, label };
  };
  return [...edges.map((_, index) => band('−', index)).reverse(), ...edges.map((_, index) => band('+', index))];
}
