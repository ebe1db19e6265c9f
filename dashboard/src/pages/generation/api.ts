import { gql } from 'urql';
import { PAGE_INFO_FIELDS, type PageInfo } from '../../components/pager.tsx';

export type RunState = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';
export type AgentStatus = 'queued' | 'started' | 'active' | 'complete' | 'failed';
export type Source = 'stickies' | 'links' | 'transcripts' | 'tasks' | 'news';
export type SummaryLength = 'short' | 'medium' | 'long';
export type ReferenceKind = 'sticky' | 'link' | 'transcript' | 'task' | 'news';

export const SOURCES: { value: Source; label: string }[] = [
  { value: 'stickies', label: 'Stickies' },
  { value: 'links', label: 'Links' },
  { value: 'transcripts', label: 'Meeting transcripts' },
  { value: 'tasks', label: 'Tasks' },
  { value: 'news', label: 'News' },
];

export const LENGTHS: { value: SummaryLength; label: string }[] = [
  { value: 'short', label: 'Short (about 120 words)' },
  { value: 'medium', label: 'Medium (about 250 words)' },
  { value: 'long', label: 'Long (about 450 words)' },
];

/** The look-back window the API accepts (StartGenerationInput.days). */
export const DAYS_MIN = 1;
export const DAYS_MAX = 90;

/** One progress event, as the subscription and the run's log give it. */
export interface ProgressEvent {
  sequence: number;
  agent: string;
  status: AgentStatus;
  progress: number;
  message: string;
  /** Agent-specific details (snake_case keys); read it with the guards in progress.ts. */
  data: unknown;
  createdAt: string;
}

export interface Heartbeat {
  at: string;
  lastSequence: number;
}

export type ProgressItem = ({ __typename: 'GenerationEvent' } & ProgressEvent) | ({ __typename: 'GenerationHeartbeat' } & Heartbeat);

export const ProgressSubscription = gql<{ generationProgress: ProgressItem }, { runId: string; after: number }>(`
  subscription GenerationProgress($runId: UUID!, $after: Int) {
    generationProgress(runId: $runId, after: $after) {
      __typename
      ... on GenerationEvent { sequence agent status progress message data createdAt }
      ... on GenerationHeartbeat { at lastSequence }
    }
  }
`);

export interface RunOptions {
  days: number;
  length: SummaryLength;
  sources: Source[];
}

export interface Reference {
  id: string;
  kind: ReferenceKind;
  title: string;
}

export interface RunDetails {
  id: string;
  state: RunState;
  options: RunOptions;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  finished: boolean;
  cancelRequested: boolean;
  lastSequence: number;
  degraded: boolean;
  failedAgents: string[];
  error: string | null;
  summary: string | null;
  summaryProvider: string | null;
  references: Reference[];
}

const RUN_FIELDS = `id state options { days length sources } createdAt startedAt finishedAt finished cancelRequested lastSequence
  degraded failedAgents error summary summaryProvider references { id kind title }`;

export const RunQuery = gql<{ generationRun: RunDetails }, { id: string }>(`
  query GenerationRun($id: UUID!) { generationRun(id: $id) { ${RUN_FIELDS} } }
`);

export const StartMutation = gql<{ startGeneration: { id: string; state: RunState } }, { input: { days: number; length: SummaryLength; sources: Source[] } }>(`
  mutation StartGeneration($input: StartGenerationInput) { startGeneration(input: $input) { id state } }
`);

export const CancelMutation = gql<{ cancelGeneration: { id: string; state: RunState; cancelRequested: boolean } }, { id: string }>(`
  mutation CancelGeneration($id: UUID!) { cancelGeneration(id: $id) { id state cancelRequested } }
`);

export interface RunListItem {
  id: string;
  state: RunState;
  options: RunOptions;
  createdAt: string;
  finishedAt: string | null;
  degraded: boolean;
  failedAgents: string[];
  summaryProvider: string | null;
}

export const RunsQuery = gql<
  {
    generationRuns: { edges: { node: RunListItem }[]; pageInfo: PageInfo };
    queued: { edges: { node: { id: string } }[] };
    running: { edges: { node: { id: string } }[] };
  },
  { first: number; after: string | null; state: RunState | null }
>(`
  query GenerationRuns($first: Int, $after: String, $state: GenerationRunState) {
    generationRuns(first: $first, after: $after, state: $state) {
      edges { node { id state options { days length sources } createdAt finishedAt degraded failedAgents summaryProvider } }
      ${PAGE_INFO_FIELDS}
    }
    queued: generationRuns(first: 1, state: queued) { edges { node { id } } }
    running: generationRuns(first: 1, state: running) { edges { node { id } } }
  }
`);

export const RUN_STATES: RunState[] = ['queued', 'running', 'completed', 'failed', 'cancelled'];

export function isInProgress(state: RunState): boolean {
  return state === 'queued' || state === 'running';
}
