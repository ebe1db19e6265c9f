import type { Prisma, PrismaClient, WebhookAttempt, WebhookDelivery, WebhookEndpoint } from '../generated/prisma/client.ts';
import { AppError } from '../errors.ts';
import { decodeCursor, encodeCursor, instantAndId, keysetPage, type Page } from '../pagination.ts';
import { checkWebhookUrl } from './address-guard.ts';
import { subscriptionProblem, WEBHOOK_EVENTS, type WebhookEventInfo, type WebhookOwnerKind } from './events.ts';
import { encryptSecret, newWebhookSecret } from './secrets.ts';

export type { WebhookEndpoint };
export type WebhookDeliveryWithAttempts = WebhookDelivery & { attempts: WebhookAttempt[] };

/** A description longer than this is refused (400 naming `description`). */
export const WEBHOOK_DESCRIPTION_MAX = 500;
/** A url longer than this is refused (400 naming `url`). */
export const WEBHOOK_URL_MAX = 2048;
/** After a rotation the previous secret keeps signing beside the new one this long (Standard Webhooks allows several signatures). */
export const PREVIOUS_SECRET_OVERLAP_MS = 24 * 3_600_000;

/**
 * Who is asking, as the endpoint rules need it. The schema builds it from the viewer (every field
 * already requires `write:webhooks`, which `admin` implies); this service alone decides what it may see.
 */
export interface WebhookActor {
  userId: string;
  /** The user's role is admin: an admin of each organization they are a member of. */
  isAdmin: boolean;
  /** The credential holds the `admin` scope (needed for `selftest.failed`). */
  adminScope: boolean;
  organizationIds: ReadonlySet<string>;
}

/** The delivery side's entry points (src/webhooks/dispatch.ts, WebhookDispatcher) this service calls after its access check. */
export interface WebhookSender {
  sendTest(endpointId: string): Promise<string>;
  redeliver(deliveryId: string): Promise<string>;
}

export interface CreateWebhookEndpointInput {
  url: string;
  events: readonly string[];
  description?: string | null;
  /** Set: the organization's endpoint (the actor must be its admin); absent: the actor's own. */
  organizationId?: string | null;
}

export interface UpdateWebhookEndpointInput {
  url?: string | null;
  events?: readonly string[] | null;
  description?: string | null;
  enabled?: boolean | null;
}

/** An endpoint with its signing secret: only the create and rotate answers carry one. */
export interface WebhookEndpointWithSecret {
  endpoint: WebhookEndpoint;
  secret: string;
}

export interface WebhookEndpointServiceOptions {
  prisma: PrismaClient;
  /** The AES-256 key of the stored secrets (webhookSecretKey in secrets.ts). */
  secretKey: Buffer;
  /** WEBHOOK_MAX_ENDPOINTS: per organization, and per user for their own. */
  maxEndpoints: number;
  /** The address guard's options (WEBHOOK_ALLOW_PRIVATE; NODE_ENV=production refuses http:). */
  urlPolicy: { allowPrivate: boolean; production: boolean };
  /** Resolved late: the dispatcher is built after this service. */
  sender: () => WebhookSender;
}

const ENDPOINT_CURSOR = instantAndId('t', 'id');

/**
 * Webhook endpoints (docs/webhooks.md#endpoints): who sees and manages which, the caps, the
 * validation of what is registered and the signing secrets. An organization's endpoints belong to
 * its admins (an admin user who is its member); a user's own endpoints to that user. Everyone
 * else is told an endpoint does not exist (404), never that it is someone else's. Delivering is
 * the dispatcher's (dispatch.ts): this service checks access and hands it the ids.
 */
export class WebhookEndpointService {
  constructor(private readonly options: WebhookEndpointServiceOptions) {}

  private get prisma() {
    return this.options.prisma;
  }

  /** Every event type, whose endpoints may subscribe, and what it says. */
  eventTypes(): readonly WebhookEventInfo[] {
    return WEBHOOK_EVENTS;
  }

  /** The endpoints the actor manages, newest first. */
  async list(actor: WebhookActor, page: { limit: number; cursor?: string | null }): Promise<Page<WebhookEndpoint>> {
    const after = page.cursor ? decodeCursor(page.cursor, ENDPOINT_CURSOR, 'list') : null;
    const rows = await this.prisma.webhookEndpoint.findMany({
      where: { AND: [visibleTo(actor), after ? olderThan(after) : {}] },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: page.limit + 1,
    });
    return keysetPage(rows, page.limit, webhookEndpointCursor);
  }

  async get(actor: WebhookActor, id: string): Promise<WebhookEndpoint> {
    const endpoint = await this.prisma.webhookEndpoint.findFirst({ where: { id, ...visibleTo(actor) } });
    if (!endpoint) throw AppError.notFound('Webhook endpoint');
    return endpoint;
  }

  async create(actor: WebhookActor, input: CreateWebhookEndpointInput): Promise<WebhookEndpointWithSecret> {
    const organizationId = input.organizationId ?? null;
    // An organization the actor does not administer is as unknown as one that does not exist.
    if (organizationId !== null && !administers(actor, organizationId)) throw AppError.notFound('Organization');
    const owner: WebhookOwnerKind = organizationId === null ? 'user' : 'organization';
    const events = validEvents(input.events, owner, actor.adminScope, []);
    const description = validDescription(input.description);
    const url = await this.validUrl(input.url);
    const secret = newWebhookSecret();
    const endpoint = await this.prisma.$transaction(async (tx) => {
      // Count and insert under a lock per owner, so concurrent creates cannot pass the cap together.
      const ownerKey = organizationId === null ? `user:${actor.userId}` : `org:${organizationId}`;
      await tx.$queryRaw`SELECT 1 AS locked FROM pg_advisory_xact_lock(hashtext('webhook-endpoints:' || ${ownerKey}))`;
      const count = await tx.webhookEndpoint.count({ where: organizationId === null ? { userId: actor.userId, organizationId: null } : { organizationId } });
      if (count >= this.options.maxEndpoints) {
        const whose = organizationId === null ? 'You already have' : 'The organization already has';
        throw AppError.conflict(
          `${whose} ${this.options.maxEndpoints} webhook endpoints, the most allowed (WEBHOOK_MAX_ENDPOINTS); delete one you no longer use, then create a new one`,
        );
      }
      return tx.webhookEndpoint.create({
        data: { organizationId, userId: actor.userId, url, description, events, secretCiphertext: encryptSecret(secret, this.options.secretKey) },
      });
    });
    return { endpoint, secret };
  }

  /** Changes what it names. Enabling a disabled endpoint clears why it was disabled and its failing run. */
  async update(actor: WebhookActor, id: string, input: UpdateWebhookEndpointInput): Promise<WebhookEndpoint> {
    const current = await this.get(actor, id);
    if (input.url === null) throw AppError.badInput('url', 'must not be null; leave it out to keep the current url');
    if (input.events === null) throw AppError.badInput('events', 'must not be null; leave it out to keep the current events');
    if (input.enabled === null) throw AppError.badInput('enabled', 'must not be null; leave it out to keep the endpoint as it is');
    const data: Prisma.WebhookEndpointUpdateInput = {};
    if (input.url !== undefined) data.url = await this.validUrl(input.url);
    if (input.events !== undefined) data.events = validEvents(input.events, ownerKind(current), actor.adminScope, current.events);
    if (input.description !== undefined) data.description = validDescription(input.description);
    if (input.enabled !== undefined) {
      data.enabled = input.enabled;
      if (input.enabled) Object.assign(data, { disabledReason: null, failingSince: null });
    }
    if (Object.keys(data).length === 0) return current;
    return this.prisma.webhookEndpoint.update({ where: { id: current.id }, data });
  }

  /** Deletes the endpoint with its deliveries; returns it as it was. */
  async delete(actor: WebhookActor, id: string): Promise<WebhookEndpoint> {
    const endpoint = await this.get(actor, id);
    const { count } = await this.prisma.webhookEndpoint.deleteMany({ where: { id: endpoint.id } });
    if (count === 0) throw AppError.notFound('Webhook endpoint');
    return endpoint;
  }

  /**
   * A new signing secret. The one it replaces keeps signing beside it for 24 hours (each request
   * then carries both signatures), so receivers can switch without losing a delivery; a second
   * rotation within those hours drops the oldest.
   */
  async rotateSecret(actor: WebhookActor, id: string): Promise<WebhookEndpointWithSecret> {
    const current = await this.get(actor, id);
    const secret = newWebhookSecret();
    const endpoint = await this.prisma.webhookEndpoint.update({
      where: { id: current.id },
      data: {
        secretCiphertext: encryptSecret(secret, this.options.secretKey),
        previousSecretCiphertext: current.secretCiphertext,
        previousSecretExpiresAt: new Date(Date.now() + PREVIOUS_SECRET_OVERLAP_MS),
      },
    });
    return { endpoint, secret };
  }

  /** The endpoint's deliveries, newest first, each with its attempts. */
  async deliveries(actor: WebhookActor, endpointId: string, page: { limit: number; cursor?: string | null }): Promise<Page<WebhookDeliveryWithAttempts>> {
    const endpoint = await this.get(actor, endpointId);
    const after = page.cursor ? decodeCursor(page.cursor, ENDPOINT_CURSOR, 'list') : null;
    const rows = await this.prisma.webhookDelivery.findMany({
      where: { AND: [{ endpointId: endpoint.id }, after ? olderThan(after) : {}] },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: page.limit + 1,
      include: { attempts: { orderBy: { number: 'asc' } } },
    });
    return keysetPage(rows, page.limit, webhookDeliveryCursor);
  }

  /** Sends a `webhook.test` event to the endpoint (subscribed to it or not); the delivery as it stands. */
  async sendTest(actor: WebhookActor, endpointId: string): Promise<WebhookDeliveryWithAttempts> {
    const endpoint = await this.get(actor, endpointId);
    return this.delivery(await this.options.sender().sendTest(endpoint.id));
  }

  /** Sends one of the endpoint's deliveries again (same webhook-id and payload); the new delivery. */
  async redeliver(actor: WebhookActor, endpointId: string, deliveryId: string): Promise<WebhookDeliveryWithAttempts> {
    const endpoint = await this.get(actor, endpointId);
    const original = await this.prisma.webhookDelivery.findFirst({ where: { id: deliveryId, endpointId: endpoint.id }, select: { id: true } });
    if (!original) throw AppError.notFound('Webhook delivery');
    return this.delivery(await this.options.sender().redeliver(original.id));
  }

  private async delivery(id: string): Promise<WebhookDeliveryWithAttempts> {
    const delivery = await this.prisma.webhookDelivery.findUnique({ where: { id }, include: { attempts: { orderBy: { number: 'asc' } } } });
    if (!delivery) throw AppError.notFound('Webhook delivery');
    return delivery;
  }

  private async validUrl(value: string): Promise<string> {
    const text = value.trim();
    if (text.length === 0) throw AppError.badInput('url', 'must not be empty');
    if (text.length > WEBHOOK_URL_MAX) throw AppError.badInput('url', `must be at most ${WEBHOOK_URL_MAX} characters`);
    return (await checkWebhookUrl(text, this.options.urlPolicy)).href;
  }
}

export function webhookEndpointCursor(endpoint: Pick<WebhookEndpoint, 'createdAt' | 'id'>): string {
  return encodeCursor({ t: endpoint.createdAt.toISOString(), id: endpoint.id });
}

export function webhookDeliveryCursor(delivery: Pick<WebhookDelivery, 'createdAt' | 'id'>): string {
  return encodeCursor({ t: delivery.createdAt.toISOString(), id: delivery.id });
}

/** `organization` for an organization's endpoint, `user` for a user's own. */
export function ownerKind(endpoint: Pick<WebhookEndpoint, 'organizationId'>): WebhookOwnerKind {
  return endpoint.organizationId === null ? 'user' : 'organization';
}

function administers(actor: WebhookActor, organizationId: string): boolean {
  return actor.isAdmin && actor.organizationIds.has(organizationId);
}

/** The actor's own endpoints, and those of the organizations the actor administers. */
function visibleTo(actor: WebhookActor): Prisma.WebhookEndpointWhereInput {
  const organizations = actor.isAdmin ? [...actor.organizationIds] : [];
  return { OR: [{ organizationId: null, userId: actor.userId }, ...(organizations.length > 0 ? [{ organizationId: { in: organizations } }] : [])] };
}

function olderThan(after: { at: Date; id: string }) {
  return { OR: [{ createdAt: { lt: after.at } }, { createdAt: after.at, id: { lt: after.id } }] };
}

/**
 * At least one event, each known and open to this kind of endpoint, without repeats.
 * `current`: the endpoint's events before the change; an admin-only one it already has may stay.
 */
function validEvents(events: readonly string[], owner: WebhookOwnerKind, adminScope: boolean, current: readonly string[]): string[] {
  const unique = [...new Set(events.map((event) => event.trim()))];
  if (unique.length === 0) throw AppError.badInput('events', 'must name at least one event type');
  for (const event of unique) {
    const problem = subscriptionProblem(event, owner, adminScope || current.includes(event));
    if (problem) throw AppError.badInput('events', problem);
  }
  return unique;
}

function validDescription(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const text = value.trim();
  if (text.length > WEBHOOK_DESCRIPTION_MAX) throw AppError.badInput('description', `must be at most ${WEBHOOK_DESCRIPTION_MAX} characters`);
  return text.length === 0 ? null : text;
}
