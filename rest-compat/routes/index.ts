import type { RestRoute } from '../route.ts';
import { dataServiceRoutes } from './data-service.ts';
import { returnsAnalyticsRoutes } from './returns-analytics.ts';
import { returnsBenchmarkRoutes } from './returns-benchmark.ts';
import { returnsCurrenciesRoutes } from './returns-currencies.ts';
import { returnsBenchmarkLevelsRoutes } from './returns-benchmark-levels.ts';
import { stickiesRoutes } from './stickies.ts';
import { linksRoutes } from './links.ts';
import { transcriptsRoutes } from './transcripts.ts';
import { chatRoutes } from './chat.ts';
import { tasksRoutes } from './tasks.ts';
import { newsRoutes } from './news.ts';
import { generationRoutes } from './generation.ts';
import { auditRoutes } from './audit.ts';
import { usageRoutes } from './usage.ts';
import { webhooksRoutes } from './webhooks.ts';

/** Every REST endpoint the service serves, in one table. */
export const restRoutes: RestRoute[] = [
  ...dataServiceRoutes,
  ...returnsAnalyticsRoutes,
  ...returnsBenchmarkRoutes,
  ...returnsCurrenciesRoutes,
  ...returnsBenchmarkLevelsRoutes,
  ...stickiesRoutes,
  ...linksRoutes,
  ...transcriptsRoutes,
  ...chatRoutes,
  ...tasksRoutes,
  ...newsRoutes,
  ...generationRoutes,
  ...auditRoutes,
  ...usageRoutes,
  ...webhooksRoutes,
];
