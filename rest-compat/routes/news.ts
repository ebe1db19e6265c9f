import type { RestRoute } from '../route.ts';

/** spec/workspace-service.md: news (filled in by the news module). */
export const newsRoutes: RestRoute[] = [];
