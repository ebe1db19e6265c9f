/**
 * A taken port is said before anything is done (issue 24, item 1): the start fails at once with a
 * message that names PORT, before the embedded database is created, migrated or seeded, so no
 * demo credentials are made and lost; a start on a free port then seeds and prints them.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, startChildService, type ChildService } from '../helpers/child-service.ts';

describe('a taken PORT', () => {
  const holders: net.Server[] = [];
  const children: ChildService[] = [];
  afterAll(async () => {
    for (const child of children) await child.cleanup();
    for (const holder of holders) await new Promise((resolve) => holder.close(resolve));
  });

  it('stops the start at once with a message naming PORT, before the database is created or anything seeded', async () => {
    const port = await freePort();
    const holder = net.createServer();
    holders.push(holder);
    await new Promise<void>((resolve) => holder.listen(port, '127.0.0.1', resolve));

    const child = await startChildService({ env: { PORT: String(port), SEED_DEMO_DATA: 'true' }, waitUntilReady: false, freshDatabase: true });
    children.push(child);
    const exit = await child.exited;
    expect(exit.code).toBe(1);
    const stderr = child.stderr.join('\n');
    expect(stderr).toContain(`Port ${port} on 127.0.0.1 is already in use`);
    expect(stderr).toMatch(/choose another port with PORT, e\.g\. PORT=\d+ npm start/);
    // Nothing was created in DATA_DIR: no database, so the next start is a first start that prints the demo's credentials.
    expect(fs.existsSync(path.join(child.dataDir, 'pgdata'))).toBe(false);
    expect(child.stdout.some((line) => line.includes('DEMO DATA SEEDED'))).toBe(false);
  }, 60_000);
});
