/**
 * The shapes shared by the generation agents: what the collector gathers, what an analyst
 * finds, what the writer produces. Plain data, no Prisma types, so agents are easy to test.
 */

export const GENERATION_SOURCES = ['stickies', 'links', 'transcripts', 'tasks', 'news'] as const;
export type GenerationSource = (typeof GENERATION_SOURCES)[number];

export const SUMMARY_LENGTHS = ['short', 'medium', 'long'] as const;
export type SummaryLength = (typeof SUMMARY_LENGTHS)[number];

/** The options of a run, validated (see generation-service.ts for the limits). */
export interface GenerationOptions {
  /** Look-back window in days (records created or updated within it). */
  days: number;
  sources: GenerationSource[];
  length: SummaryLength;
}

export type ReferenceKind = 'sticky' | 'link' | 'transcript' | 'task' | 'news';

/** A source record the summary used; rendered as a numbered reference list under the summary. */
export interface SourceReference {
  kind: ReferenceKind;
  id: string;
  title: string;
}

export interface CollectedSticky {
  id: string;
  content: string;
  tags: string[];
  updatedAt: Date;
}

export interface CollectedLink {
  id: string;
  url: string;
  title: string | null;
  tags: string[];
  starred: boolean;
  createdAt: Date;
}

export interface CollectedSentence {
  speaker: string;
  text: string;
  startSeconds: number;
}

export interface CollectedTranscript {
  id: string;
  title: string;
  occurredAt: Date;
  participants: string[];
  sentences: CollectedSentence[];
}

export interface CollectedTask {
  id: string;
  title: string;
  description: string | null;
  status: 'todo' | 'in_progress' | 'blocked' | 'done' | 'cancelled';
  priority: 'low' | 'medium' | 'high' | 'urgent';
  assignee: string | null;
  /** YYYY-MM-DD */
  dueDate: string | null;
  labels: string[];
  updatedAt: Date;
  comments: { body: string; createdAt: Date }[];
}

export interface CollectedNews {
  id: string;
  title: string;
  url: string;
  source: string;
  summary: string | null;
  tags: string[];
  publishedAt: Date;
}

/** What the collector gathered: only the requested sources are present. */
export interface CollectedWorkspace {
  /** The window: records from `since` to `until`. */
  since: Date;
  until: Date;
  stickies?: CollectedSticky[];
  links?: CollectedLink[];
  transcripts?: CollectedTranscript[];
  tasks?: CollectedTask[];
  news?: CollectedNews[];
}

/** One thing an analyst found, with the records that support it. */
export interface Finding {
  /** One plain sentence, markdown-safe (no leading `#`, no newlines). */
  text: string;
  /** Higher first; 0..1. */
  weight: number;
  references: SourceReference[];
}

/** The result of one analyst. */
export interface Analysis {
  /** The analyst's agent name: `notes`, `meetings`, `tasks`, `news`. */
  agent: AnalystName;
  /** Section heading for the summary, e.g. "Notes and links". */
  heading: string;
  /** Most important first. */
  findings: Finding[];
  /** Content words that characterise this source (the editor checks the summary mentions them). */
  keyTerms: string[];
  /** Counts and figures for the event's `data` (JSON-safe). */
  metrics: Record<string, number | string | string[]>;
}

export const ANALYST_NAMES = ['notes', 'meetings', 'tasks', 'news'] as const;
export type AnalystName = (typeof ANALYST_NAMES)[number];

/** Which sources each analyst reads. */
export const ANALYST_SOURCES: Record<AnalystName, GenerationSource[]> = {
  notes: ['stickies', 'links'],
  meetings: ['transcripts'],
  tasks: ['tasks'],
  news: ['news'],
};

/** Progress reporting from inside an agent: progress 1..99, rising. */
export type ReportProgress = (progress: number, message: string, data?: Record<string, unknown>) => Promise<void>;

export interface WrittenSummary {
  markdown: string;
  references: SourceReference[];
  /** `openai` (the configured model) or `offline` (the extractive summariser). */
  provider: 'openai' | 'offline';
}
