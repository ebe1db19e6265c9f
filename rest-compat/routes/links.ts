import type { RestRoute } from '../route.ts';

/** spec/workspace-service.md: links (filled in by the links module). */
export const linksRoutes: RestRoute[] = [];
