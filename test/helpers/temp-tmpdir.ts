/**
 * TMPDIR pointed at a fresh directory a test can inspect (multipart file parts are spooled to the
 * OS temp directory), and put back afterwards.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export interface TempTmpDir {
  dir: string;
  /** puts TMPDIR back as it was and removes the directory */
  restore(): Promise<void>;
}

export async function useTempTmpDir(prefix: string): Promise<TempTmpDir> {
  const previous = process.env.TMPDIR;
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  process.env.TMPDIR = dir;
  return {
    dir,
    async restore() {
      if (previous === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = previous;
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}
