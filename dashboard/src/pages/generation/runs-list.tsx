import { useCallback, useState } from 'react';
import { useQuery } from 'urql';
import { Link } from 'wouter';
import { Panel } from '../../components/page.tsx';
import { EmptyState, ErrorNotice, Loading } from '../../components/notice.tsx';
import { Badge, toneOf } from '../../components/badge.tsx';
import { Pager, useCursorPager } from '../../components/pager.tsx';
import { formatDateTime } from '../../components/format.ts';
import { usePolling } from '../../api/use-polling.ts';
import { LENGTHS, RUN_STATES, RunsQuery, SOURCES, isInProgress, type RunListItem, type RunState } from './api.ts';
import { RUN_STATE_LABELS, agentLabel } from './progress.ts';

const PAGE_SIZE = 10;

export function sourcesText(sources: readonly string[]): string {
  if (sources.length === SOURCES.length) return 'All sources';
  return sources.map((source) => SOURCES.find((s) => s.value === source)?.label ?? source).join(', ');
}

export function lengthText(length: string): string {
  return LENGTHS.find((l) => l.value === length)?.label.replace(/ \(.*\)$/, '') ?? length;
}

function result(run: RunListItem): string {
  if (run.state !== 'completed') return run.failedAgents.length > 0 ? `Failed: ${run.failedAgents.map(agentLabel).join(', ')}` : '—';
  const provider = run.summaryProvider === 'openai' ? 'Language model' : run.summaryProvider === 'offline' ? 'Extractive' : '';
  return run.degraded ? `${provider}; ${run.failedAgents.map(agentLabel).join(', ')} failed` : provider || '—';
}

/** The signed-in user's runs, newest first, each linking to its live view. */
export function RunsList() {
  const pager = useCursorPager();
  const [state, setState] = useState<RunState | ''>('');
  const [{ data, error, fetching }, refresh] = useQuery({
    query: RunsQuery,
    variables: { first: PAGE_SIZE, after: pager.after, state: state || null },
  });
  const runs = data?.generationRuns.edges.map((edge) => edge.node) ?? [];
  const reload = useCallback(() => refresh({ requestPolicy: 'network-only' }), [refresh]);
  // Runs in progress change state on their own: keep the list current while the user has some,
  // shown or not (a run leaving "running" may enter the state the list is filtered by).
  const anyInProgress = runs.some((run) => isInProgress(run.state)) || (data?.queued.edges.length ?? 0) + (data?.running.edges.length ?? 0) > 0;
  usePolling(reload, 3000, anyInProgress);

  return (
    <Panel
      id="runs"
      title="Your summaries"
      actions={
        <label className="gen-inline-label">
          State
          <select
            value={state}
            onChange={(e) => {
              setState(e.target.value as RunState | '');
              pager.reset();
            }}
          >
            <option value="">All</option>
            {RUN_STATES.map((s) => (
              <option key={s} value={s}>
                {RUN_STATE_LABELS[s]}
              </option>
            ))}
          </select>
        </label>
      }
    >
      <ErrorNotice error={error} title="Could not load your summaries" />
      {fetching && !data && <Loading label="Loading your summaries…" />}
      {data && runs.length === 0 && (
        <EmptyState>{state ? `No ${RUN_STATE_LABELS[state].toLowerCase()} summaries.` : 'You have not started a summary yet. Start one above.'}</EmptyState>
      )}
      {runs.length > 0 && (
        <div className="table-wrap" tabIndex={0}>
          <table className="data gen-runs-table stack">
            <caption className="visually-hidden">Your summaries, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Started</th>
                <th scope="col">State</th>
                <th scope="col">Sources</th>
                <th scope="col" className="num">
                  Days
                </th>
                <th scope="col">Length</th>
                <th scope="col">Result</th>
              </tr>
            </thead>
            <tbody>
              {runs.map((run) => (
                <tr key={run.id}>
                  <td>
                    <Link href={`/generation/${run.id}`}>{formatDateTime(run.createdAt)}</Link>
                  </td>
                  <td data-label="State">
                    <Badge tone={toneOf(run.state)}>{RUN_STATE_LABELS[run.state]}</Badge>
                    {run.degraded && (
                      <>
                        {' '}
                        <Badge tone="warning">Degraded</Badge>
                      </>
                    )}
                  </td>
                  <td data-label="Sources">{sourcesText(run.options.sources)}</td>
                  <td data-label="Days" className="num">
                    {run.options.days}
                  </td>
                  <td data-label="Length">{lengthText(run.options.length)}</td>
                  <td data-label="Result">{result(run)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager pager={pager} pageInfo={data?.generationRuns.pageInfo} label="Summaries" />
    </Panel>
  );
}
