import { graphql, type ResultOf } from '../../api/graphql.ts';

export type RunState = RunDetails['state'];
export type Source = RunOptions['sources'][number];
export type SummaryLength = RunOptions['length'];

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

/**
 * One progress event or heartbeat, as the subscription gives it. An event's `data` holds
 * agent-specific details (snake_case keys); read it with the guards in progress.ts.
 */
export type ProgressItem = ResultOf<typeof ProgressSubscription>['generationProgress'];
export type ProgressEvent = Omit<Extract<ProgressItem, { __typename: 'GenerationEvent' }>, '__typename'>;
export type Heartbeat = Omit<Extract<ProgressItem, { __typename: 'GenerationHeartbeat' }>, '__typename'>;
export type AgentStatus = ProgressEvent['status'];

export const ProgressSubscription = graphql(`
  subscription GenerationProgress($runId: UUID!, $after: Int) {
    generationProgress(runId: $runId, after: $after) {
      __typename
      ... on GenerationEvent { sequence agent status progress message data createdAt }
      ... on GenerationHeartbeat { at lastSequence }
    }
  }
`);

export type RunDetails = ResultOf<typeof RunQuery>['generationRun'];
export type RunOptions = RunDetails['options'];
export type Reference = RunDetails['references'][number];
export type ReferenceKind = Reference['kind'];

export const RunQuery = graphql(`
  query GenerationRun($id: UUID!) {
    generationRun(id: $id) {
      id state options { days length sources } createdAt startedAt finishedAt finished cancelRequested lastSequence
      degraded failedAgents error summary summaryProvider references { id kind title }
    }
  }
`);

export const StartMutation = graphql(`
  mutation StartGeneration($input: StartGenerationInput) { startGeneration(input: $input) { id state } }
`);

export const CancelMutation = graphql(`
  mutation CancelGeneration($id: UUID!) { cancelGeneration(id: $id) { id state cancelRequested } }
`);

export type RunListItem = ResultOf<typeof RunsQuery>['generationRuns']['edges'][number]['node'];

export const RunsQuery = graphql(`
  query GenerationRuns($first: Int, $after: String, $state: GenerationRunState) {
    generationRuns(first: $first, after: $after, state: $state) {
      edges { node { id state options { days length sources } createdAt finishedAt degraded failedAgents summaryProvider } }
      pageInfo { hasNextPage endCursor }
    }
    queued: generationRuns(first: 1, state: queued) { edges { node { id } } }
    running: generationRuns(first: 1, state: running) { edges { node { id } } }
  }
`);

export const RUN_STATES: RunState[] = ['queued', 'running', 'completed', 'failed', 'cancelled'];

export function isInProgress(state: RunState): boolean {
  return state === 'queued' || state === 'running';
}
