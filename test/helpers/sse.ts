/**
 * Reading a server-sent event stream over plain fetch, the way a test needs to: frame by frame
 * as the bytes arrive (so a test can stop, or hang up, mid-stream), with the raw text kept for
 * framing checks. Parsing follows the event-stream format (fields `id`, `event`, `data`,
 * `retry`; lines starting with `:` are comments; a blank line ends a block).
 */

/** One block of the stream: an event (id/event/data), a retry hint, or comments only. */
export interface SseBlock {
  id?: string;
  event?: string;
  data?: string;
  retry?: number;
  comments: string[];
  /** The block's lines as sent. */
  raw: string;
}

/** An event of GET /api/generate, its data parsed. */
export interface GenerationPayload {
  agent: string;
  status: 'queued' | 'started' | 'active' | 'complete' | 'failed';
  progress: number;
  message: string;
  data: Record<string, any>;
}

export interface SseEvent {
  id: number;
  event: string;
  payload: GenerationPayload;
}

export function parseBlock(raw: string): SseBlock {
  const block: SseBlock = { comments: [], raw };
  const data: string[] = [];
  for (const line of raw.split('\n')) {
    if (line.startsWith(':')) {
      block.comments.push(line.slice(1).trimStart());
      continue;
    }
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'id') block.id = value;
    else if (field === 'event') block.event = value;
    else if (field === 'data') data.push(value);
    else if (field === 'retry') block.retry = Number(value);
  }
  if (data.length > 0) block.data = data.join('\n');
  return block;
}

export function toEvent(block: SseBlock): SseEvent {
  if (block.id === undefined || block.event === undefined || block.data === undefined) throw new Error(`Not an event block: ${JSON.stringify(block.raw)}`);
  return { id: Number(block.id), event: block.event, payload: JSON.parse(block.data) };
}

/** The event blocks of a stream (retry hints and comment-only blocks left out). */
export function eventsOf(blocks: SseBlock[]): SseEvent[] {
  return blocks.filter((block) => block.data !== undefined).map(toEvent);
}

/**
 * An open event stream response, read incrementally. `next()` gives the next block, or null once
 * the server has closed the stream; `close()` hangs up (the client going away).
 */
export class SseReader {
  /** Everything received so far, as text. */
  text = '';
  /** Text after the last complete block when the server closed the stream (should be ''). */
  unterminated = '';
  /** Blocks read so far. */
  readonly blocks: SseBlock[] = [];
  private buffer = '';
  private ended = false;
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();

  constructor(
    readonly response: Response,
    private readonly controller: AbortController,
  ) {
    if (!response.body) throw new Error('The response has no body');
    this.reader = response.body.getReader();
  }

  get status(): number {
    return this.response.status;
  }

  get headers(): Headers {
    return this.response.headers;
  }

  /** True once the server has ended the response. */
  get closedByServer(): boolean {
    return this.ended;
  }

  get events(): SseEvent[] {
    return eventsOf(this.blocks);
  }

  /** The next block, or null when the server has closed the stream; fails after `timeoutMs`. */
  async next(timeoutMs = 15_000): Promise<SseBlock | null> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const end = this.buffer.indexOf('\n\n');
      if (end >= 0) {
        const raw = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 2);
        if (raw.length === 0) continue;
        const block = parseBlock(raw);
        this.blocks.push(block);
        return block;
      }
      if (this.ended) return null;
      const left = deadline - Date.now();
      let timer: NodeJS.Timeout | undefined;
      const chunk = await Promise.race([
        this.reader.read(),
        new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), Math.max(0, left)))),
      ]).finally(() => clearTimeout(timer));
      if (chunk === 'timeout') {
        this.close();
        throw new Error(`No complete SSE block within ${timeoutMs} ms; received so far:\n${this.text}`);
      }
      if (chunk.done) {
        this.ended = true;
        // A trailing block without its blank line is incomplete: it stays in `unterminated`.
        this.unterminated = this.buffer;
        this.buffer = '';
        continue;
      }
      const decoded = this.decoder.decode(chunk.value, { stream: true }).replace(/\r\n?/g, '\n');
      this.text += decoded;
      this.buffer += decoded;
    }
  }

  /** The next event block (skipping retry hints and comments), or null at the end of the stream. */
  async nextEvent(timeoutMs = 15_000): Promise<SseEvent | null> {
    for (;;) {
      const block = await this.next(timeoutMs);
      if (!block) return null;
      if (block.data !== undefined) return toEvent(block);
    }
  }

  /** Reads events until `stop` says so (returning that event), or the stream ends (null). */
  async until(stop: (event: SseEvent) => boolean, timeoutMs = 15_000): Promise<SseEvent | null> {
    for (;;) {
      const event = await this.nextEvent(timeoutMs);
      if (!event || stop(event)) return event;
    }
  }

  /** Reads to the end of the stream (the server closing it). */
  async readToEnd(timeoutMs = 20_000): Promise<SseBlock[]> {
    while (await this.next(timeoutMs));
    return this.blocks;
  }

  /** Hangs up, as a client going away does. */
  close(): void {
    this.controller.abort();
  }
}

/**
 * GET an event stream with fetch. Resolves once the response headers are in: a non-stream
 * response (an error, 204) is returned with its text read, the stream as an SseReader.
 */
export async function openStream(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; reader: SseReader | null; text: string }> {
  const controller = new AbortController();
  const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: controller.signal });
  if (response.status !== 200 || !(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    return { status: response.status, headers: response.headers, reader: null, text: await response.text() };
  }
  return { status: response.status, headers: response.headers, reader: new SseReader(response, controller), text: '' };
}
