import { useState, type FormEvent } from 'react';
import { useMutation, type CombinedError } from 'urql';
import { useLocation } from 'wouter';
import { ErrorNotice } from '../../components/notice.tsx';
import { DAYS_MAX, DAYS_MIN, LENGTHS, SOURCES, StartMutation, type Source, type SummaryLength } from './api.ts';

/** CONFLICT and RATE_LIMITED say what to do next; anything else is shown as the API put it. */
function startError(error: CombinedError): CombinedError | string {
  const first = error.graphQLErrors[0];
  const code = first?.extensions?.code;
  if (code === 'CONFLICT') return `${first.message.replace(/\.?$/, '.')} Follow or cancel one of them in the list below.`;
  if (code === 'RATE_LIMITED') {
    const wait = first.extensions?.retryAfterSeconds;
    return `You have started too many summaries in the last minute.${typeof wait === 'number' ? ` Try again in ${wait} s.` : ' Try again in a minute.'}`;
  }
  return error;
}

export function StartForm({ canStart }: { canStart: boolean }) {
  const [, navigate] = useLocation();
  const [sources, setSources] = useState<Source[]>(SOURCES.map((s) => s.value));
  const [days, setDays] = useState('7');
  const [length, setLength] = useState<SummaryLength>('medium');
  const [invalid, setInvalid] = useState<string | null>(null);
  const [state, start] = useMutation(StartMutation);
  // The last answer's error is shown only until the form is checked again.
  const [showServerError, setShowServerError] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setShowServerError(false);
    const dayCount = Number(days);
    if (!/^\d+$/.test(days.trim()) || dayCount < DAYS_MIN || dayCount > DAYS_MAX) {
      return setInvalid(`The look-back window must be a whole number of days from ${DAYS_MIN} to ${DAYS_MAX}.`);
    }
    if (sources.length === 0) return setInvalid('Choose at least one source to summarise.');
    setInvalid(null);
    setShowServerError(true);
    const result = await start({ input: { days: dayCount, length, sources } });
    if (result.data) navigate(`/generation/${result.data.startGeneration.id}`);
  }

  function toggle(source: Source, checked: boolean) {
    // Kept in the API's order, whatever order they are ticked in.
    setSources((current) => SOURCES.map((s) => s.value).filter((s) => (s === source ? checked : current.includes(s))));
  }

  return (
    <form className="stack gen-start-form" onSubmit={submit} noValidate aria-describedby="start-form-hint">
      <p id="start-form-hint" className="hint">
        The collector gathers your records from the window, one analyst per kind of record picks what matters, the writer writes a summary with references and
        the editor checks it covers the key findings. You can leave this page: the run goes on, and you can come back to it.
      </p>
      <fieldset>
        <legend>Sources</legend>
        <div className="gen-source-options">
          {SOURCES.map((source) => (
            <label key={source.value} className="checkbox">
              <input type="checkbox" checked={sources.includes(source.value)} onChange={(e) => toggle(source.value, e.target.checked)} />
              {source.label}
            </label>
          ))}
        </div>
      </fieldset>
      <div className="form-row">
        <label>
          Look-back window (days, {DAYS_MIN}–{DAYS_MAX})
          <input
            type="number"
            inputMode="numeric"
            min={DAYS_MIN}
            max={DAYS_MAX}
            step={1}
            value={days}
            onChange={(e) => setDays(e.target.value)}
            className="gen-days-input"
          />
        </label>
        <label>
          Length
          <select value={length} onChange={(e) => setLength(e.target.value as SummaryLength)}>
            {LENGTHS.map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" disabled={!canStart || state.fetching}>
          {state.fetching ? 'Starting…' : 'Start summary'}
        </button>
      </div>
      {!canStart && <p className="hint">Starting a summary needs the write:workspace scope.</p>}
      <ErrorNotice error={invalid} />
      {showServerError && state.error && <ErrorNotice error={startError(state.error)} title="The summary was not started" />}
    </form>
  );
}
