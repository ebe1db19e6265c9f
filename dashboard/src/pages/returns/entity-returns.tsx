import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { Panel } from '../../components/page.tsx';
import { EmptyState } from '../../components/notice.tsx';
import type { DietzVariables } from './queries.ts';
import { daysBetween } from './format.ts';
import { DietzResults } from './dietz-results.tsx';
import { defaultRange, type EntityRange } from './entity-range.ts';
import { PeriodReturnsPanel } from './period-panel.tsx';
import { CalendarReturnsPanel } from './calendar-panel.tsx';

/** The service's longest range for daily returns (about ten years). */
const MAX_RANGE_DAYS = 3660;

export function EntityReturnsPanel({ entities, request }: { entities: EntityRange[]; request: { entityName: string; nonce: number } | null }) {
  const [entityName, setEntityName] = useState('');
  const [startDate, setStartDate] = useState('');
  const [endDate, setEndDate] = useState('');
  const [datesEdited, setDatesEdited] = useState(false);
  const [invalid, setInvalid] = useState<string | null>(null);
  const [applied, setApplied] = useState<DietzVariables | null>(null);
  // The reported returns' currency (null: the entity's own), for the entity it was chosen for.
  const [reporting, setReporting] = useState<{ entityName: string; currency: string | null }>({ entityName: '', currency: null });
  const currency = applied && reporting.entityName === applied.entityName ? reporting.currency : null;
  const latest = useRef({ entities, startDate, endDate });
  latest.current = { entities, startDate, endDate };
  const errorId = useId();

  function fill(range: DietzVariables) {
    setEntityName(range.entityName);
    setStartDate(range.startDate);
    setEndDate(range.endDate);
    setDatesEdited(false);
    setInvalid(null);
  }

  // The first entity is charted as soon as the comparisons name one.
  useEffect(() => {
    if (applied || entityName || entities.length === 0) return;
    const range = defaultRange(entities[0]);
    fill(range);
    setApplied(range);
  }, [entities, applied, entityName]);

  // "Chart" from a row of the comparison table: only a new request moves the chart.
  useEffect(() => {
    if (!request) return;
    const { entities: known, startDate: start, endDate: end } = latest.current;
    const entity = known.find((e) => e.entityName === request.entityName);
    const range = entity ? defaultRange(entity) : { entityName: request.entityName, startDate: start, endDate: end };
    fill(range);
    setApplied(range);
    // Take the reader (and the keyboard focus) to the chart's heading.
    const title = document.getElementById('entity-returns-title');
    if (title) {
      title.tabIndex = -1;
      title.scrollIntoView({ behavior: window.matchMedia('(prefers-reduced-motion: reduce)').matches ? 'auto' : 'smooth', block: 'start' });
      title.focus({ preventScroll: true });
    }
  }, [request]);

  function onEntityChange(name: string) {
    setEntityName(name);
    // Dates follow the entity until the reader sets them.
    const known = entities.find((e) => e.entityName === name.trim());
    if (known && !datesEdited) {
      const range = defaultRange(known);
      setStartDate(range.startDate);
      setEndDate(range.endDate);
    }
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    const name = entityName.trim();
    const problem = !name
      ? 'Enter the name of an entity.'
      : !startDate || !endDate
        ? 'Enter both dates.'
        : endDate < startDate
          ? 'The end date is before the start date.'
          : daysBetween(startDate, endDate) > MAX_RANGE_DAYS
            ? `The range may span at most ${MAX_RANGE_DAYS} days (about ten years).`
            : null;
    setInvalid(problem);
    if (!problem) setApplied({ entityName: name, startDate, endDate });
  }

  return (
    <>
      <Panel id="entity-returns" title="Daily returns of an entity">
        <form className="form-row filters" onSubmit={submit} noValidate aria-describedby={invalid ? errorId : undefined}>
          <label className="entity-field">
            Entity
            <input
              value={entityName}
              onChange={(event) => onEntityChange(event.target.value)}
              list="entity-names"
              autoComplete="off"
              required
              aria-invalid={invalid !== null && !entityName.trim()}
            />
          </label>
          <datalist id="entity-names">
            {entities.map((e) => (
              <option key={e.entityName} value={e.entityName}>
                {e.accountCode}
              </option>
            ))}
          </datalist>
          <label>
            From
            <input
              type="date"
              value={startDate}
              max={endDate || undefined}
              required
              onChange={(event) => {
                setStartDate(event.target.value);
                setDatesEdited(true);
              }}
            />
          </label>
          <label>
            To
            <input
              type="date"
              value={endDate}
              min={startDate || undefined}
              required
              onChange={(event) => {
                setEndDate(event.target.value);
                setDatesEdited(true);
              }}
            />
          </label>
          <button type="submit">Show returns</button>
        </form>
        {invalid && (
          <p className="notice notice-error" role="alert" id={errorId}>
            {invalid}
          </p>
        )}
        <p className="hint">
          Entities suggested are those with custodian returns; any entity with valuations can be typed. Each daily return is a Modified Dietz return between two
          daily valuations.
        </p>
        {applied ? (
          <DietzResults
            key={`${applied.entityName}|${applied.startDate}|${applied.endDate}`}
            variables={applied}
            known={entities.find((e) => e.entityName === applied.entityName)}
          />
        ) : (
          entities.length === 0 && <EmptyState>Enter an entity and a date range to chart its daily returns.</EmptyState>
        )}
      </Panel>
      {/* The reported returns of the same entity: they follow the entity shown, not the dates. */}
      {applied && (
        <PeriodReturnsPanel
          key={`periods|${applied.entityName}`}
          entityName={applied.entityName}
          currency={currency}
          onCurrencyChange={(chosen) => setReporting({ entityName: applied.entityName, currency: chosen })}
        />
      )}
      {applied && <CalendarReturnsPanel key={`calendar|${applied.entityName}`} entityName={applied.entityName} currency={currency} />}
    </>
  );
}
