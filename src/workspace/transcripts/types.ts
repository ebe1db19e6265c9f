import type { Page } from '../../pagination.ts';
/**
 * The transcript provider interface: where transcripts come from is a configuration choice
 * (`TRANSCRIPT_PROVIDER`): the built-in database provider, or a meeting-transcription service's
 * HTTP API. Both answer in these shapes; neither knows anything about GraphQL or REST.
 */

/** A transcript as listed: everything but the sentences. */
export interface TranscriptSummary {
  id: string;
  title: string;
  occurredAt: Date;
  /** Rounded up to a whole second. */
  durationSeconds: number;
  participants: string[];
  sentenceCount: number;
}

export interface TranscriptSentenceRecord {
  speaker: string;
  text: string;
  startSeconds: number;
  endSeconds: number | null;
}

export interface TranscriptDetail extends TranscriptSummary {
  /** In spoken order. */
  sentences: TranscriptSentenceRecord[];
}

export interface TranscriptListOptions {
  limit: number;
  /** An opaque cursor from a previous page of the same provider, or null for the first page. */
  cursor: string | null;
}

/** A page of transcripts, newest first; every row carries the cursor that resumes after it. */
export type TranscriptPage = Page<TranscriptSummary & { cursor: string }>;

export interface TranscriptProvider {
  readonly kind: 'builtin' | 'http';
  /** The user's transcripts, newest first by `occurredAt`. */
  list(userId: string, options: TranscriptListOptions): Promise<TranscriptPage>;
  /** One of the user's transcripts with its sentences; null when it does not exist or is not theirs. */
  get(userId: string, id: string): Promise<TranscriptDetail | null>;
}
