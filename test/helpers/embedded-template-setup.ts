/** Vitest global setup: the migrated embedded database the test servers start from (embedded-template.ts). */
import { ensureEmbeddedTemplate, TEMPLATE_ENV } from './embedded-template.ts';

export default async function setup(): Promise<void> {
  if (process.env.DATABASE_URL?.trim()) return; // PostgreSQL: each test has a schema of its own
  process.env[TEMPLATE_ENV] = await ensureEmbeddedTemplate();
}
