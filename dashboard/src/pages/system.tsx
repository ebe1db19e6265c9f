import { useCallback } from 'react';
import { useMutation, useQuery } from 'urql';
import { graphql, type ResultOf } from '../api/graphql.ts';
import { Page, Panel } from '../components/page.tsx';
import { EmptyState, ErrorNotice, Loading, SuccessNotice } from '../components/notice.tsx';
import { Badge, toneOf } from '../components/badge.tsx';
import { formatBytes, formatDateTime, plural } from '../components/format.ts';
import { usePolling } from '../api/use-polling.ts';
import { useViewer } from '../viewer.tsx';

const SelfTestRunFields = graphql(`
  fragment SelfTestRunFields on SelfTestRun { id status trigger startedAt finishedAt durationMs checks { name passed durationMs detail } }
`);
const CheckFields = graphql(`fragment HealthCheckFields on HealthCheck { status kind latencyMs freeBytes error }`);

type SelfTestRun = ResultOf<typeof SelfTestRunFields>;
type Check = ResultOf<typeof CheckFields>;

const SystemQuery = graphql(
  `
  query SystemPage {
    health(detailed: true) {
      status version uptimeSeconds checkedAt
      checks { database { ...HealthCheckFields } storage { ...HealthCheckFields } jobQueue { status queued running completed failed } }
    }
    serviceStatus { worker { state currentJobId processed failed lastPollAt } scheduler { state enabled cron nextRunAt } }
    selfTestHistory(limit: 20) { ...SelfTestRunFields }
  }
`,
  [CheckFields, SelfTestRunFields],
);
const TriggerSelfTest = graphql(`mutation TriggerSelfTest { triggerSelfTest { ...SelfTestRunFields } }`, [SelfTestRunFields]);

export default function SystemPage() {
  const viewer = useViewer();
  const [{ data, error, fetching }, refresh] = useQuery({ query: SystemQuery });
  const [trigger, runSelfTest] = useMutation(TriggerSelfTest);
  const reload = useCallback(() => refresh({ requestPolicy: 'network-only' }), [refresh]);
  const running = data?.serviceStatus.scheduler.state === 'running' || data?.selfTestHistory.some((run) => run.status === 'running');
  // Fast while a self-test runs, so its result appears as it finishes; slow otherwise.
  usePolling(reload, running ? 1000 : 10_000, true);
  const canTrigger = viewer.scopes.includes('admin');

  return (
    <Page
      title="System"
      intro="The service's health, its background worker and the scheduled self-test."
      actions={
        <button
          type="button"
          onClick={() => void runSelfTest({}).then(reload)}
          disabled={!canTrigger || trigger.fetching || running}
          title={canTrigger ? undefined : 'Needs the admin scope'}
        >
          {running ? 'Self-test running…' : 'Run self-test now'}
        </button>
      }
    >
      {!canTrigger && <p className="hint">Running the self-test by hand needs an administrator.</p>}
      <ErrorNotice error={trigger.error} title="Could not start the self-test" />
      {trigger.data && !trigger.error && <SuccessNotice>Self-test started; its result appears below when it finishes.</SuccessNotice>}
      <ErrorNotice error={error} />
      {fetching && !data && <Loading />}
      {data && (
        <>
          <div className="cards">
            <Stat
              label="Service"
              value={<Badge tone={toneOf(data.health.status)}>{data.health.status}</Badge>}
              detail={`version ${data.health.version ?? '?'}, up ${formatUptime(data.health.uptimeSeconds)}`}
            />
            {data.health.checks && (
              <>
                <Stat
                  label="Database"
                  value={<Badge tone={data.health.checks.database.status === 'up' ? 'success' : 'danger'}>{data.health.checks.database.status}</Badge>}
                  detail={checkDetail(data.health.checks.database)}
                />
                <Stat
                  label="File storage"
                  value={<Badge tone={data.health.checks.storage.status === 'up' ? 'success' : 'danger'}>{data.health.checks.storage.status}</Badge>}
                  detail={checkDetail(data.health.checks.storage)}
                />
                <Stat
                  label="Job queue"
                  value={<Badge tone={toneOf(data.health.checks.jobQueue.status)}>{data.health.checks.jobQueue.status}</Badge>}
                  detail={`${data.health.checks.jobQueue.queued ?? 0} queued, ${data.health.checks.jobQueue.running ?? 0} running, ${data.health.checks.jobQueue.failed ?? 0} failed`}
                />
              </>
            )}
            <Stat
              label="Worker"
              value={<Badge tone={data.serviceStatus.worker.state === 'stopped' ? 'danger' : 'success'}>{data.serviceStatus.worker.state}</Badge>}
              detail={`${plural(data.serviceStatus.worker.processed, 'job')} done, ${data.serviceStatus.worker.failed} failed; last poll ${formatDateTime(data.serviceStatus.worker.lastPollAt, 'never')}`}
            />
            <Stat
              label="Self-test scheduler"
              value={
                <Badge tone={data.serviceStatus.scheduler.enabled ? toneOf(data.serviceStatus.scheduler.state) : 'neutral'}>
                  {data.serviceStatus.scheduler.state}
                </Badge>
              }
              detail={
                data.serviceStatus.scheduler.enabled
                  ? `cron ${data.serviceStatus.scheduler.cron}; next run ${formatDateTime(data.serviceStatus.scheduler.nextRunAt)}`
                  : 'disabled (SELF_TEST_ENABLED=false)'
              }
            />
          </div>
          <Panel id="self-tests" title="Self-test history">
            {data.selfTestHistory.length === 0 ? <EmptyState>No self-test has run yet.</EmptyState> : <SelfTestTable runs={data.selfTestHistory} />}
          </Panel>
        </>
      )}
    </Page>
  );
}

function Stat({ label, value, detail }: { label: string; value: React.ReactNode; detail?: string }) {
  return (
    <div className="card stat">
      <span className="stat-label">{label}</span>
      <span className="stat-value">{value}</span>
      {detail && <span className="hint">{detail}</span>}
    </div>
  );
}

function SelfTestTable({ runs }: { runs: SelfTestRun[] }) {
  return (
    <div className="table-wrap" tabIndex={0}>
      <table className="data stack" aria-label="Self-test history">
        <thead>
          <tr>
            <th scope="col">Started</th>
            <th scope="col">Trigger</th>
            <th scope="col">Status</th>
            <th scope="col" className="num">
              Duration
            </th>
            <th scope="col">Checks</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((run) => (
            <tr key={run.id}>
              <td>{formatDateTime(run.startedAt)}</td>
              <td data-label="Trigger">{run.trigger}</td>
              <td data-label="Status">
                <Badge tone={toneOf(run.status)}>{run.status}</Badge>
              </td>
              <td data-label="Duration" className="num">
                {run.durationMs === null ? '—' : `${run.durationMs} ms`}
              </td>
              <td data-label="Checks">
                {run.checks.map((check) => (
                  <span key={check.name} className="tag" title={check.detail ?? undefined}>
                    {check.passed ? '✓' : '✗'} {check.name}
                    {!check.passed && check.detail ? `: ${check.detail}` : ''}
                  </span>
                ))}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function checkDetail(check: Check): string {
  if (check.error) return check.error;
  const parts = [
    check.kind,
    check.latencyMs !== null ? `${check.latencyMs.toFixed(1)} ms` : null,
    check.freeBytes !== null ? `${formatBytes(check.freeBytes)} free` : null,
  ];
  return parts.filter(Boolean).join(', ');
}

function formatUptime(seconds: number | null): string {
  if (seconds === null) return '?';
  if (seconds < 120) return `${Math.round(seconds)} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}
