import type { RestRoute } from '../route.ts';

/** spec/workspace-service.md: chat (filled in by the chat module). */
export const chatRoutes: RestRoute[] = [];
