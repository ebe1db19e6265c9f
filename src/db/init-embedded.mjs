// Creates a new PGlite data directory (initdb) and exits. Run as a short-lived child process by
// src/db/embedded.ts: initdb makes the WASM heap grow to ~870 MB, and a process never gives that
// memory back, so the service itself only ever opens an existing directory (~250 MB).
import { PGlite } from '@electric-sql/pglite';

const [dataDir, sharedBuffers] = process.argv.slice(2);
const db = await PGlite.create({ dataDir, postgresqlconf: [`shared_buffers=${sharedBuffers}`] });
await db.query('SELECT 1');
await db.close();
