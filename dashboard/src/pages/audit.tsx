import { useEffect, useState } from 'react';
import { useQuery } from 'urql';
import { Page, Panel } from '../components/page.tsx';
import { EmptyState, ErrorNotice, Loading } from '../components/notice.tsx';
import { Pager, useCursorPager } from '../components/pager.tsx';
import { formatDateTime } from '../components/format.ts';
import { useDebounced } from '../components/use-debounced.ts';
import { Badge } from '../components/badge.tsx';
import { AUDIT_PAGE_SIZE, AuditEventsQuery, type AuditEventRow } from './audit/api.ts';

const FRONTS = ['rest', 'graphql', 'graphql-ws', 'dashboard', 'mcp', 'cli', 'web', 'system'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface Filters {
  actor: string;
  credential: string;
  front: string;
  operation: string;
  outcome: string;
  since: string;
  until: string;
}

const NO_FILTERS: Filters = { actor: '', credential: '', front: '', operation: '', outcome: '', since: '', until: '' };

/** A date input's day as the start of that day in UTC (null when empty). */
function dayStart(day: string, plusDays = 0): string | null {
  if (!day) return null;
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + plusDays);
  return date.toISOString();
}

/**
 * The audit log (docs/audit.md): your own events, and every event of your organizations when you
 * administer them; filtered by actor, credential, front, operation, outcome and days.
 */
export default function AuditPage() {
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const pager = useCursorPager();
  const debounced = useDebounced(filters);
  const { reset } = pager;
  useEffect(reset, [debounced, reset]);
  const actorProblem = debounced.actor && !UUID.test(debounced.actor.trim()) ? 'An actor is a user id (a UUID).' : null;
  const [{ data, error, fetching }] = useQuery({
    query: AuditEventsQuery,
    pause: actorProblem !== null,
    variables: {
      first: AUDIT_PAGE_SIZE,
      after: pager.after,
      actor: debounced.actor.trim() || null,
      credential: debounced.credential.trim() || null,
      front: debounced.front || null,
      operation: debounced.operation.trim() || null,
      outcome: debounced.outcome.trim() || null,
      since: dayStart(debounced.since),
      until: dayStart(debounced.until, 1),
    },
  });
  const events = data?.auditEvents.edges.map((edge) => edge.node) ?? [];
  const set = (name: keyof Filters) => (e: { target: { value: string } }) => setFilters({ ...filters, [name]: e.target.value });

  return (
    <Page
      title="Audit log"
      intro="Who did what, through which front, with which credential: your own events, and every event of the organizations you administer. Secrets and free text are never shown."
    >
      <Panel title="Events">
        <form className="form-row filters" role="search" aria-label="Filter audit events" onSubmit={(e) => e.preventDefault()}>
          <label>
            Actor (user id)
            <input type="search" value={filters.actor} onChange={set('actor')} maxLength={36} />
          </label>
          <label>
            Credential (id or prefix)
            <input type="search" value={filters.credential} onChange={set('credential')} placeholder="e.g. sk_1a2b3c4d" maxLength={100} />
          </label>
          <label>
            Front
            <select value={filters.front} onChange={set('front')}>
              <option value="">any</option>
              {FRONTS.map((front) => (
                <option key={front} value={front}>
                  {front}
                </option>
              ))}
            </select>
          </label>
          <label>
            Operation
            <input type="search" value={filters.operation} onChange={set('operation')} placeholder="e.g. POST /api/stickies" maxLength={200} />
          </label>
          <label>
            Outcome
            <input type="search" value={filters.outcome} onChange={set('outcome')} placeholder="ok, error or a code" maxLength={50} />
          </label>
          <label>
            From
            <input type="date" value={filters.since} onChange={set('since')} />
          </label>
          <label>
            To
            <input type="date" value={filters.until} onChange={set('until')} />
          </label>
          {JSON.stringify(filters) !== JSON.stringify(NO_FILTERS) && (
            <button type="button" className="button-secondary" onClick={() => setFilters(NO_FILTERS)}>
              Clear the filters
            </button>
          )}
        </form>
        <ErrorNotice error={actorProblem ?? error} title="Could not load the audit log" />
        {fetching && !data && <Loading label="Loading audit events…" />}
        {data && events.length === 0 && <EmptyState>{pager.page === 1 ? 'No event matches these filters.' : 'No more events.'}</EmptyState>}
        {events.length > 0 && <EventTable events={events} />}
        <Pager pager={pager} pageInfo={data?.auditEvents.pageInfo} label="Audit events" />
      </Panel>
    </Page>
  );
}

function EventTable({ events }: { events: AuditEventRow[] }) {
  return (
    <div className="table-wrap" tabIndex={0}>
      <table className="data stack" aria-label="Audit events">
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Operation</th>
            <th scope="col">Outcome</th>
            <th scope="col">Front</th>
            <th scope="col">Actor</th>
            <th scope="col">Credential</th>
            <th scope="col">Target</th>
            <th scope="col">Client</th>
          </tr>
        </thead>
        <tbody>
          {events.map((event) => (
            <tr key={event.id}>
              <td data-label="Time">{formatDateTime(event.occurredAt)}</td>
              <td data-label="Operation">
                <code>{event.operation}</code>
              </td>
              <td data-label="Outcome">
                <Badge tone={event.outcome === 'ok' ? 'success' : 'danger'}>{event.outcome}</Badge>
              </td>
              <td data-label="Front">{event.front}</td>
              <td data-label="Actor">{event.actorId ? <code>{event.actorId}</code> : '—'}</td>
              <td data-label="Credential">
                {event.credential ? `${event.credential.kind}${event.credential.prefix ? ` ${event.credential.prefix}` : ''}` : '—'}
              </td>
              <td data-label="Target">{event.target ? `${event.target.type} ${event.target.id}` : '—'}</td>
              <td data-label="Client" title={event.userAgent ?? undefined}>
                {event.clientAddress ?? '—'}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
