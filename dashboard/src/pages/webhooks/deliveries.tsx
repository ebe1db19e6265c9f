import { Fragment, useCallback, useEffect, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { Panel } from '../../components/page.tsx';
import { Badge, type Tone } from '../../components/badge.tsx';
import { EmptyState, ErrorNotice, Loading, SuccessNotice } from '../../components/notice.tsx';
import { Pager, useCursorPager } from '../../components/pager.tsx';
import { formatDateTime } from '../../components/format.ts';
import { usePolling } from '../../api/use-polling.ts';
import { DELIVERIES_PAGE_SIZE, DeliveriesQuery, Redeliver, type WebhookAttempt, type WebhookDelivery } from './api.ts';

const COLUMNS = 7;
/** How often the list is read again while a delivery is still pending (its retries run in the background). */
const POLL_MS = 2000;

/** An attempt's time to the second: retries can be seconds apart. */
const attemptTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

const STATUS: Record<WebhookDelivery['status'], { label: string; tone: Tone }> = {
  PENDING: { label: 'pending', tone: 'info' },
  SUCCEEDED: { label: 'succeeded', tone: 'success' },
  FAILED: { label: 'failed', tone: 'danger' },
};

/**
 * An endpoint's deliveries, newest first, read again while one is pending; each opens its attempts
 * beneath it and can be sent again. `version` changes when the page sent a new one (a test event).
 */
export function Deliveries({ endpointId, version }: { endpointId: string; version: number }) {
  const pager = useCursorPager();
  const [{ data, error, fetching }, refresh] = useQuery({
    query: DeliveriesQuery,
    variables: { endpointId, first: DELIVERIES_PAGE_SIZE, after: pager.after },
  });
  const deliveries = data?.webhookDeliveries.edges.map((edge) => edge.node) ?? [];
  const reload = useCallback(() => refresh({ requestPolicy: 'network-only' }), [refresh]);
  usePolling(
    reload,
    POLL_MS,
    deliveries.some((d) => d.status === 'PENDING'),
  );
  const { reset } = pager;
  useEffect(() => {
    // A delivery the page just made is the newest: back to the first page, read afresh.
    if (version > 0) {
      reset();
      reload();
    }
  }, [version, reset, reload]);
  return (
    <Panel
      id="deliveries"
      title="Deliveries"
      actions={
        <button type="button" className="button-secondary button-small" onClick={reload}>
          Refresh
        </button>
      }
    >
      <ErrorNotice error={error} title="Could not load the deliveries" />
      {fetching && !data && <Loading label="Loading the deliveries…" />}
      {data && deliveries.length === 0 && (
        <EmptyState>{pager.page === 1 ? 'Nothing has been sent to this endpoint yet. Send a test event to try it.' : 'No more deliveries.'}</EmptyState>
      )}
      {deliveries.length > 0 && <DeliveryTable endpointId={endpointId} deliveries={deliveries} onRedelivered={reload} />}
      <Pager pager={pager} pageInfo={data?.webhookDeliveries.pageInfo} label="Deliveries" />
    </Panel>
  );
}

function DeliveryTable({ endpointId, deliveries, onRedelivered }: { endpointId: string; deliveries: WebhookDelivery[]; onRedelivered: () => void }) {
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const [redeliverState, redeliver] = useMutation(Redeliver);
  const [redelivered, setRedelivered] = useState<WebhookDelivery | null>(null);
  const toggle = (id: string) =>
    setOpen((current) => {
      const next = new Set(current);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  async function onRedeliver(delivery: WebhookDelivery) {
    setRedelivered(null);
    const result = await redeliver({ endpointId, deliveryId: delivery.id });
    if (result.data) {
      setRedelivered(delivery);
      onRedelivered();
    }
  }
  return (
    <>
      <ErrorNotice error={redeliverState.error} title="Could not redeliver" />
      {redelivered && (
        <SuccessNotice>
          The {redelivered.eventType} event was sent again (the same webhook-id, <code className="webhook-url">{redelivered.messageId}</code>): it is the new
          delivery at the top.
        </SuccessNotice>
      )}
      <div className="table-wrap" tabIndex={0}>
        <table className="data stack deliveries-table" aria-label="Deliveries">
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Status</th>
              <th scope="col" className="num">
                Attempts
              </th>
              <th scope="col" className="num">
                Last status code
              </th>
              <th scope="col">Next attempt</th>
              <th scope="col">Created</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {deliveries.map((delivery) => {
              const expanded = open.has(delivery.id);
              const panelId = `attempts-${delivery.id}`;
              const status = STATUS[delivery.status];
              return (
                <Fragment key={delivery.id}>
                  <tr data-delivery-id={delivery.id}>
                    <th scope="row" className="row-name">
                      <code>{delivery.eventType}</code>
                    </th>
                    <td data-label="Status">
                      <Badge tone={status.tone}>{status.label}</Badge>
                    </td>
                    <td data-label="Attempts" className="num">
                      {delivery.attemptCount}
                    </td>
                    <td data-label="Last status" className="num">
                      {delivery.lastStatusCode ?? '—'}
                    </td>
                    <td data-label="Next attempt">{delivery.nextAttemptAt ? formatDateTime(delivery.nextAttemptAt) : '—'}</td>
                    <td data-label="Created">
                      <time dateTime={delivery.createdAt}>{formatDateTime(delivery.createdAt)}</time>
                    </td>
                    <td>
                      <div className="delivery-actions">
                        <button
                          type="button"
                          className="button-secondary button-small"
                          aria-expanded={expanded}
                          aria-controls={panelId}
                          onClick={() => toggle(delivery.id)}
                          disabled={delivery.attempts.length === 0}
                        >
                          {expanded ? 'Hide attempts' : 'Show attempts'}
                          <span className="visually-hidden">
                            {' '}
                            of the {delivery.eventType} delivery of {formatDateTime(delivery.createdAt)}
                          </span>
                        </button>
                        <button
                          type="button"
                          className="button-secondary button-small"
                          disabled={redeliverState.fetching}
                          onClick={() => void onRedeliver(delivery)}
                        >
                          Redeliver
                          <span className="visually-hidden">
                            {' '}
                            the {delivery.eventType} delivery of {formatDateTime(delivery.createdAt)}
                          </span>
                        </button>
                      </div>
                    </td>
                  </tr>
                  {expanded && (
                    <tr className="attempts-row" id={panelId}>
                      <td colSpan={COLUMNS}>
                        <Attempts delivery={delivery} />
                      </td>
                    </tr>
                  )}
                </Fragment>
              );
            })}
          </tbody>
        </table>
      </div>
    </>
  );
}

function Attempts({ delivery }: { delivery: WebhookDelivery }) {
  return (
    <div className="attempts">
      <p className="attempts-caption">
        Attempts of <code>{delivery.messageId}</code>
      </p>
      <table className="data stack" aria-label={`Attempts of the ${delivery.eventType} delivery`}>
        <thead>
          <tr>
            <th scope="col" className="num">
              #
            </th>
            <th scope="col">Time</th>
            <th scope="col" className="num">
              Status code
            </th>
            <th scope="col" className="num">
              Duration
            </th>
            <th scope="col">Error</th>
            <th scope="col">Response</th>
          </tr>
        </thead>
        <tbody>
          {delivery.attempts.map((attempt) => (
            <AttemptRow key={attempt.number} attempt={attempt} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function AttemptRow({ attempt }: { attempt: WebhookAttempt }) {
  return (
    <tr>
      <th scope="row" className="row-name num">
        <span className="visually-hidden">Attempt </span>
        {attempt.number}
      </th>
      <td data-label="Time">
        <time dateTime={attempt.startedAt}>{attemptTime.format(new Date(attempt.startedAt))}</time>
      </td>
      <td data-label="Status code" className="num">
        {attempt.statusCode ?? 'no answer'}
      </td>
      <td data-label="Duration" className="num">
        {attempt.durationMs} ms
      </td>
      <td data-label="Error">{attempt.error ?? '—'}</td>
      <td data-label="Response">{attempt.responseExcerpt ? <pre className="response-excerpt">{attempt.responseExcerpt}</pre> : '—'}</td>
    </tr>
  );
}
