/**
 * Transcript importers: WebVTT, SubRip (SRT) and the documented JSON format, as pure functions
 * from text to speaker-attributed sentences. Nothing here touches the database or HTTP; a
 * problem is a `TranscriptParseError` naming the (1-based) line, which the service turns into a
 * 400 `Invalid content: line N: ...`.
 *
 * Common to every format: a UTF-8 byte order mark is ignored; lines end in LF, CRLF or CR;
 * times are kept as whole milliseconds. Timestamps are `HH:MM:SS.mmm` or `MM:SS.mmm` (WebVTT)
 * and `HH:MM:SS,mmm` (SRT); each format also accepts the other's separator, hours have one to
 * three digits (so at most 999:59:59.999), minutes and seconds two, milliseconds three.
 *
 * Speakers:
 * - WebVTT: the voice span `<v Name>` (or `<v.class Name>`), else a `Name: ` prefix.
 * - SRT: a `Name: ` prefix, else `Unknown`.
 * - A `Name: ` prefix is one to six words, the first starting with a capital letter and the
 *   others with a capital or a digit or being a name particle (de, van, von, ...), followed by a
 *   colon and white space: `Ana Lopez: ...`, `Speaker 2: ...`, `Maria de la Cruz: ...`. Anything
 *   else (`Action item: ...`) is text.
 * - Within one cue every line that starts with a voice span, a speaker prefix or a dialogue dash
 *   (`- `) starts a new sentence with the cue's timing; other lines continue the sentence before.
 * - A sentence without a speaker is attributed to `Unknown`.
 */

export const TRANSCRIPT_LIMITS = {
  /** UTF-8 bytes of the imported content (5 MiB). */
  contentBytes: 5 * 1024 * 1024,
  sentences: 20_000,
  speakerLength: 100,
  sentenceTextLength: 10_000,
  participants: 100,
} as const;

export const UNKNOWN_SPEAKER = 'Unknown';

export type TranscriptFormat = 'vtt' | 'srt' | 'json';

export interface ParsedSentence {
  speaker: string;
  text: string;
  startMs: number;
  /** null when the source gives no end (JSON `end` omitted). */
  endMs: number | null;
}

export interface ParsedTranscript {
  /** From the content: the WebVTT header text (`WEBVTT - Title`) or JSON `title`; null when absent. */
  title: string | null;
  /** JSON `occurred_at`; null for WebVTT and SRT. */
  occurredAt: Date | null;
  /** JSON `participants`; null when the content does not list them. */
  participants: string[] | null;
  sentences: ParsedSentence[];
}

export class TranscriptParseError extends Error {
  constructor(
    /** 1-based line of the problem; null when it concerns the whole content. */
    readonly line: number | null,
    readonly problem: string,
  ) {
    super(line === null ? problem : `line ${line}: ${problem}`);
    this.name = 'TranscriptParseError';
  }
}

export function parseTranscript(format: TranscriptFormat, content: string): ParsedTranscript {
  switch (format) {
    case 'vtt':
      return parseVtt(content);
    case 'srt':
      return parseSrt(content);
    case 'json':
      return parseJsonTranscript(content);
  }
}

/** Seconds rounded up to a whole second: the latest end (or start, where there is no end). */
export function durationSeconds(sentences: readonly ParsedSentence[]): number {
  let lastMs = 0;
  for (const sentence of sentences) lastMs = Math.max(lastMs, sentence.endMs ?? sentence.startMs);
  return Math.ceil(lastMs / 1000);
}

/** Distinct speakers in order of first appearance, without `Unknown`. */
export function speakersOf(sentences: readonly ParsedSentence[]): string[] {
  const seen = new Set<string>();
  for (const sentence of sentences) if (sentence.speaker !== UNKNOWN_SPEAKER) seen.add(sentence.speaker);
  return [...seen];
}

// ---------------------------------------------------------------------------
// Timestamps
// ---------------------------------------------------------------------------

const TIMESTAMP = /^(?:(\d{1,3}):)?([0-5]\d):([0-5]\d)[.,](\d{3})$/;

/** `HH:MM:SS.mmm`, `MM:SS.mmm` or `HH:MM:SS,mmm` -> milliseconds; null when it is none of them. */
export function parseTimestamp(text: string): number | null {
  const match = TIMESTAMP.exec(text.trim());
  if (!match) return null;
  const [, hours, minutes, seconds, millis] = match;
  return ((Number(hours ?? 0) * 60 + Number(minutes)) * 60 + Number(seconds)) * 1000 + Number(millis);
}

/** Milliseconds as `HH:MM:SS.mmm` (for messages). */
export function formatTimestamp(ms: number): string {
  const pad = (value: number, width = 2) => String(value).padStart(width, '0');
  const hours = Math.floor(ms / 3_600_000);
  return `${pad(hours)}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)}.${pad(ms % 1000, 3)}`;
}

// ---------------------------------------------------------------------------
// Lines and blocks
// ---------------------------------------------------------------------------

interface Line {
  text: string;
  /** 1-based */
  number: number;
}

function splitLines(content: string): Line[] {
  const text = content.charCodeAt(0) === 0xfeff ? content.slice(1) : content;
  return text.split(/\r\n|\r|\n/).map((line, index) => ({ text: line, number: index + 1 }));
}

/** Runs of non-blank lines (blocks are separated by one or more blank lines). */
function blocks(lines: readonly Line[]): Line[][] {
  const result: Line[][] = [];
  let current: Line[] = [];
  for (const line of lines) {
    if (line.text.trim() === '') {
      if (current.length > 0) result.push(current);
      current = [];
    } else {
      current.push(line);
    }
  }
  if (current.length > 0) result.push(current);
  return result;
}

function quote(text: string, max = 60): string {
  return JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);
}

interface Timing {
  startMs: number;
  endMs: number;
}

const TIMING_LINE = /^\s*(\S+)[ \t]+-->[ \t]+(\S+)(?:[ \t].*)?$/;

function parseTiming(line: Line): Timing {
  const match = TIMING_LINE.exec(line.text);
  if (!match) throw new TranscriptParseError(line.number, `expected a cue timing line such as "00:00:01.000 --> 00:00:04.000", got ${quote(line.text)}`);
  const startMs = parseTimestamp(match[1]);
  if (startMs === null) throw new TranscriptParseError(line.number, `invalid timestamp ${quote(match[1])}`);
  const endMs = parseTimestamp(match[2]);
  if (endMs === null) throw new TranscriptParseError(line.number, `invalid timestamp ${quote(match[2])}`);
  if (endMs < startMs) throw new TranscriptParseError(line.number, `the cue ends (${formatTimestamp(endMs)}) before it starts (${formatTimestamp(startMs)})`);
  return { startMs, endMs };
}

// ---------------------------------------------------------------------------
// Cue text -> sentences
// ---------------------------------------------------------------------------

const NAME_PARTICLES = new Set([
  'de',
  'del',
  'della',
  'der',
  'den',
  'di',
  'da',
  'do',
  'dos',
  'du',
  'la',
  'le',
  'van',
  'von',
  'y',
  'bin',
  'al',
  'el',
  'ter',
  'ten',
]);
const SPEAKER_PREFIX = /^([^:<>,;!?"]{1,200}?):[ \t]+(?=\S)/u;

/** `Ana Lopez: text` -> the name, when the prefix looks like one (see the module comment). */
function speakerPrefix(text: string): { name: string; rest: string } | null {
  const match = SPEAKER_PREFIX.exec(text);
  if (!match) return null;
  const name = match[1].trim();
  const words = name.split(/\s+/);
  if (words.length > 6 || !/^\p{Lu}/u.test(words[0])) return null;
  if (!words.every((word) => /^[\p{Lu}\d]/u.test(word) || NAME_PARTICLES.has(word))) return null;
  return { name, rest: text.slice(match[0].length) };
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', lrm: '', rlm: '' };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/** Markup removed (WebVTT/HTML tags, SRT `{\an8}` overrides), entities decoded, white space collapsed. */
function plainText(text: string): string {
  return decodeEntities(text.replace(/<[^>]*>/g, '').replace(/\{\\[^}]*\}/g, ''))
    .replace(/\s+/g, ' ')
    .trim();
}

// `<v Ana>`, `<v.loud Ana Lopez>`, possibly after other opening tags or a dialogue dash.
const VOICE_TAG = /^(?:[ \t]|-[ \t]|<(?!v[.\s])[^>]*>)*<v(?:\.[^\s>]*)?[ \t]+([^>]*)>/;
const DIALOGUE_DASH = /^[ \t]*-[ \t]+/;

interface Draft {
  speaker: string | null;
  parts: string[];
  line: number;
}

function cueSentences(lines: readonly Line[], timing: Timing, format: 'vtt' | 'srt'): ParsedSentence[] {
  const drafts: Draft[] = [];
  for (const line of lines) {
    let speaker: string | null = null;
    let startsNew = false;
    let text: string;
    const voice = format === 'vtt' ? VOICE_TAG.exec(line.text) : null;
    if (voice && plainText(voice[1]) !== '') {
      speaker = plainText(voice[1]);
      startsNew = true;
      text = plainText(line.text.slice(voice[0].length));
    } else {
      text = plainText(line.text);
      const dash = DIALOGUE_DASH.exec(text);
      if (dash) {
        startsNew = true;
        text = text.slice(dash[0].length);
      }
      const prefix = speakerPrefix(text);
      if (prefix) {
        speaker = prefix.name;
        startsNew = true;
        text = prefix.rest;
      }
    }
    if (speaker !== null && speaker.length > TRANSCRIPT_LIMITS.speakerLength) {
      throw new TranscriptParseError(line.number, `the speaker name is longer than ${TRANSCRIPT_LIMITS.speakerLength} characters`);
    }
    const current = drafts.at(-1);
    if (startsNew || !current) drafts.push({ speaker, parts: text ? [text] : [], line: line.number });
    else if (text) current.parts.push(text);
  }
  const sentences: ParsedSentence[] = [];
  for (const draft of drafts) {
    const text = draft.parts.join(' ').trim();
    if (text === '') continue;
    if (text.length > TRANSCRIPT_LIMITS.sentenceTextLength) {
      throw new TranscriptParseError(draft.line, `the text is longer than ${TRANSCRIPT_LIMITS.sentenceTextLength} characters`);
    }
    sentences.push({ speaker: draft.speaker ?? UNKNOWN_SPEAKER, text, startMs: timing.startMs, endMs: timing.endMs });
  }
  return sentences;
}

function addSentences(into: ParsedSentence[], sentences: readonly ParsedSentence[], line: number): void {
  if (into.length + sentences.length > TRANSCRIPT_LIMITS.sentences) {
    throw new TranscriptParseError(line, `more than ${TRANSCRIPT_LIMITS.sentences} sentences`);
  }
  into.push(...sentences);
}

function requireSentences(sentences: readonly ParsedSentence[], what: string): void {
  if (sentences.length === 0) throw new TranscriptParseError(null, `no ${what} with text found`);
}

// ---------------------------------------------------------------------------
// WebVTT
// ---------------------------------------------------------------------------

/**
 * WebVTT: the `WEBVTT` signature line (its text after `WEBVTT` and an optional dash is the
 * title), header lines up to the first blank line, then blocks: cues (optional identifier line,
 * timing line with optional cue settings, payload lines), and NOTE, STYLE and REGION blocks,
 * which are skipped.
 */
export function parseVtt(content: string): ParsedTranscript {
  const lines = splitLines(content);
  const signature = /^WEBVTT(?:[ \t]+(.*))?$/.exec(lines[0].text);
  if (!signature) throw new TranscriptParseError(1, 'a WebVTT file must start with "WEBVTT"');
  const title = (signature[1] ?? '').replace(/^[-–—:]\s*/, '').trim() || null;
  const [header, ...rest] = blocks(lines);
  // Header lines never contain "-->"; a file that omits the blank line after its header starts
  // its first cue at the first timing line.
  const firstTiming = header.findIndex((line) => line.text.includes('-->'));
  if (firstTiming > 0) rest.unshift(header.slice(firstTiming));
  const sentences: ParsedSentence[] = [];
  for (const block of rest) {
    const first = block[0];
    if (/^NOTE(?:[ \t]|$)/.test(first.text) || /^(?:STYLE|REGION)[ \t]*$/.test(first.text)) continue;
    const timingIndex = first.text.includes('-->') ? 0 : block[1]?.text.includes('-->') ? 1 : -1;
    if (timingIndex < 0) {
      // Name the line that was meant as the timing line: the first, unless it reads like an identifier.
      const line = /^\s*\d{1,3}:\d/.test(first.text) || !block[1] ? first : block[1];
      throw new TranscriptParseError(line.number, `expected a cue timing line such as "00:01.000 --> 00:04.000", got ${quote(line.text)}`);
    }
    const timing = parseTiming(block[timingIndex]);
    addSentences(sentences, cueSentences(block.slice(timingIndex + 1), timing, 'vtt'), block[timingIndex].number);
  }
  requireSentences(sentences, 'cues');
  return { title, occurredAt: null, participants: null, sentences };
}

// ---------------------------------------------------------------------------
// SRT
// ---------------------------------------------------------------------------

/** SRT: blocks of a sequence number, a timing line (`HH:MM:SS,mmm --> HH:MM:SS,mmm`) and text lines. */
export function parseSrt(content: string): ParsedTranscript {
  const sentences: ParsedSentence[] = [];
  for (const block of blocks(splitLines(content))) {
    const first = block[0];
    let timingIndex: number;
    if (first.text.includes('-->')) timingIndex = 0;
    else if (/^\s*\d+\s*$/.test(first.text)) timingIndex = 1;
    else throw new TranscriptParseError(first.number, `expected a subtitle number or a timing line, got ${quote(first.text)}`);
    const timingLine = block[timingIndex];
    if (!timingLine)
      throw new TranscriptParseError(first.number + 1, 'expected a timing line such as "00:00:01,000 --> 00:00:04,000" after the subtitle number');
    const timing = parseTiming(timingLine);
    addSentences(sentences, cueSentences(block.slice(timingIndex + 1), timing, 'srt'), timingLine.number);
  }
  requireSentences(sentences, 'subtitles');
  return { title: null, occurredAt: null, participants: null, sentences };
}

// ---------------------------------------------------------------------------
// JSON
// ---------------------------------------------------------------------------

/**
 * The JSON format:
 *
 *   {
 *     "title": "Product standup",                     // string; may be left to the import's title
 *     "occurred_at": "2026-03-02T09:30:00Z",          // ISO 8601 with offset; may be left to the import's occurredAt
 *     "participants": ["Ana Lopez", "Ben Okafor"],     // optional; else the distinct speakers
 *     "sentences": [
 *       {"speaker": "Ana Lopez", "text": "Morning all.", "start": 0, "end": 2.5},
 *       {"speaker": "Ben Okafor", "text": "Hi.", "start": "00:02.600"}
 *     ]
 *   }
 *
 * `start` and `end` are seconds (a number, at most millisecond precision is kept) or a timestamp
 * string; `end` is optional and not before `start`. Other keys are ignored.
 */
export function parseJsonTranscript(content: string): ParsedTranscript {
  const text = content.charCodeAt(0) === 0xfeff ? content.slice(1) : content;
  const doc = new LocatedJson(text).parse();
  const root = doc.value;
  if (!isObject(root)) throw new TranscriptParseError(1, 'the JSON must be an object with "title", "occurred_at" and "sentences"');
  const at = (object: object, key?: string) => (key !== undefined ? doc.keyLine(object, key) : undefined) ?? doc.lineOf(object) ?? 1;

  let title: string | null = null;
  if (root.title !== undefined && root.title !== null) {
    if (typeof root.title !== 'string') throw new TranscriptParseError(at(root, 'title'), '"title" must be a string');
    title = root.title.trim() || null;
  }

  let occurredAt: Date | null = null;
  if (root.occurred_at !== undefined && root.occurred_at !== null) {
    occurredAt = typeof root.occurred_at === 'string' ? parseInstant(root.occurred_at) : null;
    if (!occurredAt)
      throw new TranscriptParseError(at(root, 'occurred_at'), '"occurred_at" must be an ISO 8601 timestamp with a time zone, e.g. "2026-03-02T09:30:00Z"');
  }

  let participants: string[] | null = null;
  if (root.participants !== undefined && root.participants !== null) {
    const list = root.participants;
    if (!Array.isArray(list)) throw new TranscriptParseError(at(root, 'participants'), '"participants" must be an array of names');
    if (list.length > TRANSCRIPT_LIMITS.participants)
      throw new TranscriptParseError(at(root, 'participants'), `at most ${TRANSCRIPT_LIMITS.participants} participants`);
    const names = new Set<string>();
    list.forEach((name, index) => {
      const line = doc.itemLine(list, index) ?? at(root, 'participants');
      if (typeof name !== 'string' || name.trim() === '') throw new TranscriptParseError(line, `participants[${index}] must be a non-empty string`);
      if (name.trim().length > TRANSCRIPT_LIMITS.speakerLength)
        throw new TranscriptParseError(line, `participants[${index}] is longer than ${TRANSCRIPT_LIMITS.speakerLength} characters`);
      names.add(name.trim());
    });
    participants = [...names];
  }

  const list = root.sentences;
  if (!Array.isArray(list))
    throw new TranscriptParseError(at(root, 'sentences'), '"sentences" must be an array of {"speaker", "text", "start", "end"} objects');
  if (list.length > TRANSCRIPT_LIMITS.sentences)
    throw new TranscriptParseError(
      doc.itemLine(list, TRANSCRIPT_LIMITS.sentences) ?? at(root, 'sentences'),
      `more than ${TRANSCRIPT_LIMITS.sentences} sentences`,
    );
  const sentences = list.map((item, index): ParsedSentence => {
    const where = `sentences[${index}]`;
    if (!isObject(item)) throw new TranscriptParseError(doc.itemLine(list, index) ?? at(root, 'sentences'), `${where} must be an object`);
    const { speaker, text: said, start, end } = item;
    if (typeof speaker !== 'string' || speaker.trim() === '')
      throw new TranscriptParseError(at(item, 'speaker'), `${where}.speaker must be a non-empty string`);
    if (speaker.trim().length > TRANSCRIPT_LIMITS.speakerLength) {
      throw new TranscriptParseError(at(item, 'speaker'), `${where}.speaker is longer than ${TRANSCRIPT_LIMITS.speakerLength} characters`);
    }
    if (typeof said !== 'string' || said.trim() === '') throw new TranscriptParseError(at(item, 'text'), `${where}.text must be a non-empty string`);
    const textValue = said.replace(/\s+/g, ' ').trim();
    if (textValue.length > TRANSCRIPT_LIMITS.sentenceTextLength) {
      throw new TranscriptParseError(at(item, 'text'), `${where}.text is longer than ${TRANSCRIPT_LIMITS.sentenceTextLength} characters`);
    }
    if (start === undefined || start === null) throw new TranscriptParseError(at(item), `${where}.start is required`);
    const startMs = jsonTime(start, () => at(item, 'start'), `${where}.start`);
    const endMs = end === undefined || end === null ? null : jsonTime(end, () => at(item, 'end'), `${where}.end`);
    if (endMs !== null && endMs < startMs) throw new TranscriptParseError(at(item, 'end'), `${where}.end is before its start`);
    return { speaker: speaker.trim(), text: textValue, startMs, endMs };
  });
  requireSentences(sentences, 'sentences');
  return { title, occurredAt, participants, sentences };
}

const MAX_MS = parseTimestamp('999:59:59.999') ?? 0;

function jsonTime(value: unknown, line: () => number, where: string): number {
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) throw new TranscriptParseError(line(), `${where} must be a non-negative number of seconds`);
    const ms = Math.round(value * 1000);
    if (ms > MAX_MS) throw new TranscriptParseError(line(), `${where} is beyond 999:59:59.999`);
    return ms;
  }
  if (typeof value === 'string') {
    const ms = parseTimestamp(value);
    if (ms === null) throw new TranscriptParseError(line(), `${where}: invalid timestamp ${quote(value)}`);
    return ms;
  }
  throw new TranscriptParseError(line(), `${where} must be seconds (a number) or a timestamp string`);
}

const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

/** An ISO 8601 instant with an explicit offset; null otherwise. */
export function parseInstant(text: string): Date | null {
  if (!INSTANT.test(text.trim())) return null;
  const date = new Date(text.trim());
  return Number.isNaN(date.getTime()) ? null : date;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A strict JSON parser (RFC 8259) that remembers the line where every object and array starts,
 * where each object's values and each array's items start, so that a problem in an imported
 * file can name its line. Syntax errors name the line too.
 */
class LocatedJson {
  private pos = 0;
  private line = 1;
  private readonly starts = new WeakMap<object, number>();
  private readonly keyLines = new WeakMap<object, Map<string, number>>();
  private readonly itemLines = new WeakMap<object, number[]>();

  constructor(private readonly text: string) {}

  parse() {
    const value = this.value(0);
    this.whitespace();
    if (this.pos < this.text.length) this.fail(`unexpected ${quote(this.text[this.pos])} after the end of the document`);
    return {
      value,
      lineOf: (object: object) => this.starts.get(object),
      keyLine: (object: object, key: string) => this.keyLines.get(object)?.get(key),
      itemLine: (array: object, index: number) => this.itemLines.get(array)?.[index],
    };
  }

  private fail(problem: string): never {
    throw new TranscriptParseError(this.line, `invalid JSON: ${problem}`);
  }

  private whitespace(): void {
    const { text } = this;
    while (this.pos < text.length) {
      const code = text.charCodeAt(this.pos);
      if (code === 0x0a) this.line += 1;
      else if (code !== 0x20 && code !== 0x09 && code !== 0x0d) break;
      this.pos += 1;
    }
  }

  private value(depth: number): unknown {
    if (depth > 64) this.fail('nested too deeply');
    this.whitespace();
    const char = this.text[this.pos];
    if (char === undefined) this.fail('unexpected end of input');
    if (char === '{') return this.object(depth);
    if (char === '[') return this.array(depth);
    if (char === '"') return this.string();
    if (char === '-' || (char >= '0' && char <= '9')) return this.number();
    for (const [literal, value] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (this.text.startsWith(literal, this.pos)) {
        this.pos += literal.length;
        return value;
      }
    }
    return this.fail(`unexpected ${quote(char)}`);
  }

  private object(depth: number): Record<string, unknown> {
    const object: Record<string, unknown> = {};
    const lines = new Map<string, number>();
    this.starts.set(object, this.line);
    this.keyLines.set(object, lines);
    this.pos += 1;
    this.whitespace();
    if (this.text[this.pos] === '}') {
      this.pos += 1;
      return object;
    }
    for (;;) {
      this.whitespace();
      if (this.text[this.pos] !== '"') this.fail('expected a property name in double quotes');
      const key = this.string();
      this.whitespace();
      if (this.text[this.pos] !== ':') this.fail(`expected ":" after the property name ${quote(key)}`);
      this.pos += 1;
      this.whitespace();
      lines.set(key, this.line);
      // defineProperty: a "__proto__" key is an ordinary property, never the prototype.
      Object.defineProperty(object, key, { value: this.value(depth + 1), enumerable: true, writable: true, configurable: true });
      this.whitespace();
      const next = this.text[this.pos];
      this.pos += 1;
      if (next === '}') return object;
      if (next !== ',') this.fail(next === undefined ? 'unexpected end of input' : `expected "," or "}" but found ${quote(next)}`);
    }
  }

  private array(depth: number): unknown[] {
    const array: unknown[] = [];
    const lines: number[] = [];
    this.starts.set(array, this.line);
    this.itemLines.set(array, lines);
    this.pos += 1;
    this.whitespace();
    if (this.text[this.pos] === ']') {
      this.pos += 1;
      return array;
    }
    for (;;) {
      this.whitespace();
      lines.push(this.line);
      array.push(this.value(depth + 1));
      this.whitespace();
      const next = this.text[this.pos];
      this.pos += 1;
      if (next === ']') return array;
      if (next !== ',') this.fail(next === undefined ? 'unexpected end of input' : `expected "," or "]" but found ${quote(next)}`);
    }
  }

  private string(): string {
    const { text } = this;
    const start = this.pos;
    let index = start + 1;
    for (;;) {
      const code = text.charCodeAt(index);
      if (Number.isNaN(code)) this.fail('unterminated string');
      if (code === 0x22) break;
      if (code < 0x20) this.fail('unescaped control character in a string');
      index += code === 0x5c ? 2 : 1;
    }
    this.pos = index + 1;
    try {
      return JSON.parse(text.slice(start, this.pos)) as string;
    } catch {
      return this.fail('invalid escape sequence in a string');
    }
  }

  private number(): number {
    const pattern = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
    pattern.lastIndex = this.pos;
    const match = pattern.exec(this.text);
    if (!match) this.fail('invalid number');
    this.pos += match[0].length;
    return Number(match[0]);
  }
}
