import { readFile } from 'node:fs/promises';
import type { Services } from '../services.ts';
import type { TranscriptFormat } from '../workspace/transcripts/parsers.ts';
import type { TranscriptDetail } from '../workspace/transcripts/types.ts';

export interface SampleTranscript {
  /** under samples/transcripts/ */
  file: string;
  format: TranscriptFormat;
  /** The seed dates the meeting this many days before the seed ran, at this UTC time. */
  daysAgo: number;
  timeUtc: string;
  /** When the file names no title (SRT). */
  title?: string;
}

/** The shipped sample transcripts, one per import format. */
export const SAMPLE_TRANSCRIPTS: readonly SampleTranscript[] = [
  { file: 'weekly-investment-committee.vtt', format: 'vtt', daysAgo: 1, timeUtc: '14:00:00' },
  { file: 'client-call-cedar-trust.srt', format: 'srt', daysAgo: 3, timeUtc: '15:30:00', title: 'Client call: Cedar Family Trust, January statement' },
  { file: 'product-standup.json', format: 'json', daysAgo: 6, timeUtc: '09:30:00' },
];

export function sampleTranscriptUrl(file: string): URL {
  return new URL(`../../samples/transcripts/${file}`, import.meta.url);
}

/**
 * Demo transcripts for the demo admin: the three sample files in samples/transcripts/, imported
 * through the real importer (TranscriptService.import) and dated in the recent past so that
 * `GET /api/transcripts` lists them newest first. Nothing is seeded with the http provider,
 * whose transcripts live in the external service (returns []).
 */
export async function seedTranscripts(services: Services, userId: string, now: Date = new Date()): Promise<TranscriptDetail[]> {
  const transcripts = services.transcripts;
  if (!transcripts.writable) return [];
  const created: TranscriptDetail[] = [];
  for (const sample of SAMPLE_TRANSCRIPTS) {
    const content = await readFile(sampleTranscriptUrl(sample.file), 'utf8');
    const day = new Date(now.getTime() - sample.daysAgo * 86_400_000).toISOString().slice(0, 10);
    created.push(
      await transcripts.import(
        userId,
        { format: sample.format, content, title: sample.title ?? null, occurredAt: new Date(`${day}T${sample.timeUtc}Z`) },
        { source: 'demo' },
      ),
    );
  }
  return created;
}
