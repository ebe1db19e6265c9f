import { isFinalEvent as isFinal } from '../../src/generation/run-store.ts';
import type { RestRoute } from '../route.ts';

const RUN_FIELDS = 'id state lastSequence finished';

/**
 * docs/spec/workspace-service.md: generation. GET /api/generate starts a summary generation and
 * streams its progress as server-sent events (event-stream.ts); `run_id` follows an existing run
 * instead, and Last-Event-ID resumes after an event.
 */
export const generationRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/api/generate',
    summary:
      'Starts a summary generation (query days, sources, length) or follows one (run_id), and streams its progress as server-sent events; Last-Event-ID resumes.',
    operation: `mutation StartGeneration($days: Int, $sources: [GenerationSource!], $length: SummaryLength) {
      startGeneration(input: { days: $days, sources: $sources, length: $length }) { ${RUN_FIELDS} } }`,
    stream: {
      followParam: 'run_id',
      lastEventParam: 'last_event_id',
      startField: 'startGeneration',
      find: { operation: `query GenerationRunToFollow($runId: UUID!) { generationRun(id: $runId) { ${RUN_FIELDS} } }`, field: 'generationRun' },
      latest: { operation: `query LatestGenerationRun { generationRuns(first: 1) { edges { node { ${RUN_FIELDS} } } } }`, field: 'generationRuns' },
      // The stream takes the subscription's source events (its subscribe resolver checks access
      // and ownership) and renders each one itself with `payload`, once for all its followers: the
      // selection below is required by GraphQL and is not executed.
      subscription: {
        operation: `subscription GenerationEvents($runId: UUID!, $after: Int) { generationProgress(runId: $runId, after: $after) { __typename } }`,
      },
      eventName: (event) => (event.agent !== 'run' ? 'progress' : isFinal(event) ? 'done' : 'run'),
      payload: ({ agent, status, progress, message, data }) => ({ agent, status, progress, message, data }),
      isFinal,
      retryMs: 3000,
    },
  },
];
