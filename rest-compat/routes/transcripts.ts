import type { RestRoute } from '../route.ts';

/** spec/workspace-service.md: transcripts (filled in by the transcripts module). */
export const transcriptsRoutes: RestRoute[] = [];
