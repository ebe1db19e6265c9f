import { setTimeout as delay } from 'node:timers/promises';
import { classifyDatabaseError } from './db-errors.ts';

/**
 * Runs `work` again while the database is unavailable under it (a dropped connection, a restart:
 * classifyDatabaseError's 'unavailable'), with a doubling pause: for writes that must not be
 * lost to a blip, such as a run's final state. Any other error, or the last attempt's, is thrown.
 */
export async function retryWhileUnavailable<T>(work: () => Promise<T>, options: { attempts?: number; firstDelayMs?: number } = {}): Promise<T> {
  const attempts = options.attempts ?? 6;
  let pause = options.firstDelayMs ?? 250;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= attempts || classifyDatabaseError(error) !== 'unavailable') throw error;
      await delay(pause);
      pause *= 2;
    }
  }
}
