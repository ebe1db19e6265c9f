/**
 * The OpenAPI 3.1 `webhooks` section: each event the service POSTs to a subscribed endpoint
 * (docs/webhooks.md#events), its body `{type, timestamp, data}` with the data's schema and an
 * example (src/webhooks/event-payloads.ts), and the Standard Webhooks headers that sign it.
 */
import { WEBHOOK_EVENTS } from '../../src/webhooks/events.ts';
import { WEBHOOK_EVENT_PAYLOADS } from '../../src/webhooks/event-payloads.ts';

const SIGNATURE_HEADERS = {
  'webhook-id': {
    required: true,
    description: 'The message id, `msg_` and 32 hex digits: the same on every attempt and redelivery (drop duplicates by it).',
    schema: { type: 'string', pattern: '^msg_[0-9a-f]{32}$' },
  },
  'webhook-timestamp': { required: true, description: 'When the attempt was sent, in seconds since 1970.', schema: { type: 'string', pattern: '^[0-9]+$' } },
  'webhook-signature': {
    required: true,
    description:
      '`v1,` and the base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>` keyed by the secret; after a rotation, for 24 hours, two of them separated by a space (one per secret).',
    schema: { type: 'string' },
  },
};

const ANSWERS = {
  '2XX': { description: 'Received: any 2xx within 10 seconds ends the delivery. The first 1 KiB of the body is kept on the attempt.' },
  default: {
    description:
      'Anything else (another status, a redirect, no answer within 10 seconds) is a failed attempt, retried on the schedule of docs/webhooks.md#retries.',
  },
};

export function webhooksSection(): Record<string, unknown> {
  return Object.fromEntries(
    WEBHOOK_EVENTS.map((event) => {
      const payload = WEBHOOK_EVENT_PAYLOADS[event.type];
      const owner =
        event.ownerKinds.length > 1 ? 'every endpoint' : event.ownerKinds[0] === 'organization' ? "an organization's endpoints" : "a user's own endpoints";
      return [
        event.type,
        {
          post: {
            operationId: `webhook_${event.type.replace(/\./g, '_')}`,
            summary: event.description.split(/(?<=\.)\s/)[0]!.replace(/\.$/, ''),
            description: `${event.description}\n\nSent to ${owner} subscribed to \`${event.type}\`${event.adminOnly ? ' (subscribing needs the admin scope)' : ''}, signed the Standard Webhooks way (docs/webhooks.md#delivery-and-signatures).`,
            tags: ['webhooks'],
            // The receiver authenticates the request by its signature headers, not by a credential of ours.
            security: [{}],
            parameters: Object.entries(SIGNATURE_HEADERS).map(([name, header]) => ({ name, in: 'header', ...header })),
            requestBody: {
              required: true,
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    properties: {
                      type: { type: 'string', const: event.type },
                      timestamp: { type: 'string', format: 'date-time', description: 'When the event happened.' },
                      data: payload.data,
                    },
                    required: ['type', 'timestamp', 'data'],
                  },
                  example: { type: event.type, timestamp: '2026-03-02T09:14:07.901Z', data: payload.example },
                },
              },
            },
            responses: ANSWERS,
          },
        },
      ];
    }),
  );
}
