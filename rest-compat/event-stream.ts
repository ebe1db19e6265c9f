/**
 * The REST server-sent event stream of a run (GET /api/generate), translated into the schema's
 * operations: a mutation starts the run (or a query finds the run to follow), then the
 * subscription's source stream (its subscribe resolver: authorization and ownership checks)
 * delivers the events, each written as an SSE frame rendered once for all followers.
 *
 *   retry: 3000                      (first: the reconnection delay for EventSource clients)
 *   id: 1                            (the event's sequence number in the run)
 *   event: run | progress | done     (route.stream.eventName)
 *   data: {"agent":..., "status":..., "progress":..., "message":..., "data":{...}}
 *   : heartbeat 2026-11-21T16:00:00Z (a comment while the run is quiet)
 *
 * Resuming: `Last-Event-ID` (header, or the lastEventParam query parameter) replays the events
 * after it, then live ones follow. A reconnect that carries Last-Event-ID but no run id follows
 * the caller's newest run (EventSource reconnects to the URL it was opened with). A reconnect to
 * a finished run whose final event the client has seen gets 204, which stops EventSource.
 * Errors before the stream starts are JSON error responses with their status; after it has
 * started, an `event: error` frame is written and the stream closes.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ExecutionResult } from 'graphql';
import type { OperationRunner, PreparedOperation } from '../schema/pipeline/index.ts';
import type { RequestContext } from '../src/context.ts';
import { viewerLog } from '../src/context.ts';
import type { Credential } from '../src/auth/credential-watch.ts';
import type { Logger } from '../src/log.ts';
import { AppError } from '../src/errors.ts';
import { rateLimitHeaders } from '../src/ratelimit/rate-limiter.ts';
import { authenticatesWithSessionCookie } from '../src/context.ts';
import { buildVariables, restFieldName, type VariableSpec } from './params.ts';
import { sendError, sendJson } from './errors.ts';
import { pushSourceOf, type PushSource } from '../src/util/async-iterator.ts';
import type { StreamEvent, StreamRoute, StreamRun } from './route.ts';

export interface PreparedStream {
  route: StreamRoute;
  operations: OperationRunner;
  /** The route's operation (starts a run), and the stream's own: find, latest, subscription. */
  start: PreparedOperation;
  find: PreparedOperation;
  latest: PreparedOperation;
  subscription: PreparedOperation;
  /** Variables of the start operation (the run's options). */
  startSpecs: VariableSpec[];
  /** Variables of the find operation ($runId under the follow parameter's name). */
  findSpecs: VariableSpec[];
}

/** What the stream reads of a request: node's own, with the query string parsed (express's or the REST lane's). */
export interface StreamRequest extends IncomingMessage {
  query: Record<string, unknown>;
}

/**
 * Serves one stream. Resolves once the stream is following (or has answered): from then on the
 * follower is a LiveStream (below), and nothing of the request's setup is held (the request
 * context, its budgets and logger, the operations' results and the pipeline's hooks), so an idle
 * follower costs its connection and a few small objects. `requestLog`: the request's logger, for
 * a failure while following (the context's logger is not kept for it).
 */
export async function handleEventStream(
  prepared: PreparedStream,
  ctx: RequestContext,
  req: StreamRequest,
  res: ServerResponse,
  requestLog: (req: IncomingMessage) => Logger,
): Promise<void> {
  const { route, operations } = prepared;
  const stream = route.stream;
  // A client can hang up while the run is found or started: its subscription must not outlive it.
  // ('close' may already have fired while the credential was checked.)
  const setup = new StreamSetup(res.destroyed || req.socket.destroyed);
  const onClose = () => setup.hangUp();
  res.once('close', onClose);
  const query = req.query;
  const lastEventId = parseLastEventId(req.headers['last-event-id'] ?? query[stream.lastEventParam]);

  let run: StreamRun | null;
  let after = lastEventId ?? 0;
  // Past the user's cap of open streams nothing is found or started: refused at once (429).
  if (ctx.viewer) ctx.services.streams.ensureRoom(ctx.viewer.user.id);
  const fail = (result: ExecutionResult) => sendError(res, result.errors![0], (field) => restFieldName([...prepared.startSpecs, ...prepared.findSpecs], field));
  if (query[stream.followParam] !== undefined) {
    const variables = buildVariables(prepared.findSpecs, [{ source: 'query', values: { [stream.followParam]: query[stream.followParam] } }]);
    const found = await operations.execute(ctx, prepared.find, variables);
    if (found.errors?.length) return fail(found);
    run = (found.data as Record<string, StreamRun>)[stream.find.field];
  } else if (lastEventId !== undefined) {
    const latest = await operations.execute(ctx, prepared.latest, {});
    if (latest.errors?.length) return fail(latest);
    const connection = (latest.data as Record<string, { edges: { node: StreamRun }[] }>)[stream.latest.field];
    run = connection.edges[0]?.node ?? null;
    if (!run) throw AppError.notFound('Run to resume');
  } else {
    refuseCrossSiteStart(req);
    const variables = buildVariables(prepared.startSpecs, [{ source: 'query', values: query }]);
    const started = await operations.execute(ctx, prepared.start, variables);
    const decisions = await ctx.budgets.settled();
    if (started.errors?.length) {
      sendError(res, started.errors[0], (field) => restFieldName(prepared.startSpecs, field), decisions);
      return;
    }
    run = (started.data as Record<string, StreamRun>)[stream.startField];
    after = 0;
  }
  if (after > run.lastSequence)
    throw new AppError('BAD_USER_INPUT', `Invalid Last-Event-ID: the run's last event is ${run.lastSequence}`, { field: 'Last-Event-ID' });
  if (run.finished && after >= run.lastSequence) {
    sendJson(res, 204, null);
    return;
  }

  const source = await operations.sourceEvents(ctx, prepared.subscription, { runId: run.id, after });
  if (!(Symbol.asyncIterator in source)) return fail(source);
  const subscription = source;
  if (setup.follow(subscription)) {
    await subscription.return?.();
    return;
  }

  openStream(res, stream.retryMs, rateLimitHeaders(await ctx.budgets.settled()));
  const failureLog: FailureLog = { req, requestLog, userId: ctx.viewer?.user.id, credential: ctx.viewer?.credential };
  const push = pushSourceOf<StreamEvent | Heartbeat>(subscription);
  if (push) {
    // The setup's close handler holds this function's variables: the live stream has its own.
    res.off('close', onClose);
    if (setup.gone) {
      await subscription.return?.();
      res.end();
      return;
    }
    follow(new LiveStream(res, ctx.services.config.limits.streamUnsentMaxBytes, stream, subscription, push, failureLog));
    return;
  }
  await writeAsIterated(new FrameWriter(res, ctx.services.config.limits.streamUnsentMaxBytes), stream, subscription, failureLog);
}

/** Whether the client hung up while the stream was being set up, and the subscription to end if it does. */
class StreamSetup {
  private subscription: AsyncIterator<unknown> | undefined;

  constructor(public gone: boolean) {}

  hangUp(): void {
    this.gone = true;
    void this.subscription?.return?.();
  }

  /** Keeps the subscription to end on a hang-up; true when the client is gone already. */
  follow(subscription: AsyncIterator<unknown>): boolean {
    this.subscription = subscription;
    return this.gone;
  }
}

/** Who to name in the log line of a stream that failed: the request's log with the viewer, as the request context's log. */
interface FailureLog {
  req: IncomingMessage;
  requestLog: (req: IncomingMessage) => Logger;
  userId: string | undefined;
  credential: Credential | undefined;
}

function logFailure(log: FailureLog, error: unknown): void {
  const viewer = log.userId !== undefined && log.credential ? { user: { id: log.userId }, credential: log.credential } : null;
  viewerLog(log.requestLog(log.req), viewer).error({ err: error }, 'event stream failed');
}

/** The frame of a stream that failed after it started (the client is told, then the stream closes). */
function errorFrame(): string {
  return frame({ event: 'error', data: JSON.stringify({ error: 'Internal server error' }) });
}

/**
 * The stream of a source without a push side, read through the async iterator protocol (one
 * promise per payload): the frame writer and this function's variables are held while it follows.
 */
async function writeAsIterated(
  writer: FrameWriter,
  stream: StreamRoute['stream'],
  subscription: AsyncIterableIterator<unknown>,
  failureLog: FailureLog,
): Promise<void> {
  try {
    for await (const payload of subscription as AsyncIterable<StreamEvent | Heartbeat>) if (writePayload(writer, stream, payload)) break;
  } catch (error) {
    logFailure(failureLog, error);
    writer.push(errorFrame());
  } finally {
    await subscription.return?.();
    writer.end();
  }
}

/** Writes one payload's frame; true after the final event. */
function writePayload(writer: FrameWriter, stream: StreamRoute['stream'], payload: StreamEvent | Heartbeat): boolean {
  if (payload.sequence === undefined) {
    writer.push(heartbeatFrame(payload));
    return false;
  }
  writer.push(frameOf(stream, payload as StreamEvent));
  return stream.isFinal(payload as StreamEvent);
}

/** The live streams by response: one 'close' listener function for all of them (a closure per stream costs memory). */
const liveStreams = new WeakMap<ServerResponse, LiveStream>();

function follow(live: LiveStream): void {
  liveStreams.set(live.res, live);
  live.res.on('close', onLiveClose);
  live.start();
}

function onLiveClose(this: ServerResponse): void {
  liveStreams.get(this)?.hungUp();
}

/**
 * Frames are gathered per stream and written together, one write per stream per flush. A flush
 * goes out at once and in slices (see flushSlice): between two slices the event loop serves
 * everything else, so a pass over 10,000 followers never holds a request up for more than a
 * slice, and events that arrive during the pass join the frames of the streams it has not reached
 * yet (one system call each for the lot) instead of waiting for another pass. With few followers a
 * flush is one short slice. A slow client's frames wait in its socket buffer, up to
 * STREAM_UNSENT_MAX_BYTES; past it the connection is closed (docs/subscriptions.md#slow-followers).
 */
export class FrameWriter {
  private pending: Buffer[] = [];

  /** `unsentMax`: STREAM_UNSENT_MAX_BYTES (a client that stopped reading is closed, not buffered for). */
  constructor(
    readonly res: ServerResponse,
    private readonly unsentMax: number,
  ) {}

  push(frame: Buffer | string): void {
    this.pending.push(typeof frame === 'string' ? Buffer.from(frame) : frame);
    dirtyWriters.add(this);
    scheduleFlush();
  }

  flush(): void {
    dirtyWriters.delete(this);
    if (this.pending.length === 0) return;
    const chunk = this.pending.length === 1 ? this.pending[0] : joined(this.pending);
    this.pending = [];
    if (this.res.destroyed || this.res.writableEnded) return;
    // A follower that does not read: closed, so its frames never pile up in memory (nor delay
    // anyone: every write here is to a socket buffer). It resumes with Last-Event-ID.
    if (this.res.writableLength > this.unsentMax) this.res.destroy();
    else this.res.write(chunk);
  }

  /** Ends the response once its last frames have gone out (see closeEnded). */
  end(): void {
    endingWriters.add(this);
    dirtyWriters.add(this);
    scheduleFlush();
  }

  close(): void {
    if (!this.res.writableEnded) this.res.end();
  }
}

/**
 * A REST stream that is following: it reads its follower through the push side, so nothing waits
 * per follower between events (thousands of followers of a run each take the run's new events
 * synchronously when the feed announces them, src/generation/progress-hub.ts). What an idle
 * follower holds is this object (its frame writer, the subscription to end, its push side, who to
 * name in a failure's log line), the ready callback, and its connection.
 */
class LiveStream extends FrameWriter {
  private finished = false;

  constructor(
    res: ServerResponse,
    unsentMax: number,
    private readonly stream: StreamRoute['stream'],
    private readonly subscription: AsyncIterator<unknown>,
    private readonly source: PushSource<StreamEvent | Heartbeat>,
    private readonly failureLog: FailureLog,
  ) {
    super(res, unsentMax);
  }

  start(): void {
    try {
      this.source.onReady(() => this.pull());
    } catch (error) {
      this.fail(error);
    }
  }

  /** The client hung up: the subscription ends (its slot and feed are let go), then the stream. */
  hungUp(): void {
    void this.subscription.return?.();
  }

  /** Writes every ready payload's frame; ends after the final event, or once the source has ended (client gone, credential revoked, shutdown). */
  private pull(): void {
    if (this.finished) return;
    try {
      for (const payload of this.source.drain()) if (writePayload(this, this.stream, payload)) return this.finish();
      if (this.source.ended) this.finish();
    } catch (error) {
      this.fail(error);
    }
  }

  private fail(error: unknown): void {
    if (this.finished) return;
    logFailure(this.failureLog, error);
    this.push(errorFrame());
    this.finish();
  }

  /** The subscription ends first (the user's stream slot is free before the client sees the end), then the response. */
  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    liveStreams.delete(this.res);
    void this.endAfterReturn();
  }

  private async endAfterReturn(): Promise<void> {
    try {
      await this.subscription.return?.();
    } catch (error) {
      logFailure(this.failureLog, error);
    } finally {
      this.end();
    }
  }
}

/**
 * Frames joined for one write, reused while the next stream's frames are the same buffers: the
 * followers of a run are flushed one after another with the same frames pending, so a burst is
 * joined once per run and flush, not once per follower.
 */
let lastJoined: { frames: Buffer[]; chunk: Buffer } | null = null;

function joined(frames: Buffer[]): Buffer {
  const last = lastJoined;
  if (last && last.frames.length === frames.length && last.frames.every((frame, i) => frame === frames[i])) return last.chunk;
  const chunk = Buffer.concat(frames);
  lastJoined = { frames, chunk };
  return chunk;
}

/**
 * The longest the fan-out holds the event loop at a time. A write costs about 10 µs here (a
 * loopback send runs the receiver's TCP work too: docs/benchmarks.md#the-floor-of-fan-out), so a
 * slice writes to about 1,000 streams; what a request waits for behind the fan-out is at most this.
 */
const SLICE_MS = 10;
/** Streams written (or closed) between two looks at the clock: reading it costs far less than a write, but not nothing. */
const STREAMS_PER_CLOCK_READ = 32;

const dirtyWriters = new Set<FrameWriter>();
const endingWriters = new Set<FrameWriter>();
/**
 * Closing a connection costs several times more than writing to it. When a run ends, all its
 * followers' final frames go out first; their connections are closed a moment later, off the
 * path of the events of other runs and of the final frames themselves, in slices as the frames
 * are (see flushSlice), and never before the pass has written a stream's last frames.
 */
const CLOSE_DELAY_MS = 200;
let closeScheduled = false;

function scheduleClose(delayMs: number): void {
  if (closeScheduled) return;
  closeScheduled = true;
  if (delayMs > 0) setTimeout(closeEnded, delayMs).unref();
  else setImmediate(closeEnded);
}

function closeEnded(): void {
  closeScheduled = false;
  let waiting = 0;
  const cut = inSlice(endingWriters, (writer) => {
    // Its last frames have not gone out yet: the pass under way reaches it first.
    if (dirtyWriters.has(writer)) {
      waiting++;
      return false;
    }
    endingWriters.delete(writer);
    writer.close();
    return true;
  });
  if (cut) scheduleClose(0);
  else if (waiting > 0) scheduleClose(CLOSE_DELAY_MS);
}

/**
 * Visits `writers` in order until SLICE_MS have passed; true when it stopped before the end (the
 * caller goes on after the event loop's turn). `visit` says whether it wrote to or closed a stream
 * (what the slice is paced by).
 */
function inSlice(writers: Set<FrameWriter>, visit: (writer: FrameWriter) => boolean): boolean {
  const deadline = performance.now() + SLICE_MS;
  let done = 0;
  for (const writer of writers) {
    if (visit(writer) && ++done % STREAMS_PER_CLOCK_READ === 0 && performance.now() >= deadline) return true;
  }
  return false;
}

let flushScheduled = false;

function scheduleFlush(): void {
  if (flushScheduled) return;
  flushScheduled = true;
  setImmediate(flushSlice);
}

/**
 * Writes the dirty streams in the order they became dirty until SLICE_MS have passed, then yields
 * to the event loop and goes on. A stream written in this pass that gets another frame meanwhile
 * is dirty again, at the end of the order (a Set's iteration reaches what is added during it), so
 * each stream's frames go out in order and nobody waits for a whole new pass.
 */
function flushSlice(): void {
  flushScheduled = false;
  inSlice(dirtyWriters, (writer) => {
    writer.flush();
    return true;
  });
  lastJoined = null;
  if (dirtyWriters.size > 0) scheduleFlush();
  if (endingWriters.size > 0) scheduleClose(CLOSE_DELAY_MS);
}

/** Headers of an event stream, then the retry hint; nothing may buffer or compress it. */
function openStream(res: ServerResponse, retryMs: number, headers: Record<string, string>): void {
  res.statusCode = 200;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  res.setHeader('Cache-Control', 'no-cache, no-transform');
  res.setHeader('X-Accel-Buffering', 'no');
  res.setHeader('Connection', 'keep-alive');
  res.socket?.setNoDelay(true);
  res.flushHeaders();
  res.write(`retry: ${retryMs}\n\n`);
}

/**
 * An event's frame, rendered and encoded once per process: every follower of a run on this
 * instance receives the same event object from the progress hub, so 2,000 followers cost one
 * JSON.stringify and one UTF-8 encoding, and share the bytes.
 */
const frames = new WeakMap<object, Buffer>();

function frameOf(stream: StreamRoute['stream'], event: StreamEvent): Buffer {
  let bytes = frames.get(event);
  if (bytes === undefined) {
    bytes = Buffer.from(frame({ id: String(event.sequence), event: stream.eventName(event), data: JSON.stringify(stream.payload(event)) }));
    frames.set(event, bytes);
  }
  return bytes;
}

interface Heartbeat {
  sequence?: undefined;
  at: Date;
}

/** A heartbeat's comment, rendered once for the followers of a run (the hub hands them all the same object). */
function heartbeatFrame(heartbeat: Heartbeat): Buffer {
  let bytes = frames.get(heartbeat);
  if (bytes === undefined) {
    bytes = Buffer.from(`: heartbeat ${heartbeat.at.toISOString()}\n\n`);
    frames.set(heartbeat, bytes);
  }
  return bytes;
}

function frame(fields: { id?: string; event: string; data: string }): string {
  return `${fields.id !== undefined ? `id: ${fields.id}\n` : ''}event: ${fields.event}\ndata: ${fields.data}\n\n`;
}

function parseLastEventId(raw: unknown): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  const text = Array.isArray(raw) ? raw[0] : raw;
  if (typeof text !== 'string' || !/^\d{1,9}$/.test(text.trim())) {
    throw new AppError('BAD_USER_INPUT', 'Invalid Last-Event-ID: must be the id (a non-negative integer) of an event of the stream', {
      field: 'Last-Event-ID',
    });
  }
  return Number(text.trim());
}

/**
 * Starting a run is a GET (the spec's), and the session cookie is SameSite=Lax, which browsers
 * send on cross-site top-level navigations: a link on another site must not start runs. Browsers
 * say where a request comes from in Sec-Fetch-Site.
 */
function refuseCrossSiteStart(req: IncomingMessage): void {
  if (authenticatesWithSessionCookie(req) && req.headers['sec-fetch-site'] === 'cross-site') {
    throw new AppError('FORBIDDEN', 'CSRF check failed: a generation cannot be started from another site');
  }
}
