/**
 * A real service for a test file: its own embedded database in a temp DATA_DIR (or its own
 * schema on PostgreSQL when DATABASE_URL is set, and the shared Redis when REDIS_URL is set),
 * listening on a random port. Tests talk to it over real HTTP.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createSchema, dropSchema } from './postgres-schema.ts';
import { copyEmbeddedTemplate } from './embedded-template.ts';
import { loadConfig } from '../../src/config.ts';
import { startService, type RunningService } from '../../server/app.ts';
import { createLogger, type Logger } from '../../src/log.ts';

export interface TestServer extends RunningService {
  dataDir: string;
  close(): Promise<void>;
}

/** `options.log`: a logger of the test's own (to read what the service logs). */
export async function startTestServer(env: Record<string, string> = {}, options: { log?: Logger } = {}): Promise<TestServer> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'gateway-server-'));
  const baseUrl = process.env.DATABASE_URL?.trim();
  let schema: string | undefined;
  let databaseUrl: string | undefined;
  if (baseUrl) ({ schema, url: databaseUrl } = await createSchema(baseUrl));
  // The embedded database starts from the run's migrated template (embedded-template.ts), not from nothing.
  else if (!env.DATABASE_URL) copyEmbeddedTemplate(dataDir);
  const config = loadConfig({
    NODE_ENV: 'test',
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    SEED_DEMO_DATA: 'false',
    SELF_TEST_ENABLED: 'false',
    COOKIE_SECURE: 'false',
    WORKER_POLL_INTERVAL: '100ms',
    // Chat tests send many messages; the chat budget has its own test in test/rest/chat-rate-limit.test.ts.
    RATE_LIMIT_CHAT_PER_MINUTE: '100000',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL, RATE_LIMIT_KEY_PREFIX: `rl-${randomBytes(4).toString('hex')}` } : {}),
    ...env,
  });
  const service = await startService(config, { log: options.log ?? createLogger(config.logLevel) });
  return {
    ...service,
    dataDir,
    async close() {
      await service.stop();
      if (baseUrl && schema) await dropSchema(baseUrl, schema);
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}
