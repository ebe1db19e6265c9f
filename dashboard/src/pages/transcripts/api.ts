import { useQuery } from 'urql';
import { graphql, type ResultOf, type VariablesOf } from '../../api/graphql.ts';

export type Transcript = ResultOf<typeof TranscriptQuery>['transcript'];
export type Sentence = Transcript['sentences'][number];
export type ImportInput = VariablesOf<typeof ImportTranscript>['input'];
export type TranscriptFormat = ImportInput['format'];

export const TRANSCRIPTS_PAGE_SIZE = 20;

/** Whether transcripts can be imported and deleted here (not when they come from an external service). */
export const TranscriptSourceQuery = graphql(`
  query TranscriptSource { transcriptSource { provider writable } }
`);

/** True while unknown, so the actions do not flash in and out; the service refuses them anyway. */
export function useTranscriptsWritable(): boolean {
  const [{ data }] = useQuery({ query: TranscriptSourceQuery, requestPolicy: 'cache-first' });
  return data?.transcriptSource.writable ?? true;
}

export const TranscriptsQuery = graphql(`
  query Transcripts($first: Int, $after: String) {
    transcripts(first: $first, after: $after) {
      edges { node { id title occurredAt durationSeconds participants sentenceCount } }
      pageInfo { hasNextPage endCursor }
    }
  }
`);

export const TranscriptQuery = graphql(`
  query Transcript($id: UUID!) {
    transcript(id: $id) { id title occurredAt durationSeconds participants sentenceCount sentences { speaker text startSeconds endSeconds } }
  }
`);

export const ImportTranscript = graphql(`
  mutation ImportTranscript($input: ImportTranscriptInput!) { importTranscript(input: $input) { id title sentenceCount } }
`);

export const DeleteTranscript = graphql(`
  mutation DeleteTranscript($id: UUID!) { deleteTranscript(id: $id) }
`);

/** Mutations that return no listed type tell urql's document cache which lists they change. */
export const TRANSCRIPT_LISTS = { additionalTypenames: ['QueryTranscriptsConnection', 'Transcript'] };

/** Seconds from the start of the meeting as mm:ss (h:mm:ss from an hour on). */
export function formatClock(seconds: number): string {
  const total = Math.max(0, Math.floor(seconds));
  const h = Math.floor(total / 3600);
  const mm = String(Math.floor((total % 3600) / 60)).padStart(2, '0');
  const ss = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${mm}:${ss}` : `${mm}:${ss}`;
}

/** A meeting's length in words: "45 s", "14 min", "1 h 05 min". */
export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}

/** An ISO 8601 duration for <time dateTime>, e.g. PT1M4S. */
export function isoDuration(seconds: number): string {
  const total = Math.max(0, Math.floor(seconds));
  return `PT${Math.floor(total / 60)}M${total % 60}S`;
}

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
