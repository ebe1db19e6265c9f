import { useMemo, useState } from 'react';
import { useQuery } from 'urql';
import { graphql } from '../api/graphql.ts';
import { Page, Panel } from '../components/page.tsx';
import { EmptyState, ErrorNotice, Loading } from '../components/notice.tsx';
import { formatDateTime, plural } from '../components/format.ts';
import { UsageChart } from './usage/usage-chart.tsx';
import { byOperation, bucketOf, credentialKey, credentialTotals, timeline, type CredentialTotal, type Granularity, type UsageRow } from './usage/series.ts';
import './usage/usage.css';

const UsageQuery = graphql(`
  query UsagePage($granularity: UsageGranularity!, $since: DateTime!) {
    usage(granularity: $granularity, since: $since, first: 1000) {
      edges { node { bucketStart credential { kind id name prefix } userId front operation requests errors rateLimited p50Ms p95Ms lastSeenAt } }
      pageInfo { hasNextPage }
    }
  }
`);

/** The two windows the page shows: the last two days by hour, the last 30 days by day. */
const WINDOWS: Record<Granularity, { label: string; spanMs: number }> = {
  hour: { label: 'Last 48 hours, by hour', spanMs: 47 * 3_600_000 },
  day: { label: 'Last 30 days, by day', spanMs: 29 * 86_400_000 },
};

const KIND_LABELS: Record<string, string> = { api_key: 'API key', access_token: 'Access token', oauth_token: 'OAuth app', session: 'Browser session' };

function credentialLabel(credential: UsageRow['credential']): string {
  const kind = KIND_LABELS[credential.kind] ?? credential.kind;
  if (credential.name) return `${kind} “${credential.name}”${credential.prefix ? ` (${credential.prefix}…)` : ''}`;
  return credential.kind === 'session' ? kind : `${kind} ${credential.id.slice(0, 8)}`;
}

/**
 * Per-client usage (docs/usage-and-deprecation.md): each credential the viewer may see (their own;
 * an admin's also their organization members'), and for the one chosen its requests and errors over
 * time and per operation. Counts reach the database every USAGE_FLUSH_INTERVAL (10 s).
 */
export default function UsagePage() {
  const [granularity, setGranularity] = useState<Granularity>('hour');
  const [chosen, setChosen] = useState<string | null>(null);
  // The window is fixed when the granularity is chosen (a new one would refetch at every render).
  const range = useMemo(() => {
    const until = new Date();
    return { since: bucketOf(new Date(until.getTime() - WINDOWS[granularity].spanMs), granularity), until };
  }, [granularity]);
  const [{ data, error, fetching }] = useQuery({ query: UsageQuery, variables: { granularity, since: range.since.toISOString() } });
  const rows: UsageRow[] = useMemo(() => data?.usage.edges.map((edge) => edge.node) ?? [], [data]);
  const totals = useMemo(() => credentialTotals(rows), [rows]);
  const current = totals.find((total) => total.key === chosen) ?? totals[0];

  return (
    <Page title="Usage" intro="Requests per credential, operation and front, every instance together (counts arrive within about ten seconds).">
      <div className="toolbar">
        <div className="usage-window" role="group" aria-label="Window">
          {(Object.keys(WINDOWS) as Granularity[]).map((option) => (
            <button key={option} type="button" aria-pressed={granularity === option} onClick={() => setGranularity(option)}>
              {WINDOWS[option].label}
            </button>
          ))}
        </div>
        {totals.length > 0 && current && (
          <label>
            Credential
            <select value={current.key} onChange={(event) => setChosen(event.target.value)}>
              {totals.map((total) => (
                <option key={total.key} value={total.key}>
                  {credentialLabel(total.credential)}
                </option>
              ))}
            </select>
          </label>
        )}
      </div>
      <ErrorNotice error={error} />
      {fetching && !data && <Loading />}
      {data && totals.length === 0 && <EmptyState>No requests with a credential in this window yet.</EmptyState>}
      {current && (
        <CredentialUsage total={current} rows={rows.filter((row) => credentialKey(row.credential) === current.key)} granularity={granularity} range={range} />
      )}
      {totals.length > 0 && <CredentialsTable totals={totals} />}
      {data?.usage.pageInfo.hasNextPage && <p className="hint">Only the newest 1000 rows are shown; GET /api/usage pages through all of them.</p>}
    </Page>
  );
}

function CredentialUsage(props: { total: CredentialTotal; rows: UsageRow[]; granularity: Granularity; range: { since: Date; until: Date } }) {
  const { total, rows, granularity, range } = props;
  const points = useMemo(() => timeline(rows, granularity, range.since, range.until), [rows, granularity, range]);
  const operations = useMemo(() => byOperation(rows), [rows]);
  const label = `${credentialLabel(total.credential)}: ${plural(total.requests, 'request')} and ${plural(total.errors, 'error')}, ${WINDOWS[granularity].label.toLowerCase()}`;
  return (
    <Panel id="credential-usage" title={credentialLabel(total.credential)}>
      <p className="hint">
        {plural(total.requests, 'request')}, {plural(total.errors, 'error')} ({total.rateLimited} rate-limited); last seen {formatDateTime(total.lastSeenAt)}.
      </p>
      <UsageChart points={points} label={label} />
      <div className="table-wrap" tabIndex={0}>
        <table className="data stack" aria-label="Requests per operation">
          <thead>
            <tr>
              <th scope="col">Operation</th>
              <th scope="col">Front</th>
              <th scope="col" className="num">
                Requests
              </th>
              <th scope="col" className="num">
                Errors
              </th>
              <th scope="col" className="num">
                Rate-limited
              </th>
              <th scope="col" className="num">
                Slowest p95
              </th>
            </tr>
          </thead>
          <tbody>
            {operations.map((operation) => (
              <tr key={`${operation.front} ${operation.operation}`}>
                <td data-label="Operation">{operation.operation}</td>
                <td data-label="Front">{operation.front}</td>
                <td data-label="Requests" className="num">
                  {operation.requests}
                </td>
                <td data-label="Errors" className="num">
                  {operation.errors}
                </td>
                <td data-label="Rate-limited" className="num">
                  {operation.rateLimited}
                </td>
                <td data-label="Slowest p95" className="num">
                  {operation.p95Ms === null ? '—' : `≤ ${formatMs(operation.p95Ms)} ms`}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Panel>
  );
}

/** A bucket bound (1.414, 362.039) as it reads best: a tenth of a millisecond under 10 ms, whole ones above. */
function formatMs(ms: number): string {
  return ms < 10 ? ms.toFixed(1) : String(Math.round(ms));
}

function CredentialsTable({ totals }: { totals: CredentialTotal[] }) {
  return (
    <Panel id="credentials" title="All credentials">
      <div className="table-wrap" tabIndex={0}>
        <table className="data stack" aria-label="Requests per credential">
          <thead>
            <tr>
              <th scope="col">Credential</th>
              <th scope="col" className="num">
                Requests
              </th>
              <th scope="col" className="num">
                Errors
              </th>
              <th scope="col">Last seen</th>
            </tr>
          </thead>
          <tbody>
            {totals.map((total) => (
              <tr key={total.key}>
                <td data-label="Credential">{credentialLabel(total.credential)}</td>
                <td data-label="Requests" className="num">
                  {total.requests}
                </td>
                <td data-label="Errors" className="num">
                  {total.errors}
                </td>
                <td data-label="Last seen">{formatDateTime(total.lastSeenAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Panel>
  );
}
