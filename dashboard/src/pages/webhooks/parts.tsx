/** Pieces both webhook views use: the event checkboxes, the secret shown once, an endpoint's owner and state. */
import { useId } from 'react';
import { Badge } from '../../components/badge.tsx';
import { CopyButton } from '../../components/copy-button.tsx';
import { formatDateTime } from '../../components/format.ts';
import { useViewer } from '../../viewer.tsx';
import type { WebhookEndpoint, WebhookEventType } from './api.ts';

/** A checkbox per event type, each with what it means. */
export function EventCheckboxes(props: {
  types: readonly WebhookEventType[];
  selected: readonly string[];
  onChange: (events: string[]) => void;
  invalid?: boolean;
}) {
  const hintId = useId();
  return (
    <fieldset className="webhook-events" aria-describedby={hintId} aria-invalid={props.invalid || undefined}>
      <legend>Events</legend>
      <p className="hint" id={hintId}>
        The events sent to this endpoint. A test event can be sent to it whatever it subscribes to.
      </p>
      <div className="scope-list">
        {props.types.map((t) => (
          <label key={t.type} className="checkbox scope-option">
            <input
              type="checkbox"
              name="events"
              value={t.type}
              checked={props.selected.includes(t.type)}
              onChange={(e) => props.onChange(e.target.checked ? [...props.selected, t.type] : props.selected.filter((s) => s !== t.type))}
            />
            <span>
              <code className="scope-name">{t.type}</code>{' '}
              <span className="scope-description">
                <CodeSpans text={t.description} />
              </span>
            </span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}

/** The service's descriptions are Markdown: `code` spans shown as code, the rest as text. */
function CodeSpans({ text }: { text: string }) {
  return <>{text.split('`').map((part, index) => (index % 2 === 1 ? <code key={index}>{part}</code> : part))}</>;
}

/** A signing secret, shown once after create or rotate: it cannot be read again. */
export function SecretShownOnce(props: { secret: string; url: string; rotated: boolean; onDismiss: () => void }) {
  return (
    <div className="notice notice-warning secret" role="status" aria-live="polite">
      <strong>
        {props.rotated ? 'The new signing secret' : 'The signing secret'} of {props.url}. Copy it now: it is shown only now and cannot be read again (lost,
        rotate it).
      </strong>
      <div className="secret-value">
        <code data-testid="webhook-secret">{props.secret}</code>
        <CopyButton text={props.secret} label="Copy the secret" />
      </div>
      {props.rotated && (
        <p className="hint">The previous secret keeps signing beside this one for 24 hours, so your receiver can switch without missing a delivery.</p>
      )}
      <div>
        <button type="button" className="button-secondary button-small" onClick={props.onDismiss}>
          I have stored it
        </button>
      </div>
    </div>
  );
}

/** Whose endpoint it is, in words: "you" or the organization's name. */
export function useOwnerName(): (organizationId: string | null) => string {
  const viewer = useViewer();
  return (organizationId) => {
    if (organizationId === null) return 'You';
    return viewer.user.organizations.find((o) => o.id === organizationId)?.name ?? `Organization ${organizationId}`;
  };
}

/** Enabled, failing, or disabled with the reason the service gave. */
export function EndpointState({ endpoint }: { endpoint: WebhookEndpoint }) {
  if (!endpoint.enabled) {
    return (
      <div className="webhook-state">
        <Badge tone="danger">Disabled</Badge>
        {endpoint.failingSince && <span>Failing since {formatDateTime(endpoint.failingSince)}</span>}
        <span className="hint">{endpoint.disabledReason ?? 'Turned off by its owner: nothing is sent to it until it is enabled again.'}</span>
      </div>
    );
  }
  if (endpoint.failingSince) {
    return (
      <div className="webhook-state">
        <Badge tone="warning">Failing</Badge>
        <span className="hint">Failing since {formatDateTime(endpoint.failingSince)}</span>
      </div>
    );
  }
  return <Badge tone="success">Enabled</Badge>;
}
