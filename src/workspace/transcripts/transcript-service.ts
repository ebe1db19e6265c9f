import type { PrismaClient } from '../../generated/prisma/client.ts';
import { AppError } from '../../errors.ts';
import type { Logger } from '../../log.ts';
import { LIMITS, boundedText, optionalText } from '../validation.ts';
import { BuiltinTranscriptProvider } from './builtin-provider.ts';
import { HttpTranscriptProvider } from './http-provider.ts';
import {
  TRANSCRIPT_LIMITS,
  TranscriptParseError,
  durationSeconds,
  parseTranscript,
  speakersOf,
  type ParsedTranscript,
  type TranscriptFormat,
} from './parsers.ts';
import type { TranscriptDetail, TranscriptListOptions, TranscriptPage, TranscriptProvider } from './types.ts';
import { INSTANT_RANGE_PROBLEM, isStorableInstant } from '../../util/instants.ts';
import { TEXT_PROBLEMS, textProblem } from '../../util/text.ts';

export interface TranscriptConfig {
  provider: 'builtin' | 'http';
  apiUrl?: string;
  apiKey?: string;
  timeoutMs: number;
}

export interface ImportTranscriptInput {
  format: TranscriptFormat;
  content: string;
  /** Overrides the title in the content (WebVTT header text, JSON `title`). */
  title?: string | null;
  /** Overrides JSON `occurred_at`; default for WebVTT and SRT: the time of the import. */
  occurredAt?: Date | null;
}

export interface ImportOptions {
  /** Used when neither the input nor the content names a title (the CLI passes the file name). */
  fallbackTitle?: string;
  /** Stored as the transcript's source (default: the format). */
  source?: string;
  now?: Date;
}

export const READ_ONLY_MESSAGE = 'Transcripts are read-only with the http provider';

/**
 * Transcripts of one user at a time: listing and reading go to the configured provider;
 * importing and deleting need the built-in one (with the http provider they are a 400
 * `Transcripts are read-only with the http provider`).
 */
export class TranscriptService {
  constructor(
    readonly provider: TranscriptProvider,
    private readonly store: BuiltinTranscriptProvider | null,
  ) {}

  /** Whether imports and deletes are possible (the built-in provider is configured). */
  get writable(): boolean {
    return this.store !== null;
  }

  list(userId: string, options: TranscriptListOptions): Promise<TranscriptPage> {
    return this.provider.list(userId, options);
  }

  async get(userId: string, id: string): Promise<TranscriptDetail> {
    const transcript = await this.provider.get(userId, id);
    if (!transcript) throw AppError.notFound('Transcript');
    return transcript;
  }

  async import(userId: string, input: ImportTranscriptInput, options: ImportOptions = {}): Promise<TranscriptDetail> {
    const store = this.requireStore();
    const bytes = Buffer.byteLength(input.content, 'utf8');
    if (bytes > TRANSCRIPT_LIMITS.contentBytes) {
      throw AppError.badInput('content', `must be at most 5 MB (${TRANSCRIPT_LIMITS.contentBytes} bytes), got ${bytes} bytes`);
    }
    let parsed;
    try {
      parsed = parseTranscript(input.format, input.content);
    } catch (error) {
      if (error instanceof TranscriptParseError) throw AppError.badInput('content', error.message);
      throw error;
    }
    const unstorable = unstorableText(parsed);
    if (unstorable) throw AppError.badInput('content', unstorable);
    const title =
      optionalText(input.title, 'title', LIMITS.titleLength) ??
      (parsed.title === null ? null : boundedText(parsed.title, 'title', LIMITS.titleLength)) ??
      (options.fallbackTitle ? boundedText(options.fallbackTitle, 'title', LIMITS.titleLength) : null);
    if (title === null) throw AppError.badInput('title', 'is required: the content names no title');
    const occurredAt = input.occurredAt ?? parsed.occurredAt ?? options.now ?? new Date();
    if (Number.isNaN(occurredAt.getTime())) throw AppError.badInput('occurredAt', 'must be an ISO 8601 timestamp');
    if (!isStorableInstant(occurredAt)) throw AppError.badInput('occurredAt', INSTANT_RANGE_PROBLEM);
    const id = await store.create(userId, {
      title,
      occurredAt,
      durationSeconds: durationSeconds(parsed.sentences),
      participants: parsed.participants ?? speakersOf(parsed.sentences),
      source: options.source ?? input.format,
      sentences: parsed.sentences,
    });
    return this.get(userId, id);
  }

  /** Hard delete; 404 when the user has no such transcript. */
  async delete(userId: string, id: string): Promise<void> {
    if (!(await this.requireStore().delete(userId, id))) throw AppError.notFound('Transcript');
  }

  private requireStore(): BuiltinTranscriptProvider {
    if (!this.store) throw new AppError('BAD_USER_INPUT', READ_ONLY_MESSAGE);
    return this.store;
  }
}

/** The service for the configured provider (TRANSCRIPT_PROVIDER). */
export function createTranscriptService(options: { config: TranscriptConfig; prisma: PrismaClient; log?: Logger }): TranscriptService {
  const { config, prisma, log } = options;
  if (config.provider === 'http') {
    if (!config.apiUrl || !config.apiKey) throw new Error('TRANSCRIPT_API_URL and TRANSCRIPT_API_KEY are required with TRANSCRIPT_PROVIDER=http');
    const provider = new HttpTranscriptProvider({
      baseUrl: config.apiUrl,
      apiKey: config.apiKey,
      timeoutMs: config.timeoutMs,
      log,
      async emailOf(userId) {
        const user = await prisma.user.findUnique({ where: { id: userId }, select: { email: true } });
        if (!user) throw AppError.notFound('User');
        return user.email;
      },
    });
    return new TranscriptService(provider, null);
  }
  const builtin = new BuiltinTranscriptProvider(prisma);
  return new TranscriptService(builtin, builtin);
}

/**
 * The first text of a parsed transcript the database could not store (escapes in JSON content
 * can produce a NUL or half a surrogate pair that the content string itself did not hold).
 */
function unstorableText(parsed: ParsedTranscript): string | undefined {
  const named: [string, string | null][] = [
    ['title', parsed.title],
    ...(parsed.participants ?? []).map((name, i): [string, string] => [`participant ${i + 1}`, name]),
  ];
  parsed.sentences.forEach((sentence, i) => named.push([`sentence ${i + 1} speaker`, sentence.speaker], [`sentence ${i + 1} text`, sentence.text]));
  for (const [where, text] of named) {
    const problem = text === null ? undefined : textProblem(text);
    if (problem) return `${where} ${TEXT_PROBLEMS[problem]}`;
  }
  return undefined;
}
