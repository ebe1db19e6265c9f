/**
 * A webhook receiver of the test's own: a real HTTP server on a random loopback port that keeps
 * every request it gets and answers as the test says (a status, or never: a hanging receiver).
 * Signatures are verified with the `standardwebhooks` npm package, never with the service's code.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { expect } from 'vitest';
import type { Services } from '../../src/services.ts';
import { encryptSecret, newWebhookSecret, webhookSecretKey } from '../../src/webhooks/secrets.ts';

export interface Received {
  headers: Record<string, string>;
  body: string;
  /** Date.now() when the request had arrived whole */
  at: number;
}

/** What to answer the n-th request (0-based): a status, or 'hang' (never answer). */
export type Answer = (n: number) => number | 'hang';

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  close(): Promise<void>;
}

export async function startReceiver(answer: Answer = () => 204): Promise<Receiver> {
  const received: Received[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const n = received.length;
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) if (typeof value === 'string') headers[name] = value;
      received.push({ headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      const status = answer(n);
      if (status === 'hang') return;
      response.writeHead(status, { 'content-type': 'text/plain' }).end(`answer ${n}: ${status}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The event of a request, after its signature verified with `secret` (standardwebhooks throws otherwise). */
export function verified(secret: string, request: Received): { type: string; timestamp: string; data: Record<string, any> } {
  return new Webhook(secret).verify(request.body, request.headers) as { type: string; timestamp: string; data: Record<string, any> };
}

/** Waits until `receiver` has at least `count` requests. */
export async function receivedAtLeast(receiver: Receiver, count: number, timeoutMs = 30_000): Promise<Received[]> {
  await expect.poll(() => receiver.received.length, { timeout: timeoutMs, interval: 50 }).toBeGreaterThanOrEqual(count);
  return receiver.received;
}

/** The requests of `receiver` whose event type is `type` (signature verified). */
export function eventsOf(receiver: Receiver, secret: string, type: string) {
  return receiver.received.map((request) => ({ request, event: verified(secret, request) })).filter(({ event }) => event.type === type);
}

export interface TestEndpoint {
  id: string;
  secret: string;
}

/**
 * An endpoint row written straight into the database (as the endpoint service stores one: the
 * secret encrypted with the service's key), so the delivery tests do not depend on the fronts.
 */
export async function insertEndpoint(
  services: Services,
  dataDir: string,
  endpoint: { userId: string; organizationId?: string | null; url: string; events: string[] },
): Promise<TestEndpoint> {
  const secret = newWebhookSecret();
  const key = webhookSecretKey(services.config.webhooks.secretKey, dataDir);
  const { rows } = await services.db.pool.query<{ id: string }>(
    `INSERT INTO "WebhookEndpoint" (id, "organizationId", "userId", url, events, "secretCiphertext", "updatedAt")
     VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, now()) RETURNING id`,
    [endpoint.organizationId ?? null, endpoint.userId, endpoint.url, endpoint.events, encryptSecret(secret, key)],
  );
  return { id: rows[0].id, secret };
}

export interface DeliveryState {
  id: string;
  messageId: string;
  eventType: string;
  status: string;
  attemptCount: number;
  lastStatusCode: number | null;
  nextAttemptAt: Date | null;
  completedAt: Date | null;
  attempts: Array<{ number: number; statusCode: number | null; error: string | null; responseExcerpt: string | null; durationMs: number }>;
}

/** An endpoint's deliveries, oldest first, each with its attempts. */
export async function deliveriesOf(services: Services, endpointId: string): Promise<DeliveryState[]> {
  const { rows } = await services.db.pool.query<DeliveryState>(
    `SELECT d.id, d."messageId", d."eventType", d.status, d."attemptCount", d."lastStatusCode", d."nextAttemptAt", d."completedAt",
            COALESCE((SELECT json_agg(json_build_object('number', a.number, 'statusCode', a."statusCode", 'error', a.error,
                                                        'responseExcerpt', a."responseExcerpt", 'durationMs', a."durationMs") ORDER BY a.number)
                        FROM "WebhookAttempt" a WHERE a."deliveryId" = d.id), '[]'::json) AS attempts
       FROM "WebhookDelivery" d WHERE d."endpointId" = $1 ORDER BY d."createdAt", d.id`,
    [endpointId],
  );
  return rows;
}
