/** Vitest global setup: the dashboard bundle is built once (when stale) before any test file starts a server. */
import { buildDashboard } from '../../scripts/build-dashboard.ts';

export default async function setup(): Promise<void> {
  await buildDashboard({ quiet: true });
}
