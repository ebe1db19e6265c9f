import { useEffect, useMemo, useRef, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { Link } from 'wouter';
import { Page, Panel } from '../../components/page.tsx';
import { EmptyState, ErrorNotice, Loading } from '../../components/notice.tsx';
import { Badge, toneOf } from '../../components/badge.tsx';
import { formatDateTime } from '../../components/format.ts';
import { describeError } from '../../api/errors.ts';
import { useViewer } from '../../viewer.tsx';
import { CancelMutation, RunQuery, isInProgress, type RunDetails, type RunState } from './api.ts';
import { AgentTable, ProgressBar } from './agent-table.tsx';
import { SummaryView } from './summary-view.tsx';
import { lengthText, sourcesText } from './runs-list.tsx';
import {
  RUN_STATE_LABELS,
  agentLabel,
  agentRows,
  outcomeOf,
  overallProgress,
  plannedAgents,
  stateFromEvents,
  type AgentRow,
  type Outcome,
} from './progress.ts';
import { useRunProgress, type RunProgress } from './use-run-progress.ts';

/** The live view of one run: its state, one row per agent, and the summary once it is ready. */
export function RunView({ runId }: { runId: string }) {
  const viewer = useViewer();
  const [{ data, error, fetching }, refresh] = useQuery({ query: RunQuery, variables: { id: runId } });
  const run = data?.generationRun;
  // A run that does not exist (or is not yours) has no feed to follow either.
  const missing = !!error && error.graphQLErrors.length > 0;
  const feed = useRunProgress(runId, !missing);
  const rows = agentRows(feed.events);
  const outcome = useMemo(() => (feed.final ? outcomeOf(feed.final) : null), [feed.final]);
  const state: RunState | null = run?.finished ? run.state : (stateFromEvents(feed.events) ?? run?.state ?? null);
  const [cancelState, cancel] = useMutation(CancelMutation);
  const cancelling = !!run?.cancelRequested || !!cancelState.data?.cancelGeneration.cancelRequested;

  // Once the final event is in, the run is read again for its final state and typed summary (the event's copy shows meanwhile).
  const finishedInFeed = !!feed.final;
  const finishedInQuery = !!run?.finished;
  const refetched = useRef(false);
  useEffect(() => {
    if (!finishedInFeed || finishedInQuery || fetching || refetched.current) return;
    refetched.current = true;
    refresh({ requestPolicy: 'network-only' });
  }, [finishedInFeed, finishedInQuery, fetching, refresh]);

  if (missing) {
    return (
      <Page title="Summary run">
        <ErrorNotice error={error} title="This summary cannot be shown" />
        <p>
          <Link href="/generation">See your summaries</Link>
        </p>
      </Page>
    );
  }

  const canCancel = viewer.scopes.includes('write:workspace') && !!state && isInProgress(state) && !feed.final;
  return (
    <Page
      title="Summary run"
      intro={run ? <RunOptionsLine run={run} /> : undefined}
      actions={
        <>
          {canCancel && (
            <button type="button" className="button-danger" disabled={cancelling || cancelState.fetching} onClick={() => void cancel({ id: runId })}>
              {cancelling ? 'Cancelling…' : 'Cancel run'}
            </button>
          )}
          <Link href="/generation" className="gen-button-link">
            All summaries
          </Link>
        </>
      }
    >
      <ErrorNotice error={cancelState.error} title="Could not cancel the run" />
      <ErrorNotice error={error} title="Could not load the run's details" />
      <StatusPanel state={state} feed={feed} rows={rows} outcome={outcome} run={run} cancelling={cancelling} />
      <Panel id="agents" title="Agents">
        <AgentsBody feed={feed} rows={rows} state={state} />
      </Panel>
      {state === 'completed' && (
        <Panel id="summary" title="Summary">
          {run?.summary ? (
            <SummaryView
              markdown={run.summary}
              references={run.references}
              provider={run.summaryProvider}
              degraded={run.degraded}
              failedAgents={run.failedAgents}
            />
          ) : outcome?.summary ? (
            // The final event has it all: shown at once, before the run is read again.
            <SummaryView
              markdown={outcome.summary}
              references={outcome.references}
              provider={outcome.provider}
              degraded={outcome.degraded}
              failedAgents={outcome.failedAgents}
            />
          ) : (
            <Loading label="Loading the summary…" />
          )}
        </Panel>
      )}
    </Page>
  );
}

function AgentsBody({ feed, rows, state }: { feed: RunProgress; rows: AgentRow[]; state: RunState | null }) {
  if (rows.length > 0) return <AgentTable rows={rows} ended={!!feed.final} />;
  if (feed.connection === 'connecting') return <Loading label="Loading the run's progress…" />;
  if (state === 'queued' || state === null || feed.connection === 'live') {
    const planned = plannedAgents(feed.events);
    return (
      <EmptyState>
        Waiting for a worker to pick the run up; the agents report here as they start.
        {planned.length > 0 && ` Planned: ${planned.map(agentLabel).join(', ')}.`}
      </EmptyState>
    );
  }
  return <EmptyState>No progress received yet: it appears here once the live feed is back.</EmptyState>;
}

function RunOptionsLine({ run }: { run: RunDetails }) {
  return (
    <>
      Started {formatDateTime(run.createdAt)} · last {run.options.days} {run.options.days === 1 ? 'day' : 'days'} · {sourcesText(run.options.sources)} ·{' '}
      {lengthText(run.options.length).toLowerCase()}
      {run.startedAt && run.finishedAt && ` · took ${formatDuration(Date.parse(run.finishedAt) - Date.parse(run.startedAt))}`}
    </>
  );
}

function formatDuration(ms: number): string {
  return ms < 60_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** What a screen reader hears: the run's state, and agents as they fail, not every progress tick. */
function announcement(state: RunState | null, outcome: Outcome | null, failed: string[], cancelling: boolean): string {
  if (outcome) return outcome.message;
  if (state === 'queued') return cancelling ? 'Cancelling the summary.' : 'Summary queued: waiting for a worker.';
  if (state === 'running') {
    const failures = failed.length > 0 ? ` ${failed.map(agentLabel).join(', ')} failed.` : '';
    return `${cancelling ? 'Cancelling the summary.' : 'Summary running.'}${failures}`;
  }
  return '';
}

function StatusPanel(props: {
  state: RunState | null;
  feed: RunProgress;
  rows: AgentRow[];
  outcome: Outcome | null;
  run: RunDetails | undefined;
  cancelling: boolean;
}) {
  const { state, feed, rows, outcome, run, cancelling } = props;
  const failed = rows.filter((row) => row.status === 'failed').map((row) => row.agent);
  const degraded = outcome?.degraded ?? run?.degraded ?? false;
  const progress = state === 'completed' ? 100 : overallProgress(feed.events);
  const endedBadly = state === 'failed' || state === 'cancelled';
  return (
    <Panel id="run-status" title="Progress">
      <div className="gen-run-status">
        <div className="gen-run-state">
          {state ? <Badge tone={toneOf(state)}>{RUN_STATE_LABELS[state]}</Badge> : <Badge>Loading</Badge>}
          {degraded && <Badge tone="warning">Degraded</Badge>}
          {cancelling && !outcome && <Badge tone="neutral">Cancel requested</Badge>}
        </div>
        <div className="gen-run-progress">
          <ProgressBar value={progress} label="Whole run" tone={endedBadly ? 'failed' : state === 'completed' ? 'complete' : undefined} />
          <span className="gen-agent-percent">{progress} %</span>
        </div>
        <ConnectionLine feed={feed} />
      </div>
      <p className="visually-hidden" role="status" aria-live="polite">
        {announcement(state, outcome, failed, cancelling)}
      </p>
      {endedBadly && (
        <div className="notice notice-error gen-run-error">
          <strong>{state === 'cancelled' ? 'Cancelled' : 'Failed'}:</strong> {outcome?.message ?? run?.error ?? 'The run did not complete.'}
          {state === 'failed' && failed.length > 0 && <> Agents that failed: {failed.map(agentLabel).join(', ')}.</>}
        </div>
      )}
      {state === 'completed' && degraded && (
        <p className="hint">
          Completed although {(outcome?.failedAgents ?? run?.failedAgents ?? []).map(agentLabel).join(', ') || 'some agents'} failed: see the summary below.
        </p>
      )}
    </Panel>
  );
}

const clock = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });

/** Whether the page is hearing from the server, and what it does when it is not. */
function ConnectionLine({ feed }: { feed: RunProgress }) {
  const heard = feed.lastHeardAt ? `last heard from the server at ${clock.format(feed.lastHeardAt)}` : '';
  switch (feed.connection) {
    case 'ended':
      return <p className="gen-connection gen-connection-ended">The run has ended; its whole log is shown.</p>;
    case 'connecting':
      return <p className="gen-connection">Connecting to the live feed…</p>;
    case 'live':
      return (
        <p className="gen-connection gen-connection-live">
          <span className="gen-live-dot" aria-hidden="true" /> Live: {heard}
        </p>
      );
    case 'stopped':
      return <ErrorNotice error={feed.problem?.error} title="The live feed stopped" />;
    case 'reconnecting':
      return <Reconnecting feed={feed} heard={heard} />;
  }
}

function Reconnecting({ feed, heard }: { feed: RunProgress; heard: string }) {
  const problem = feed.problem;
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!problem?.retryAt) return;
    const timer = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(timer);
  }, [problem?.retryAt]);
  const reason = (problem?.message || (problem?.error ? describeError(problem.error) : 'The connection dropped.')).replace(/([^.!?])$/, '$1.');
  const wait = problem?.retryAt ? Math.max(0, Math.ceil((problem.retryAt - now) / 1000)) : 0;
  return (
    <div className="notice notice-warning gen-connection-problem" role="status">
      <strong>The live feed was interrupted:</strong> {reason} Reconnecting
      {/* The countdown is for the eye: read out every second it would drown everything else. */}
      <span aria-hidden="true">{wait > 0 ? ` in ${wait} s` : '…'}</span>, from the last event received{heard ? ` (${heard})` : ''}.{' '}
      <button type="button" className="button-secondary button-small" onClick={feed.reconnect} disabled={!problem?.retryAt}>
        Reconnect now
      </button>
    </div>
  );
}
