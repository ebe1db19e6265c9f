import { describe, expect, it } from 'vitest';
import { retryWhileUnavailable } from '../../src/db/retry-unavailable.ts';

/** An error as pg raises it when PostgreSQL terminates the connection (SQLSTATE 57P01). */
function terminated(): Error {
  return Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
}

describe('retryWhileUnavailable', () => {
  it('runs the work again while the database is unavailable, then returns its result', async () => {
    let calls = 0;
    const result = await retryWhileUnavailable(
      async () => {
        calls += 1;
        if (calls < 3) throw terminated();
        return 'written';
      },
      { firstDelayMs: 1 },
    );
    expect(result).toBe('written');
    expect(calls).toBe(3);
  });

  it('gives up after its attempts with the last error', async () => {
    let calls = 0;
    await expect(
      retryWhileUnavailable(
        async () => {
          calls += 1;
          throw terminated();
        },
        { attempts: 4, firstDelayMs: 1 },
      ),
    ).rejects.toThrow(/terminating connection/);
    expect(calls).toBe(4);
  });

  it('does not retry other errors (a bad value, a bug)', async () => {
    let calls = 0;
    const refused = Object.assign(new Error('invalid input syntax'), { code: '22P02' });
    await expect(
      retryWhileUnavailable(
        async () => {
          calls += 1;
          throw refused;
        },
        { firstDelayMs: 1 },
      ),
    ).rejects.toBe(refused);
    expect(calls).toBe(1);
  });
});
