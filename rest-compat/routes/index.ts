import type { RestRoute } from '../route.ts';
import { dataServiceRoutes } from './data-service.ts';

/** Every REST endpoint the service serves, in one table. */
export const restRoutes: RestRoute[] = [...dataServiceRoutes];
