/**
 * A pool for IngestService whose own connections (the ones it takes with `connect`, for its
 * transactions) call `beforeStatement` with each SQL text before sending it; the pool's one-off
 * `query` is passed through. Tests read the statements a load sends, or act at a given one (read
 * from another connection just before COMMIT). The client is restored when released, so the
 * shared pool's other users never see the hook.
 */
import type { IngestServiceDeps } from '../../src/ingest/ingest-service.ts';
import type pg from 'pg';

type IngestPool = IngestServiceDeps['pool'];

export function watchedPool(pool: pg.Pool, beforeStatement: (text: string) => void | Promise<void>): IngestPool {
  return {
    query: pool.query.bind(pool) as IngestPool['query'],
    connect: (async () => {
      const client = await pool.connect();
      const query = client.query.bind(client);
      const release = client.release.bind(client);
      client.query = (async (text: unknown, ...rest: unknown[]) => {
        if (typeof text === 'string') await beforeStatement(text);
        return (query as (...args: unknown[]) => unknown)(text, ...rest);
      }) as typeof client.query;
      client.release = ((error?: Error | boolean) => {
        client.query = query;
        client.release = release;
        return release(error);
      }) as typeof client.release;
      return client;
    }) as IngestPool['connect'],
  };
}
