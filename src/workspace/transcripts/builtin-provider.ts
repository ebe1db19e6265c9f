import type { Prisma, PrismaClient } from '../../generated/prisma/client.ts';
import { AppError } from '../../errors.ts';
import type { ParsedSentence } from './parsers.ts';
import { decodeCursor, encodeCursor, instantAndId } from '../../pagination.ts';
import type { TranscriptDetail, TranscriptListOptions, TranscriptPage, TranscriptProvider, TranscriptSummary } from './types.ts';

/** What the importer hands over to be stored (already parsed and validated). */
export interface NewTranscript {
  title: string;
  occurredAt: Date;
  durationSeconds: number;
  participants: string[];
  /** vtt, srt, json or demo */
  source: string;
  sentences: readonly ParsedSentence[];
}

const SENTENCE_BATCH = 1000;

const SUMMARY_SELECT = {
  id: true,
  title: true,
  occurredAt: true,
  durationSeconds: true,
  participants: true,
  _count: { select: { sentences: true } },
} satisfies Prisma.TranscriptSelect;

type SummaryRow = Prisma.TranscriptGetPayload<{ select: typeof SUMMARY_SELECT }>;

/** The built-in provider: transcripts imported into the service's own database. */
export class BuiltinTranscriptProvider implements TranscriptProvider {
  readonly kind = 'builtin' as const;

  constructor(private readonly prisma: PrismaClient) {}

  async list(userId: string, options: TranscriptListOptions): Promise<TranscriptPage> {
    const after = options.cursor === null ? null : decodeTranscriptCursor(options.cursor);
    const rows = await this.prisma.transcript.findMany({
      select: SUMMARY_SELECT,
      where: {
        userId,
        ...(after ? { OR: [{ occurredAt: { lt: after.occurredAt } }, { occurredAt: after.occurredAt, id: { lt: after.id } }] } : {}),
      },
      orderBy: [{ occurredAt: 'desc' }, { id: 'desc' }],
      take: options.limit + 1,
    });
    const page = rows.slice(0, options.limit).map((row) => ({ ...toSummary(row), cursor: transcriptCursor(row) }));
    const hasMore = rows.length > options.limit;
    return { rows: page, hasMore, nextCursor: hasMore ? (page.at(-1)?.cursor ?? null) : null };
  }

  async get(userId: string, id: string): Promise<TranscriptDetail | null> {
    const row = await this.prisma.transcript.findFirst({
      select: { ...SUMMARY_SELECT, sentences: { orderBy: { position: 'asc' }, select: { speaker: true, text: true, startSeconds: true, endSeconds: true } } },
      where: { id, userId },
    });
    if (!row) return null;
    return {
      ...toSummary(row),
      sentences: row.sentences.map((sentence) => ({
        speaker: sentence.speaker,
        text: sentence.text,
        startSeconds: Number(sentence.startSeconds.toString()),
        endSeconds: sentence.endSeconds === null ? null : Number(sentence.endSeconds.toString()),
      })),
    };
  }

  /** Stores a transcript and its sentences in one transaction (all or nothing). Returns its id. */
  async create(userId: string, transcript: NewTranscript): Promise<string> {
    return this.prisma.$transaction(
      async (tx) => {
        const { id } = await tx.transcript.create({
          select: { id: true },
          data: {
            userId,
            title: transcript.title,
            occurredAt: transcript.occurredAt,
            durationSeconds: transcript.durationSeconds,
            participants: transcript.participants,
            source: transcript.source,
          },
        });
        for (let offset = 0; offset < transcript.sentences.length; offset += SENTENCE_BATCH) {
          await tx.transcriptSentence.createMany({
            data: transcript.sentences.slice(offset, offset + SENTENCE_BATCH).map((sentence, index) => ({
              transcriptId: id,
              position: offset + index,
              speaker: sentence.speaker,
              text: sentence.text,
              startSeconds: seconds(sentence.startMs),
              endSeconds: sentence.endMs === null ? null : seconds(sentence.endMs),
            })),
          });
        }
        return id;
      },
      // 20,000 sentences take a few seconds on the embedded database; Prisma's default is 5 s.
      { maxWait: 10_000, timeout: 120_000 },
    );
  }

  /** Hard delete (sentences cascade). False when there is no such transcript of this user. */
  async delete(userId: string, id: string): Promise<boolean> {
    const { count } = await this.prisma.transcript.deleteMany({ where: { id, userId } });
    return count > 0;
  }
}

function toSummary(row: SummaryRow): TranscriptSummary {
  return {
    id: row.id,
    title: row.title,
    occurredAt: row.occurredAt,
    durationSeconds: row.durationSeconds,
    participants: row.participants,
    sentenceCount: row._count.sentences,
  };
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

// Cursor: the (occurredAt, id) of the last row, newest first.
function transcriptCursor(row: { occurredAt: Date; id: string }): string {
  return encodeCursor({ o: row.occurredAt.toISOString(), i: row.id });
}

function decodeTranscriptCursor(cursor: string): { occurredAt: Date; id: string } {
  const { at, id } = decodeCursor(cursor, instantAndId('o', 'i'), 'list');
  return { occurredAt: at, id };
}
