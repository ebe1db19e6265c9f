import type { RestRoute } from '../route.ts';

/** spec/workspace-service.md: tasks (filled in by the tasks module). */
export const tasksRoutes: RestRoute[] = [];
