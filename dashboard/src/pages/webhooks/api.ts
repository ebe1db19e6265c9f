/** The webhook page's GraphQL documents (schema/webhooks.ts) and the types the page reads from them. */
import { graphql, type ResultOf } from '../../api/graphql.ts';

export const DELIVERIES_PAGE_SIZE = 20;
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const EndpointFields = graphql(`
  fragment WebhookEndpointFields on WebhookEndpoint {
    id
    url
    description
    events
    enabled
    disabledReason
    failingSince
    organizationId
    previousSecretExpiresAt
    createdAt
    updatedAt
  }
`);

const DeliveryFields = graphql(`
  fragment WebhookDeliveryFields on WebhookDelivery {
    id
    messageId
    eventType
    status
    attemptCount
    nextAttemptAt
    lastStatusCode
    createdAt
    completedAt
    attempts { number startedAt durationMs statusCode error responseExcerpt }
  }
`);

export const EventTypesQuery = graphql(`
  query DashboardWebhookEventTypes { webhookEventTypes { type description ownerKind adminOnly } }
`);

export const EndpointsQuery = graphql(
  `query DashboardWebhookEndpoints($after: String) {
    webhookEndpoints(first: 50, after: $after) {
      edges { node { ...WebhookEndpointFields } }
      pageInfo { hasNextPage endCursor }
    }
  }`,
  [EndpointFields],
);

export const EndpointQuery = graphql(`query DashboardWebhookEndpoint($id: UUID!) { webhookEndpoint(id: $id) { ...WebhookEndpointFields } }`, [EndpointFields]);

export const DeliveriesQuery = graphql(
  `query DashboardWebhookDeliveries($endpointId: UUID!, $first: Int, $after: String) {
    webhookDeliveries(endpointId: $endpointId, first: $first, after: $after) {
      edges { node { ...WebhookDeliveryFields } }
      pageInfo { hasNextPage endCursor }
    }
  }`,
  [DeliveryFields],
);

export const CreateEndpoint = graphql(
  `mutation DashboardCreateWebhookEndpoint($input: CreateWebhookEndpointInput!) {
    created: createWebhookEndpoint(input: $input) { secret endpoint { ...WebhookEndpointFields } }
  }`,
  [EndpointFields],
);

export const UpdateEndpoint = graphql(
  `mutation DashboardUpdateWebhookEndpoint($id: UUID!, $input: UpdateWebhookEndpointInput!) {
    updated: updateWebhookEndpoint(id: $id, input: $input) { ...WebhookEndpointFields }
  }`,
  [EndpointFields],
);

export const DeleteEndpoint = graphql(`mutation DashboardDeleteWebhookEndpoint($id: UUID!) { deleted: deleteWebhookEndpoint(id: $id) { id url } }`);

export const RotateSecret = graphql(
  `mutation DashboardRotateWebhookSecret($id: UUID!) {
    rotated: rotateWebhookSecret(id: $id) { secret endpoint { ...WebhookEndpointFields } }
  }`,
  [EndpointFields],
);

export const SendTest = graphql(`mutation DashboardSendTestWebhook($id: UUID!) { sent: sendTestWebhook(id: $id) { ...WebhookDeliveryFields } }`, [
  DeliveryFields,
]);

export const Redeliver = graphql(
  `mutation DashboardRedeliverWebhook($endpointId: UUID!, $deliveryId: UUID!) {
    redelivered: redeliverWebhook(endpointId: $endpointId, deliveryId: $deliveryId) { ...WebhookDeliveryFields }
  }`,
  [DeliveryFields],
);

export type WebhookEndpoint = ResultOf<typeof EndpointFields>;
export type WebhookDelivery = ResultOf<typeof DeliveryFields>;
export type WebhookAttempt = WebhookDelivery['attempts'][number];
export type WebhookEventType = ResultOf<typeof EventTypesQuery>['webhookEventTypes'][number];

/** Whose endpoint: an organization's (its id) or the viewer's own (null). */
export type Owner = string | null;

/** The event types an endpoint of this owner may subscribe to, as the service checks them (src/webhooks/events.ts). */
export function eventTypesFor(types: readonly WebhookEventType[], owner: Owner, adminScope: boolean): WebhookEventType[] {
  const kind = owner === null ? 'user' : 'organization';
  return types.filter((t) => (t.ownerKind === 'any' || t.ownerKind === kind) && (!t.adminOnly || adminScope));
}
