/**
 * One webhook attempt: one HTTP POST, signed as Standard Webhooks says (docs/webhooks.md#delivery-and-signatures).
 *
 * - Headers `webhook-id` (the message id, the same on every attempt and redelivery),
 *   `webhook-timestamp` (this attempt's time, seconds), `webhook-signature`: `v1,<base64 HMAC-SHA256
 *   of "id.timestamp.body">` keyed by the base64-decoded part of the secret after `whsec_`; during
 *   a rotation's overlap one signature per secret, space-separated (the spec lets a receiver accept
 *   any of them).
 * - The address is checked again now (src/webhooks/address-guard.ts) and the connection is made to
 *   that checked address: node's `lookup` is replaced by one answering the checked addresses, so
 *   the name is not resolved a second time (DNS rebinding). TLS still verifies the certificate for
 *   the URL's host name (SNI and the check use the host, not the address).
 * - Success is a 2xx status. A redirect is never followed (a 3xx is a failure, its Location in the
 *   error). The whole attempt, connection to the end of the read, has `WEBHOOK_TIMEOUT_MS`.
 * - At most `RESPONSE_EXCERPT_BYTES` of the response body are read, then the socket is dropped: a
 *   receiver answering a large or endless body costs nothing. Every attempt gets its own
 *   connection (no keep-alive agent: a pinned address belongs to one attempt).
 */
import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { AppError } from '../errors.ts';
import { resolveWebhookTarget, type AddressGuardOptions, type HostResolver, type ResolvedAddress } from './address-guard.ts';

/** A 2xx within this is success (the issue's 10 s); longer is a timeout, retried. */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** How much of a response body is read and kept on the attempt. */
export const RESPONSE_EXCERPT_BYTES = 1024;

const SECRET_PREFIX = 'whsec_';

/** `v1,<signature>` for each secret, space-separated (Standard Webhooks' `webhook-signature`). */
export function signatureHeader(messageId: string, timestampSeconds: number, body: string, secrets: readonly string[]): string {
  return secrets.map((secret) => `v1,${sign(messageId, timestampSeconds, body, secret)}`).join(' ');
}

function sign(messageId: string, timestampSeconds: number, body: string, secret: string): string {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  return createHmac('sha256', key).update(`${messageId}.${timestampSeconds}.${body}`).digest('base64');
}

export interface WebhookRequest {
  url: string;
  messageId: string;
  /** The JSON text sent (the delivery's payload, serialised once). */
  body: string;
  /** The endpoint's secret, and the previous one while a rotation's overlap lasts. */
  secrets: readonly string[];
  guard: AddressGuardOptions;
  userAgent: string;
  /** Default WEBHOOK_TIMEOUT_MS. */
  timeoutMs?: number;
  /** This attempt's time (webhook-timestamp); default now. */
  now?: Date;
  /** Replaces DNS (tests). */
  resolver?: HostResolver;
}

export interface WebhookOutcome {
  ok: boolean;
  statusCode: number | null;
  durationMs: number;
  /** Why it failed (timeout, connection refused, refused address, redirect, non-2xx status). */
  error: string | null;
  /** The first RESPONSE_EXCERPT_BYTES of the body, as text. */
  responseExcerpt: string | null;
}

/** Sends one attempt; never throws (a failure is an outcome). */
export async function sendWebhook(request: WebhookRequest): Promise<WebhookOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let addresses: ResolvedAddress[];
  let url: URL;
  try {
    ({ url, addresses } = await resolveWebhookTarget(request.url, request.guard, request.resolver));
  } catch (error) {
    const message = error instanceof AppError ? error.message.replace(/^Invalid url: /, '') : errorText(error);
    return { ok: false, statusCode: null, durationMs: elapsed(), error: `refused address: ${message}`, responseExcerpt: null };
  }
  const timestamp = Math.floor((request.now ?? new Date()).getTime() / 1000);
  const headers = {
    'content-type': 'application/json',
    'user-agent': request.userAgent,
    'webhook-id': request.messageId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatureHeader(request.messageId, timestamp, request.body, request.secrets),
    'content-length': String(Buffer.byteLength(request.body)),
  };
  const result = await post(url, addresses, headers, request.body, request.timeoutMs ?? WEBHOOK_TIMEOUT_MS);
  return { ...result, durationMs: elapsed() };
}

/** A lookup that answers the checked addresses whatever it is asked: the connection goes there. */
function pinnedLookup(addresses: readonly ResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all)
      callback(
        null,
        addresses.map(({ address, family }) => ({ address, family })),
      );
    else callback(null, addresses[0].address, addresses[0].family);
  };
}

function post(
  url: URL,
  addresses: readonly ResolvedAddress[],
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<Omit<WebhookOutcome, 'durationMs'>> {
  return new Promise((resolve) => {
    let settled = false;
    let statusCode: number | null = null;
    const chunks: Buffer[] = [];
    let kept = 0;
    const finish = (error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      const excerpt = chunks.length > 0 ? Buffer.concat(chunks).toString('utf8') : null;
      const ok = error === null && statusCode !== null && statusCode >= 200 && statusCode < 300;
      resolve({ ok, statusCode, error: ok ? null : (error ?? `HTTP ${statusCode}`), responseExcerpt: excerpt });
    };
    const client = url.protocol === 'https:' ? https : http;
    const request = client.request(url, { method: 'POST', headers, agent: false, lookup: pinnedLookup(addresses) }, (response) => {
      statusCode = response.statusCode ?? null;
      const redirect = statusCode !== null && statusCode >= 300 && statusCode < 400;
      const whyNot = redirect ? `redirect not followed (HTTP ${statusCode}${response.headers.location ? ` to ${response.headers.location}` : ''})` : null;
      response.on('data', (chunk: Buffer) => {
        const room = RESPONSE_EXCERPT_BYTES - kept;
        if (room > 0) {
          chunks.push(chunk.subarray(0, room));
          kept += Math.min(room, chunk.length);
        }
        // The cap is reached: the rest of the body is not read, the socket is dropped.
        if (kept >= RESPONSE_EXCERPT_BYTES) finish(whyNot);
      });
      response.on('end', () => finish(whyNot));
      response.on('error', () => finish(whyNot));
      response.on('aborted', () => finish(whyNot));
    });
    // Past the deadline with a status already read, the status decides (its body was being read).
    const timer = setTimeout(() => finish(statusCode === null ? `timeout after ${timeoutMs} ms` : null), timeoutMs);
    request.on('error', (error) => finish(statusCode === null ? connectionError(error) : null));
    request.end(body);
  });
}

function connectionError(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return 'connection reset';
    case 'ETIMEDOUT':
      return 'connection timed out';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host unreachable';
    default:
      return errorText(error);
  }
}

function errorText(error: unknown): string {
  if (error instanceof Error) return (error as NodeJS.ErrnoException).code ? `${(error as NodeJS.ErrnoException).code}: ${error.message}` : error.message;
  return String(error);
}
