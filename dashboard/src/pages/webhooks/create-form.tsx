import { useState, type FormEvent } from 'react';
import { useMutation, useQuery } from 'urql';
import { ErrorNotice, Loading } from '../../components/notice.tsx';
import { useViewer } from '../../viewer.tsx';
import { CreateEndpoint, EventTypesQuery, eventTypesFor, type Owner, type WebhookEndpoint } from './api.ts';
import { EventCheckboxes } from './parts.tsx';

/**
 * Registers an endpoint: its URL, events and description; an admin chooses whose it is (their own,
 * or one of their organizations'). The secret comes back once, to the caller.
 */
export function CreateEndpointForm({ onCreated }: { onCreated: (created: { secret: string; endpoint: WebhookEndpoint }) => void }) {
  const viewer = useViewer();
  const isAdmin = viewer.user.role === 'admin';
  const adminScope = viewer.scopes.includes('admin');
  const [{ data: types, error: typesError }] = useQuery({ query: EventTypesQuery });
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  // An admin's endpoints are usually the organization's; a member can only have their own.
  const [owner, setOwner] = useState<Owner>(isAdmin ? (viewer.user.organizations[0]?.id ?? null) : null);
  const [events, setEvents] = useState<string[]>([]);
  const [invalid, setInvalid] = useState<string | null>(null);
  const [state, create] = useMutation(CreateEndpoint);
  const available = types ? eventTypesFor(types.webhookEventTypes, owner, adminScope) : [];

  function chooseOwner(next: Owner) {
    setOwner(next);
    // Events the new kind of owner cannot take would only be refused.
    if (types) {
      const allowed = new Set(eventTypesFor(types.webhookEventTypes, next, adminScope).map((t) => t.type));
      setEvents((current) => current.filter((e) => allowed.has(e)));
    }
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!url.trim()) return setInvalid('Enter the URL the events are sent to.');
    if (events.length === 0) return setInvalid('Choose at least one event.');
    setInvalid(null);
    const input = { url: url.trim(), events, ...(description.trim() ? { description: description.trim() } : {}), ...(owner ? { organizationId: owner } : {}) };
    const result = await create({ input });
    if (result.data) {
      onCreated(result.data.created);
      setUrl('');
      setDescription('');
      setEvents([]);
    }
  }

  return (
    <form className="stack" onSubmit={submit} aria-label="New webhook endpoint" noValidate>
      <div className="form-row">
        <label className="webhook-url-field">
          URL
          <input
            type="url"
            value={url}
            onChange={(e) => setUrl(e.target.value)}
            maxLength={2048}
            placeholder="https://hooks.example.com/gateway"
            required
            autoComplete="off"
          />
        </label>
        {isAdmin && (
          <label>
            Owner
            <select value={owner ?? ''} onChange={(e) => chooseOwner(e.target.value || null)}>
              {viewer.user.organizations.map((org) => (
                <option key={org.id} value={org.id}>
                  {org.name} (organization)
                </option>
              ))}
              <option value="">You (your own summaries)</option>
            </select>
          </label>
        )}
      </div>
      <label>
        Description (optional)
        <input value={description} onChange={(e) => setDescription(e.target.value)} maxLength={500} placeholder="e.g. back office" />
      </label>
      <ErrorNotice error={typesError} title="Could not load the event types" />
      {!types && !typesError && <Loading label="Loading the event types…" />}
      {types && <EventCheckboxes types={available} selected={events} onChange={setEvents} invalid={invalid !== null && events.length === 0} />}
      {invalid && (
        <div className="notice notice-error" role="alert">
          {invalid}
        </div>
      )}
      <ErrorNotice error={state.error} title="Could not create the endpoint" />
      <div>
        <button type="submit" disabled={state.fetching}>
          {state.fetching ? 'Creating…' : 'Create endpoint'}
        </button>
      </div>
    </form>
  );
}
