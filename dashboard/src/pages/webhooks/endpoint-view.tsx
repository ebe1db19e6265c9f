import { useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import { useMutation, useQuery } from 'urql';
import { Page, Panel } from '../../components/page.tsx';
import { ErrorNotice, Loading, SuccessNotice } from '../../components/notice.tsx';
import { ConfirmButton } from '../../components/confirm-button.tsx';
import { formatDateTime } from '../../components/format.ts';
import { useViewer } from '../../viewer.tsx';
import {
  DeleteEndpoint,
  EndpointQuery,
  EventTypesQuery,
  RotateSecret,
  SendTest,
  UUID_PATTERN,
  UpdateEndpoint,
  eventTypesFor,
  type WebhookEndpoint,
} from './api.ts';
import { Deliveries } from './deliveries.tsx';
import { EndpointState, EventCheckboxes, SecretShownOnce, useOwnerName } from './parts.tsx';

const BACK = <Link href="/webhooks">← All endpoints</Link>;

/** /webhooks/<id>: one endpoint, what can be done to it, its settings and its deliveries. */
export function EndpointView({ id }: { id: string }) {
  const valid = UUID_PATTERN.test(id);
  const [{ data, error, fetching }] = useQuery({ query: EndpointQuery, variables: { id }, pause: !valid });
  const [deleted, setDeleted] = useState<string | null>(null);
  const [sent, setSent] = useState(0);
  const endpoint = data?.webhookEndpoint;
  if (deleted) {
    return (
      <Page title="Webhook endpoint">
        {BACK}
        <SuccessNotice>The endpoint {deleted} was deleted with its deliveries; nothing more is sent to it.</SuccessNotice>
      </Page>
    );
  }
  if (!valid || (error && !endpoint)) {
    return (
      <Page title="Webhook endpoint">
        {BACK}
        <ErrorNotice error={valid ? error : 'There is no webhook endpoint at this address.'} title="Could not open the endpoint" />
      </Page>
    );
  }
  if (!endpoint) {
    return (
      <Page title="Webhook endpoint">
        {BACK}
        {fetching && <Loading label="Loading the endpoint…" />}
      </Page>
    );
  }
  return (
    <Page title="Webhook endpoint" intro={<span className="webhook-url">{endpoint.url}</span>}>
      {BACK}
      <Actions endpoint={endpoint} onDeleted={() => setDeleted(endpoint.url)} onSent={() => setSent((n) => n + 1)} />
      <Deliveries endpointId={endpoint.id} version={sent} />
      <EditPanel key={endpoint.id} endpoint={endpoint} />
    </Page>
  );
}

/** The endpoint's state and owner, and what can be done to it: test, enable or disable, rotate, delete. */
function Actions({ endpoint, onDeleted, onSent }: { endpoint: WebhookEndpoint; onDeleted: () => void; onSent: () => void }) {
  const ownerName = useOwnerName();
  const [testState, sendTest] = useMutation(SendTest);
  const [toggleState, update] = useMutation(UpdateEndpoint);
  const [rotateState, rotate] = useMutation(RotateSecret);
  const [deleteState, remove] = useMutation(DeleteEndpoint);
  const [notice, setNotice] = useState<string | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const busy = testState.fetching || toggleState.fetching || rotateState.fetching || deleteState.fetching;

  async function onTest() {
    setNotice(null);
    const result = await sendTest({ id: endpoint.id });
    if (result.data) {
      setNotice('A webhook.test event is on its way: follow it in the deliveries below.');
      onSent();
    }
  }
  async function onToggle() {
    setNotice(null);
    const result = await update({ id: endpoint.id, input: { enabled: !endpoint.enabled } });
    if (result.data)
      setNotice(result.data.updated.enabled ? 'Enabled: events are sent to it again.' : 'Disabled: nothing is sent to it until you enable it again.');
  }
  async function onRotate() {
    setNotice(null);
    const result = await rotate({ id: endpoint.id });
    if (result.data) setSecret(result.data.rotated.secret);
  }
  async function onDelete() {
    const result = await remove({ id: endpoint.id });
    if (result.data) onDeleted();
  }

  return (
    <Panel id="endpoint" title="Endpoint">
      <div className="stack">
        <dl className="webhook-facts">
          <dt>State</dt>
          <dd>
            <EndpointState endpoint={endpoint} />
          </dd>
          <dt>Owner</dt>
          <dd>{ownerName(endpoint.organizationId)}</dd>
          <dt>Events</dt>
          <dd>
            {endpoint.events.map((event) => (
              <span key={event} className="tag">
                {event}
              </span>
            ))}
          </dd>
          <dt>Description</dt>
          <dd>{endpoint.description ?? <span className="hint">none</span>}</dd>
          <dt>Created</dt>
          <dd>{formatDateTime(endpoint.createdAt)}</dd>
          {endpoint.previousSecretExpiresAt && (
            <>
              <dt>Previous secret</dt>
              <dd>still signs beside the new one until {formatDateTime(endpoint.previousSecretExpiresAt)}</dd>
            </>
          )}
        </dl>
        <div className="toolbar" role="group" aria-label="Endpoint actions">
          <button type="button" onClick={() => void onTest()} disabled={busy}>
            {testState.fetching ? 'Sending…' : 'Send a test event'}
          </button>
          <button type="button" className="button-secondary" onClick={() => void onToggle()} disabled={busy}>
            {endpoint.enabled ? 'Disable' : 'Enable'}
          </button>
          <ConfirmButton
            className="button-secondary"
            label="Rotate the secret"
            question="Rotate the signing secret? You get a new one, shown once; the current one keeps signing beside it for 24 hours, then stops."
            confirmLabel="Rotate"
            disabled={busy}
            onConfirm={() => void onRotate()}
          />
          <ConfirmButton
            label="Delete"
            ariaLabel="Delete the endpoint"
            question={`Delete the endpoint ${endpoint.url} and its deliveries? Nothing more is sent to it. This cannot be undone.`}
            confirmLabel="Delete"
            disabled={busy}
            onConfirm={() => void onDelete()}
          />
        </div>
        {secret && <SecretShownOnce secret={secret} url={endpoint.url} rotated onDismiss={() => setSecret(null)} />}
        {notice && <SuccessNotice>{notice}</SuccessNotice>}
        <ErrorNotice error={testState.error} title="Could not send a test event" />
        <ErrorNotice error={toggleState.error} title={endpoint.enabled ? 'Could not disable it' : 'Could not enable it'} />
        <ErrorNotice error={rotateState.error} title="Could not rotate the secret" />
        <ErrorNotice error={deleteState.error} title="Could not delete it" />
      </div>
    </Panel>
  );
}

/** Changes the URL, the events and the description; what is unchanged is sent unchanged. */
function EditPanel({ endpoint }: { endpoint: WebhookEndpoint }) {
  const viewer = useViewer();
  const [{ data: types, error: typesError }] = useQuery({ query: EventTypesQuery });
  const [url, setUrl] = useState(endpoint.url);
  const [description, setDescription] = useState(endpoint.description ?? '');
  const [events, setEvents] = useState<string[]>(endpoint.events);
  const [invalid, setInvalid] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const [state, update] = useMutation(UpdateEndpoint);
  // Those open to this kind of endpoint, and any it already has (an admin may keep selftest.failed another admin subscribed).
  const available = types
    ? types.webhookEventTypes.filter(
        (t) => endpoint.events.includes(t.type) || eventTypesFor(types.webhookEventTypes, endpoint.organizationId, viewer.scopes.includes('admin')).includes(t),
      )
    : [];

  async function submit(event: FormEvent) {
    event.preventDefault();
    setSaved(false);
    if (!url.trim()) return setInvalid('Enter the URL the events are sent to.');
    if (events.length === 0) return setInvalid('Choose at least one event.');
    setInvalid(null);
    const result = await update({ id: endpoint.id, input: { url: url.trim(), events, description: description.trim() || null } });
    if (result.data) setSaved(true);
  }

  return (
    <Panel id="settings" title="Settings">
      <form className="stack" onSubmit={submit} aria-label="Endpoint settings" noValidate>
        <label>
          URL
          <input type="url" value={url} onChange={(e) => setUrl(e.target.value)} maxLength={2048} required autoComplete="off" />
        </label>
        <label>
          Description (optional)
          <input value={description} onChange={(e) => setDescription(e.target.value)} maxLength={500} />
        </label>
        <ErrorNotice error={typesError} title="Could not load the event types" />
        {types && <EventCheckboxes types={available} selected={events} onChange={setEvents} invalid={invalid !== null && events.length === 0} />}
        {invalid && (
          <div className="notice notice-error" role="alert">
            {invalid}
          </div>
        )}
        <ErrorNotice error={state.error} title="Could not save the changes" />
        {saved && <SuccessNotice>Saved.</SuccessNotice>}
        <div>
          <button type="submit" disabled={state.fetching}>
            {state.fetching ? 'Saving…' : 'Save changes'}
          </button>
        </div>
      </form>
    </Panel>
  );
}
