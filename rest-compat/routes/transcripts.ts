import { list, single, type RestRoute, withUpstream } from '../route.ts';

const SUMMARY_FIELDS = 'id title occurredAt durationSeconds participants sentenceCount';

/** docs/spec/workspace-service.md: transcripts, from the configured provider (builtin or http). */
export const transcriptsRoutes: RestRoute[] = withUpstream('the transcript service (TRANSCRIPT_API_URL)', [
  {
    method: 'GET',
    path: '/api/transcripts',
    summary: "The caller's transcripts without their sentences, newest first.",
    params: { limit: 'first', cursor: 'after' },
    operation: `query Transcripts($first: Int, $after: String) {
      transcripts(first: $first, after: $after) {
        edges { node { ${SUMMARY_FIELDS} } }
        pageInfo { hasNextPage endCursor }
      } }`,
    respond: list('transcripts'),
  },
  {
    method: 'GET',
    path: '/api/transcripts/:id',
    summary: 'One transcript with its speaker-attributed sentences in order.',
    operation: `query Transcript($id: UUID!) {
      transcript(id: $id) { ${SUMMARY_FIELDS} sentences { speaker text startSeconds endSeconds } } }`,
    respond: single('transcript'),
  },
]);
