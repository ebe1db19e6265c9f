import type { RestRoute } from '../route.ts';

/** spec/workspace-service.md: stickies (filled in by the stickies module). */
export const stickiesRoutes: RestRoute[] = [];
