/**
 * The external provider: reads transcripts from a meeting-transcription service's REST API.
 *
 *   GET {TRANSCRIPT_API_URL}/transcripts?limit=20[&cursor=<opaque>]
 *   GET {TRANSCRIPT_API_URL}/transcripts/{id}
 *   Authorization: Bearer {TRANSCRIPT_API_KEY}
 *   X-User-Email: <the signed-in user's email>     (the service scopes every answer to that user)
 *   Accept: application/json
 *
 * List answer (newest first; `limit` 1..200; `next_cursor` null on the last page):
 *   {"data": [{"id": "<uuid>", "title": "...", "started_at": "2026-03-02T09:30:00Z",
 *              "duration_ms": 1834000, "participants": [{"name": "Ana Lopez", "email": "..."}],
 *              "segment_count": 42}],
 *    "next_cursor": "opaque" | null}
 * One transcript (404 when unknown or not that user's):
 *   {"id", "title", "started_at", "duration_ms", "participants",
 *    "segments": [{"speaker_name": "Ana Lopez" | null, "text": "...", "start_ms": 0, "end_ms": 2500 | null}]}
 *
 * Mapping: started_at -> occurredAt, duration_ms -> durationSeconds (rounded up),
 * participants[].name -> participants, segment_count -> sentenceCount, segments -> sentences
 * (milliseconds -> seconds; a null speaker_name -> `Unknown`).
 *
 * Failures: no answer within TRANSCRIPT_API_TIMEOUT -> 504; a connection failure, a redirect, any
 * non-2xx status (but a 404 for one transcript, which is our 404), a body that is not JSON or
 * not in the shape above -> 502 `Transcript service error: ...`. Messages never contain the API
 * key, the upstream body or the upstream address; details go to the log (without the key).
 */
import { z } from 'zod';
import { AppError } from '../../errors.ts';
import type { Logger } from '../../log.ts';
import { UNKNOWN_SPEAKER } from './parsers.ts';
import { decodeCursor, encodeCursor } from '../../pagination.ts';
import type { TranscriptDetail, TranscriptListOptions, TranscriptPage, TranscriptProvider, TranscriptSummary } from './types.ts';
import { injectTraceHeaders } from '../../tracing/state.ts';

export interface HttpTranscriptProviderOptions {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
  /** The email the upstream knows the user by. */
  emailOf(userId: string): Promise<string>;
  log?: Logger;
  /** Largest upstream body read (default 32 MiB). */
  maxResponseBytes?: number;
}

/** The most rows one upstream request asks for (our page plus the rows skipped inside a page). */
export const UPSTREAM_MAX_LIMIT = 200;

const uuid = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, 'not a UUID');
const participant = z.union([z.string(), z.object({ name: z.string() })]);
const upstreamSummary = z.object({
  id: uuid,
  title: z.string(),
  started_at: z.iso.datetime({ offset: true }),
  duration_ms: z.number().int().nonnegative(),
  participants: z.array(participant),
});
const upstreamList = z.object({
  data: z.array(upstreamSummary.extend({ segment_count: z.number().int().nonnegative() })),
  next_cursor: z.string().min(1).nullable().optional(),
});
const upstreamDetail = upstreamSummary.extend({
  segments: z.array(
    z.object({
      speaker_name: z.string().nullable().optional(),
      text: z.string(),
      start_ms: z.number().nonnegative(),
      end_ms: z.number().nonnegative().nullable().optional(),
    }),
  ),
});

/** Our cursor: the upstream cursor of a page, and how many of that page's rows were already seen. */
interface Position {
  c: string | null;
  s: number;
}

export class HttpTranscriptProvider implements TranscriptProvider {
  readonly kind = 'http' as const;
  private readonly base: URL;

  constructor(private readonly options: HttpTranscriptProviderOptions) {
    this.base = new URL(options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`);
  }

  async list(userId: string, options: TranscriptListOptions): Promise<TranscriptPage> {
    const position = options.cursor === null ? { c: null, s: 0 } : decodePosition(options.cursor);
    const url = new URL('transcripts', this.base);
    const requested = Math.min(position.s + options.limit, UPSTREAM_MAX_LIMIT);
    url.searchParams.set('limit', String(requested));
    if (position.c !== null) url.searchParams.set('cursor', position.c);
    const body = parse(upstreamList, await this.request(url, userId, 'list'), this.options.log);
    // The API honours `limit`; rows beyond it (a service that sends more) are not shown.
    const items = body.data.slice(0, requested);
    const next = body.next_cursor ?? null;
    const cursorAfter = (seen: number): string =>
      seen >= items.length && next !== null ? encodeCursor({ c: next, s: 0 }) : encodeCursor({ c: position.c, s: seen });
    const rows = items.slice(position.s, position.s + options.limit).map((item, index) => ({
      ...summary(item, item.segment_count),
      cursor: cursorAfter(position.s + index + 1),
    }));
    const hasMore = items.length > position.s + rows.length || next !== null;
    return { rows, hasMore, nextCursor: hasMore ? cursorAfter(position.s + rows.length) : null };
  }

  async get(userId: string, id: string): Promise<TranscriptDetail | null> {
    const url = new URL(`transcripts/${encodeURIComponent(id)}`, this.base);
    const raw = await this.request(url, userId, 'get');
    if (raw === NOT_FOUND) return null;
    const body = parse(upstreamDetail, raw, this.options.log);
    return {
      ...summary(body, body.segments.length),
      sentences: body.segments.map((segment) => ({
        speaker: segment.speaker_name?.trim() || UNKNOWN_SPEAKER,
        text: segment.text,
        startSeconds: Math.round(segment.start_ms) / 1000,
        endSeconds: segment.end_ms === null || segment.end_ms === undefined ? null : Math.round(segment.end_ms) / 1000,
      })),
    };
  }

  private async request(url: URL, userId: string, what: 'list' | 'get'): Promise<unknown> {
    const { log, timeoutMs } = this.options;
    const email = await this.options.emailOf(userId);
    const started = Date.now();
    let response: Response;
    try {
      response = await fetch(url, {
        headers: injectTraceHeaders({ authorization: `Bearer ${this.options.apiKey}`, accept: 'application/json', 'x-user-email': email }),
        signal: AbortSignal.timeout(timeoutMs),
        // Never follow a redirect: it could carry the bearer key to another host.
        redirect: 'error',
      });
    } catch (error) {
      throw this.transportError(error, what, started);
    }
    if (response.status === 404 && what === 'get') {
      await response.body?.cancel().catch(() => undefined);
      return NOT_FOUND;
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      log?.warn({ upstreamStatus: response.status, what, ms: Date.now() - started }, 'transcript service answered an error');
      throw upstreamError(`the service answered HTTP ${response.status}`);
    }
    let text: string;
    try {
      text = await readBody(response, this.options.maxResponseBytes ?? 32 * 1024 * 1024);
    } catch (error) {
      throw this.transportError(error, what, started);
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      log?.warn({ what, bytes: text.length }, 'transcript service answered invalid JSON');
      throw upstreamError('the response is not valid JSON');
    }
  }

  private transportError(error: unknown, what: string, started: number): AppError {
    if (error instanceof AppError) return error;
    const name = (error as { name?: string } | null)?.name;
    if (name === 'TimeoutError' || name === 'AbortError') {
      this.options.log?.warn({ what, timeoutMs: this.options.timeoutMs }, 'transcript service timed out');
      return new AppError('GATEWAY_TIMEOUT', `Transcript service error: no response within ${formatMs(this.options.timeoutMs)}`);
    }
    const cause = (error as { cause?: { code?: string } } | null)?.cause?.code;
    this.options.log?.warn({ what, cause, ms: Date.now() - started, err: error }, 'transcript service request failed');
    return upstreamError(cause ? `the request failed (${cause})` : 'the request failed');
  }
}

const NOT_FOUND = Symbol('not found');

function upstreamError(detail: string): AppError {
  return new AppError('BAD_GATEWAY', `Transcript service error: ${detail}`);
}

function parse<T>(schema: z.ZodType<T>, raw: unknown, log?: Logger): T {
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = issue?.path.map(String).join('.') || 'body';
  log?.warn({ where, problem: issue?.message }, 'transcript service answered an unexpected shape');
  throw upstreamError(`unexpected response (${where}: ${issue?.message ?? 'invalid'})`);
}

function summary(item: z.infer<typeof upstreamSummary>, sentenceCount: number): TranscriptSummary {
  return {
    id: item.id.toLowerCase(),
    title: item.title,
    occurredAt: new Date(item.started_at),
    durationSeconds: Math.ceil(item.duration_ms / 1000),
    participants: item.participants.map((p) => (typeof p === 'string' ? p : p.name)),
    sentenceCount,
  };
}

async function readBody(response: Response, maxBytes: number): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw upstreamError(`the response exceeds ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

function decodePosition(cursor: string): Position {
  return decodeCursor(
    cursor,
    ({ c, s }) =>
      (c === null || (typeof c === 'string' && c.length > 0 && c.length <= 2000)) &&
      typeof s === 'number' &&
      Number.isInteger(s) &&
      s >= 0 &&
      s <= UPSTREAM_MAX_LIMIT
        ? { c, s }
        : undefined,
    'list',
  );
}
