/** The heap cap `npm start` runs the service with (package.json, the one place it is stated; the Dockerfile's is kept equal by test/app/signals.test.ts). */
import fs from 'node:fs';

export function npmStartHeapMb(): number {
  const start = (JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } }).scripts.start;
  const cap = /--max-old-space-size=(\d+)/.exec(start)?.[1];
  if (!cap) throw new Error('package.json: npm start sets no --max-old-space-size');
  return Number(cap);
}
