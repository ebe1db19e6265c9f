import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedServer, type EmbeddedServer } from '../../src/db/embedded.ts';

/**
 * PGlite is one PostgreSQL session shared by every socket connection. The extended query
 * protocol (Parse/Bind/Execute/Sync, what pg sends for every parameterised query) keeps state in
 * that session, so one connection's messages must never be interleaved with another's between
 * Parse and Sync, nor inside a transaction. These tests drive many connections at once and check
 * every answer belongs to its own question.
 */
describe('embedded database under concurrent connections', () => {
  let dir: string;
  let server: EmbeddedServer;
  let pool: pg.Pool;

  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'pglite-concurrency-'));
    server = await startEmbeddedServer(dir, 0);
    pool = new pg.Pool({ connectionString: server.url, max: 20 });
    await pool.query('CREATE TABLE items (id int PRIMARY KEY, label text NOT NULL)');
  }, 60_000);

  afterAll(async () => {
    await pool?.end();
    await server?.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('never mixes up parameterised statements of different shapes', async () => {
    const queries = Array.from({ length: 600 }, async (_, i) => {
      if (i % 3 === 0) {
        const { rows } = await pool.query<{ n: number }>('SELECT $1::int AS n', [i]);
        expect(rows).toEqual([{ n: i }]);
      } else if (i % 3 === 1) {
        const { rows } = await pool.query<{ t: string; u: string }>('SELECT $1::text AS t, $2::uuid::text AS u', [
          `v${i}`,
          '00000000-0000-0000-0000-000000000001',
        ]);
        expect(rows).toEqual([{ t: `v${i}`, u: '00000000-0000-0000-0000-000000000001' }]);
      } else {
        const { rows } = await pool.query<{ a: number; b: string; c: boolean }>('SELECT $1::int + 1 AS a, upper($2::text) AS b, $3::boolean AS c', [
          i,
          'x',
          i % 2 === 0,
        ]);
        expect(rows).toEqual([{ a: i + 1, b: 'X', c: i % 2 === 0 }]);
      }
    });
    await Promise.all(queries);
  });

  it('keeps transactions isolated from other connections and atomic', async () => {
    const writers = Array.from({ length: 20 }, async (_, i) => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query('INSERT INTO items (id, label) VALUES ($1, $2)', [i, `item ${i}`]);
        await client.query('UPDATE items SET label = $2 WHERE id = $1', [i, `item ${i} updated`]);
        if (i % 4 === 0) await client.query('ROLLBACK');
        else await client.query('COMMIT');
      } finally {
        client.release();
      }
    });
    const readers = Array.from({ length: 40 }, async () => {
      const { rows } = await pool.query<{ label: string }>('SELECT label FROM items WHERE id >= $1', [0]);
      // never a half-done transaction: no row shows its pre-update label
      expect(rows.every((row) => row.label.endsWith('updated'))).toBe(true);
    });
    await Promise.all([...writers, ...readers]);
    const { rows } = await pool.query<{ count: string }>('SELECT count(*) FROM items');
    expect(Number(rows[0].count)).toBe(15);
  });

  it('recovers the session when a client disconnects in the middle of a transaction', async () => {
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    await client.query('BEGIN');
    await client.query('INSERT INTO items (id, label) VALUES (1000, $1)', ['abandoned updated']);
    await client.end();
    const { rows } = await pool.query('SELECT * FROM items WHERE id = $1', [1000]);
    expect(rows).toEqual([]);
  });
});
