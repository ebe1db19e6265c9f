/**
 * The webhook event types (docs/webhooks.md#events) and who may subscribe to each. An
 * organization's endpoint receives the organization's events (its files, its reconciliation,
 * self-tests); a user's own endpoint receives that user's workspace events (their summary
 * generations). `webhook.test` is for everyone: it is what "send a test" delivers.
 */
export const WEBHOOK_EVENT_TYPES = [
  'file.processed',
  'file.failed',
  'reconciliation.investigate',
  'generation.completed',
  'generation.failed',
  'selftest.failed',
  'webhook.test',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Whose endpoint an event goes to: an organization's, or a user's own. */
export type WebhookOwnerKind = 'organization' | 'user';

export interface WebhookEventInfo {
  type: WebhookEventType;
  description: string;
  /** The endpoints that may subscribe; `webhook.test` is both kinds'. */
  ownerKinds: readonly WebhookOwnerKind[];
  /** Only a credential with the `admin` scope may subscribe an endpoint to it (self-tests are the service's, not an organization's). */
  adminOnly: boolean;
}

export const WEBHOOK_EVENTS: readonly WebhookEventInfo[] = [
  {
    type: 'file.processed',
    description: "An uploaded file of the organization was loaded: its rows are in the returns (the file's id, name, type and counts).",
    ownerKinds: ['organization'],
    adminOnly: false,
  },
  {
    type: 'file.failed',
    description: 'An uploaded file of the organization could not be loaded (the file, its error and its row errors count).',
    ownerKinds: ['organization'],
    adminOnly: false,
  },
  {
    type: 'reconciliation.investigate',
    description:
      'After an ingest, comparison rows of the organization that are new or changed and classified `investigate`, summarised per file with a link to the filtered comparison.',
    ownerKinds: ['organization'],
    adminOnly: false,
  },
  {
    type: 'generation.completed',
    description: "One of the user's summary generations finished; its result is ready.",
    ownerKinds: ['user'],
    adminOnly: false,
  },
  {
    type: 'generation.failed',
    description: "One of the user's summary generations failed or was cancelled.",
    ownerKinds: ['user'],
    adminOnly: false,
  },
  {
    type: 'selftest.failed',
    description: "A run of the service's self-test found a failing check (subscribed to with the `admin` scope only).",
    ownerKinds: ['organization'],
    adminOnly: true,
  },
  {
    type: 'webhook.test',
    description: 'Sent by "send a test" (`POST /api/webhooks/{id}/test`), whatever the endpoint subscribes to.',
    ownerKinds: ['organization', 'user'],
    adminOnly: false,
  },
];

/**
 * Why an endpoint of this kind may not subscribe to `type` (`adminScope`: the credential asking
 * holds the `admin` scope), or null when it may.
 */
export function subscriptionProblem(type: string, owner: WebhookOwnerKind, adminScope: boolean): string | null {
  const info = WEBHOOK_EVENTS.find((event) => event.type === type);
  if (!info) return `unknown event type ${JSON.stringify(type)}; known: ${WEBHOOK_EVENT_TYPES.join(', ')}`;
  if (!info.ownerKinds.includes(owner)) {
    return owner === 'user'
      ? `${type} is an organization's event: give organizationId to create an organization's endpoint`
      : `${type} is a user's event: create the endpoint without organizationId, as your own`;
  }
  if (info.adminOnly && !adminScope) return `${type} needs a credential with the admin scope`;
  return null;
}
