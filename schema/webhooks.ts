// GraphQL surface of outbound webhooks (docs/webhooks.md): endpoints, their deliveries and attempts.
// Who sees which endpoint is the service's (src/webhooks/endpoint-service.ts); every field needs write:webhooks.
import { builder } from './builder.ts';
import { forwardPage, toConnection } from './pagination.ts';
import { PAGE_SIZES } from '../src/pagination.ts';
import type { AuthenticatedContext } from '../src/context.ts';
import type { WebhookAttempt } from '../src/generated/prisma/client.ts';
import {
  WEBHOOK_DESCRIPTION_MAX,
  webhookDeliveryCursor,
  webhookEndpointCursor,
  type WebhookActor,
  type WebhookDeliveryWithAttempts,
  type WebhookEndpoint,
  type WebhookEndpointWithSecret,
} from '../src/webhooks/endpoint-service.ts';
import type { WebhookEventInfo } from '../src/webhooks/events.ts';

/** The viewer as the endpoint rules need it: the service decides from these what it may see. */
async function actor(ctx: AuthenticatedContext): Promise<WebhookActor> {
  return {
    userId: ctx.viewer.user.id,
    isAdmin: ctx.viewer.user.role === 'admin',
    adminScope: ctx.viewer.scopes.has('admin'),
    organizationIds: await ctx.organizationIds(),
  };
}

const WebhookDeliveryStatus = builder.enumType('WebhookDeliveryStatus', {
  description: 'PENDING: not yet delivered (an attempt is due at nextAttemptAt); SUCCEEDED: a 2xx answer; FAILED: every attempt failed.',
  values: { PENDING: { value: 'pending' }, SUCCEEDED: { value: 'succeeded' }, FAILED: { value: 'failed' } } as const,
});

const WebhookAttemptRef = builder.objectRef<WebhookAttempt>('WebhookAttempt').implement({
  description: 'One HTTP request of a delivery.',
  fields: (t) => ({
    number: t.exposeInt('number', { description: '1 for the first attempt.' }),
    startedAt: t.expose('startedAt', { type: 'DateTime' }),
    durationMs: t.exposeInt('durationMs'),
    statusCode: t.exposeInt('statusCode', { nullable: true, description: "The receiver's HTTP status; null when there was no answer." }),
    error: t.exposeString('error', { nullable: true, description: 'Why there was no usable answer: a timeout, a refused connection, a refused address...' }),
    responseExcerpt: t.exposeString('responseExcerpt', { nullable: true, description: "The first 1 KiB of the receiver's answer." }),
  }),
});

const WebhookDeliveryRef = builder.objectRef<WebhookDeliveryWithAttempts>('WebhookDelivery').implement({
  description: 'One event sent to one endpoint, with its attempts.',
  fields: (t) => ({
    id: t.expose('id', { type: 'UUID' }),
    messageId: t.exposeString('messageId', {
      description: 'The `webhook-id` header: the same for every endpoint that received the event, and kept on redelivery (receivers de-duplicate on it).',
    }),
    eventType: t.exposeString('eventType'),
    status: t.field({ type: WebhookDeliveryStatus, resolve: (delivery) => delivery.status as 'pending' | 'succeeded' | 'failed' }),
    payload: t.expose('payload', { type: 'JSON', description: 'The exact body sent: `{type, timestamp, data}`.' }),
    attemptCount: t.exposeInt('attemptCount'),
    nextAttemptAt: t.expose('nextAttemptAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When the next attempt is due; null once the delivery has ended.',
    }),
    lastStatusCode: t.exposeInt('lastStatusCode', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    completedAt: t.expose('completedAt', { type: 'DateTime', nullable: true }),
    attempts: t.field({ type: [WebhookAttemptRef], description: 'Oldest first.', resolve: (delivery) => delivery.attempts }),
  }),
});

const WebhookEndpointRef = builder.objectRef<WebhookEndpoint>('WebhookEndpoint').implement({
  description:
    "A URL that receives signed webhook events: an organization's (managed by its admins) or a user's own. Its secret is never shown again after create and rotate.",
  fields: (t) => ({
    id: t.expose('id', { type: 'UUID' }),
    url: t.exposeString('url'),
    description: t.exposeString('description', { nullable: true }),
    events: t.exposeStringList('events', { description: 'The event types it receives (webhookEventTypes lists them).' }),
    enabled: t.exposeBoolean('enabled', { description: 'False: nothing is sent to it (disabled by its owner, or by the service after 5 days of failures).' }),
    disabledReason: t.exposeString('disabledReason', { nullable: true, description: 'Why the service disabled it; null while enabled.' }),
    failingSince: t.expose('failingSince', {
      type: 'DateTime',
      nullable: true,
      description: 'The first failed delivery of the current run of failures; null after a success.',
    }),
    organizationId: t.expose('organizationId', { type: 'UUID', nullable: true, description: "The organization whose endpoint it is; null for a user's own." }),
    previousSecretExpiresAt: t.expose('previousSecretExpiresAt', {
      type: 'DateTime',
      nullable: true,
      description: 'After a rotation: until when the previous secret still signs beside the new one (24 hours).',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    deliveries: t.withAuth({ scope: 'write:webhooks' }).connection({
      type: WebhookDeliveryRef,
      pageSize: PAGE_SIZES.webhookDeliveries,
      description: 'Its deliveries, newest first.',
      resolve: async (endpoint, args, ctx, info) => {
        const page = await ctx.services.webhooks.deliveries(await actor(ctx), endpoint.id, forwardPage(args, info));
        return toConnection(page, webhookDeliveryCursor);
      },
    }),
  }),
});

const WebhookEndpointWithSecretRef = builder.objectRef<WebhookEndpointWithSecret>('WebhookEndpointWithSecret').implement({
  description: 'An endpoint and its signing secret, shown this once.',
  fields: (t) => ({
    endpoint: t.field({ type: WebhookEndpointRef, resolve: (parent) => parent.endpoint }),
    secret: t.exposeString('secret', {
      description: 'The signing secret (`whsec_` + base64), as Standard Webhooks libraries take it. Shown this once; store it now.',
    }),
  }),
});

const WebhookEventTypeInfoRef = builder.objectRef<WebhookEventInfo>('WebhookEventTypeInfo').implement({
  description: 'An event type an endpoint may subscribe to.',
  fields: (t) => ({
    type: t.exposeString('type'),
    description: t.exposeString('description'),
    ownerKind: t.string({
      description: "`organization` (an organization's endpoints), `user` (a user's own) or `any` (both).",
      resolve: (info) => (info.ownerKinds.length > 1 ? 'any' : info.ownerKinds[0]!),
    }),
    adminOnly: t.exposeBoolean('adminOnly', { description: 'Subscribing needs a credential with the admin scope.' }),
  }),
});

const CreateWebhookEndpointInput = builder.inputType('CreateWebhookEndpointInput', {
  fields: (t) => ({
    url: t.string({
      required: true,
      description: 'https: (http: outside production) on a public address; at most 2048 characters. Never followed through redirects.',
    }),
    events: t.stringList({ required: true, description: 'At least one event type open to this kind of endpoint (webhookEventTypes).' }),
    description: t.string({ description: `At most ${WEBHOOK_DESCRIPTION_MAX} characters.` }),
    organizationId: t.field({
      type: 'UUID',
      description: "An organization you are an admin of: the endpoint is the organization's. Leave out for your own endpoint (your summaries' events).",
    }),
  }),
});

const UpdateWebhookEndpointInput = builder.inputType('UpdateWebhookEndpointInput', {
  fields: (t) => ({
    url: t.string({ description: 'A new url (checked as at creation); leave out to keep it.' }),
    events: t.stringList({ description: 'The new set of event types (replaces the old one); leave out to keep it.' }),
    description: t.string({ description: `At most ${WEBHOOK_DESCRIPTION_MAX} characters; null or empty removes it; leave out to keep it.` }),
    enabled: t.boolean({ description: 'false stops deliveries; true starts them again (and clears disabledReason and failingSince).' }),
  }),
});

builder.queryFields((t) => ({
  webhookEndpoints: t.withAuth({ scope: 'write:webhooks' }).connection({
    type: WebhookEndpointRef,
    pageSize: PAGE_SIZES.webhookEndpoints,
    description: 'The webhook endpoints you manage, newest first: your own, and those of the organizations you are an admin of.',
    resolve: async (_parent, args, ctx, info) => {
      const page = await ctx.services.webhooks.list(await actor(ctx), forwardPage(args, info));
      return toConnection(page, webhookEndpointCursor);
    },
  }),
  webhookEndpoint: t.withAuth({ scope: 'write:webhooks' }).field({
    type: WebhookEndpointRef,
    description: 'One webhook endpoint you manage (NOT_FOUND otherwise).',
    args: { id: t.arg({ type: 'UUID', required: true }) },
    resolve: async (_parent, args, ctx) => ctx.services.webhooks.get(await actor(ctx), args.id),
  }),
  webhookDeliveries: t.withAuth({ scope: 'write:webhooks' }).connection({
    type: WebhookDeliveryRef,
    pageSize: PAGE_SIZES.webhookDeliveries,
    description: "A webhook endpoint's deliveries, newest first, each with its attempts.",
    args: { endpointId: t.arg({ type: 'UUID', required: true }) },
    resolve: async (_parent, args, ctx, info) => {
      const page = await ctx.services.webhooks.deliveries(await actor(ctx), args.endpointId, forwardPage(args, info));
      return toConnection(page, webhookDeliveryCursor);
    },
  }),
  webhookEventTypes: t.withAuth({ scope: 'write:webhooks' }).field({
    type: [WebhookEventTypeInfoRef],
    description: 'Every event type, which endpoints may subscribe to it, and what it says.',
    resolve: (_parent, _args, ctx) => ctx.services.webhooks.eventTypes(),
  }),
}));

builder.mutationFields((t) => ({
  createWebhookEndpoint: t.withAuth({ scope: 'write:webhooks' }).field({
    type: WebhookEndpointWithSecretRef,
    description:
      'Registers an endpoint and returns it with its signing secret, shown this once. CONFLICT past WEBHOOK_MAX_ENDPOINTS endpoints per organization (or of your own).',
    args: { input: t.arg({ type: CreateWebhookEndpointInput, required: true }) },
    resolve: async (_parent, { input }, ctx) => ctx.services.webhooks.create(await actor(ctx), input),
  }),
  updateWebhookEndpoint: t.withAuth({ scope: 'write:webhooks' }).field({
    type: WebhookEndpointRef,
    description: 'Changes what it names.',
    args: { id: t.arg({ type: 'UUID', required: true }), input: t.arg({ type: UpdateWebhookEndpointInput, required: true }) },
    resolve: async (_parent, { id, input }, ctx) => ctx.services.webhooks.update(await actor(ctx), id, input),
  }),
  deleteWebhookEndpoint: t.withAuth({ scope: 'write:webhooks' }).field({
    type: WebhookEndpointRef,
    description: 'Deletes the endpoint with its deliveries for good; returns it as it was.',
    args: { id: t.arg({ type: 'UUID', required: true }) },
    resolve: async (_parent, { id }, ctx) => ctx.services.webhooks.delete(await actor(ctx), id),
  }),
  rotateWebhookSecret: t.withAuth({ scope: 'write:webhooks' }).field({
    type: WebhookEndpointWithSecretRef,
    description: 'A new signing secret, shown this once; the previous one keeps signing beside it for 24 hours.',
    args: { id: t.arg({ type: 'UUID', required: true }) },
    resolve: async (_parent, { id }, ctx) => ctx.services.webhooks.rotateSecret(await actor(ctx), id),
  }),
  sendTestWebhook: t.withAuth({ scope: 'write:webhooks' }).field({
    type: WebhookDeliveryRef,
    description: 'Sends a `webhook.test` event to the endpoint (subscribed to it or not); returns the delivery, follow it in deliveries.',
    rateBudget: 'webhooks',
    args: { id: t.arg({ type: 'UUID', required: true }) },
    resolve: async (_parent, { id }, ctx) => ctx.services.webhooks.sendTest(await actor(ctx), id),
  }),
  redeliverWebhook: t.withAuth({ scope: 'write:webhooks' }).field({
    type: WebhookDeliveryRef,
    description: "Sends one of the endpoint's deliveries again, with the same webhook-id and payload; returns the new delivery.",
    rateBudget: 'webhooks',
    args: { endpointId: t.arg({ type: 'UUID', required: true }), deliveryId: t.arg({ type: 'UUID', required: true }) },
    resolve: async (_parent, args, ctx) => ctx.services.webhooks.redeliver(await actor(ctx), args.endpointId, args.deliveryId),
  }),
}));
