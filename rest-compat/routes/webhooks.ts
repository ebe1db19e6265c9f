import { list, noContent, single, type RestRoute } from '../route.ts';

const ENDPOINT_FIELDS = 'id url description events enabled disabledReason failingSince organizationId previousSecretExpiresAt createdAt updatedAt';
const ATTEMPT_FIELDS = 'number startedAt durationMs statusCode error responseExcerpt';
const DELIVERY_FIELDS = `id messageId eventType status payload attemptCount nextAttemptAt lastStatusCode createdAt completedAt attempts { ${ATTEMPT_FIELDS} }`;

/**
 * Outbound webhooks (docs/webhooks.md): endpoints, their signing secrets (in the create and
 * rotate answers only), test events, deliveries and redelivery. Every route needs `write:webhooks`;
 * an endpoint the caller does not manage is 404. Paging: `limit` and `cursor`.
 */
export const webhooksRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/api/webhooks',
    summary: "The webhook endpoints you manage, newest first: your own and your organizations' (as their admin).",
    params: { limit: 'first', cursor: 'after' },
    operation: `query WebhookEndpoints($first: Int, $after: String) {
      webhookEndpoints(first: $first, after: $after) {
        edges { node { ${ENDPOINT_FIELDS} } }
        pageInfo { hasNextPage endCursor }
      } }`,
    respond: list('webhookEndpoints'),
  },
  {
    method: 'POST',
    path: '/api/webhooks',
    summary:
      "Register an endpoint (`url`, `events`, optional `description`, `organization_id` for an organization's): 201 with the endpoint and its signing `secret`, shown this once.",
    body: 'json',
    status: 201,
    operation: `mutation CreateWebhookEndpoint($url: String!, $events: [String!]!, $description: String, $organizationId: UUID) {
      createWebhookEndpoint(input: { url: $url, events: $events, description: $description, organizationId: $organizationId }) {
        endpoint { ${ENDPOINT_FIELDS} } secret } }`,
    respond: single('createWebhookEndpoint'),
  },
  {
    method: 'GET',
    path: '/api/webhooks/:id',
    summary: 'One webhook endpoint (never its secret).',
    operation: `query WebhookEndpoint($id: UUID!) { webhookEndpoint(id: $id) { ${ENDPOINT_FIELDS} } }`,
    respond: single('webhookEndpoint'),
  },
  {
    method: 'PATCH',
    path: '/api/webhooks/:id',
    summary: 'Change `url`, `events`, `description` and/or `enabled` (what is left out stays).',
    body: 'json',
    operation: `mutation UpdateWebhookEndpoint($id: UUID!, $url: String, $events: [String!], $description: String, $enabled: Boolean) {
      updateWebhookEndpoint(id: $id, input: { url: $url, events: $events, description: $description, enabled: $enabled }) { ${ENDPOINT_FIELDS} } }`,
    respond: single('updateWebhookEndpoint'),
  },
  {
    method: 'DELETE',
    path: '/api/webhooks/:id',
    summary: 'Delete an endpoint and its deliveries for good: 204.',
    status: 204,
    operation: `mutation DeleteWebhookEndpoint($id: UUID!) { deleteWebhookEndpoint(id: $id) { id } }`,
    respond: noContent,
  },
  {
    method: 'POST',
    path: '/api/webhooks/:id/rotate-secret',
    summary: 'A new signing `secret`, shown this once; the previous one keeps signing beside it for 24 hours.',
    operation: `mutation RotateWebhookSecret($id: UUID!) { rotateWebhookSecret(id: $id) { endpoint { ${ENDPOINT_FIELDS} } secret } }`,
    respond: single('rotateWebhookSecret'),
  },
  {
    method: 'POST',
    path: '/api/webhooks/:id/test',
    summary: 'Send a `webhook.test` event to the endpoint: 202 with the delivery (follow it in its deliveries).',
    status: 202,
    operation: `mutation SendTestWebhook($id: UUID!) { sendTestWebhook(id: $id) { ${DELIVERY_FIELDS} } }`,
    respond: single('sendTestWebhook'),
  },
  {
    method: 'GET',
    path: '/api/webhooks/:id/deliveries',
    summary: "The endpoint's deliveries, newest first, each with its attempts (status, duration, response excerpt) and next attempt.",
    params: { id: 'endpointId', limit: 'first', cursor: 'after' },
    operation: `query WebhookDeliveries($endpointId: UUID!, $first: Int, $after: String) {
      webhookDeliveries(endpointId: $endpointId, first: $first, after: $after) {
        edges { node { ${DELIVERY_FIELDS} } }
        pageInfo { hasNextPage endCursor }
      } }`,
    respond: list('webhookDeliveries'),
  },
  {
    method: 'POST',
    path: '/api/webhooks/:id/deliveries/:delivery_id/redeliver',
    summary: 'Send a delivery again (same `webhook-id` and payload): 202 with the new delivery.',
    status: 202,
    params: { id: 'endpointId' },
    operation: `mutation RedeliverWebhook($endpointId: UUID!, $deliveryId: UUID!) {
      redeliverWebhook(endpointId: $endpointId, deliveryId: $deliveryId) { ${DELIVERY_FIELDS} } }`,
    respond: single('redeliverWebhook'),
  },
];
