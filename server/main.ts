// First: the libraries imported below read NODE_ENV when they load.
import './node-env.ts';
import { ConfigError, loadConfig } from '../src/config.ts';
import { createLogger } from '../src/log.ts';
import { startService } from './app.ts';
import { PortInUseError } from './port-check.ts';
import { DatabaseUrlError } from '../src/db/database-url.ts';
import { EmbeddedDatabaseBusyError } from '../src/db/embedded.ts';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const log = createLogger(config.logLevel);
  try {
    const service = await startService(config, { log });
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      process.once(signal, () => {
        log.info({ signal }, 'signal received');
        service.stop().then(
          () => process.exit(0),
          (error: unknown) => {
            log.error({ err: error }, 'shutdown failed');
            process.exit(1);
          },
        );
      });
    }
  } catch (error) {
    if (error instanceof PortInUseError || error instanceof DatabaseUrlError) {
      log.fatal(error.message);
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    if (error instanceof EmbeddedDatabaseBusyError) {
      log.fatal({ pid: error.lock.pid }, `${error.message}. Stop it first, or use another DATA_DIR.`);
      process.exit(1);
    }
    log.fatal({ err: error }, 'failed to start');
    process.exit(1);
  }
}

void main();
