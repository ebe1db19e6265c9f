/**
 * What every emitter of a committed artefact shares (scripts/emit-*.ts, run one by one or all by
 * `npm run emit`): a file is written only when its text changed, so a second run touches nothing,
 * and each run says which files it updated.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** Writes `text` to `file` unless the file already holds exactly that; logs which happened. */
export function writeEmitted(file: URL, text: string): 'updated' | 'unchanged' {
  const target = fileURLToPath(file);
  const current = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : undefined;
  const outcome = current === text ? 'unchanged' : 'updated';
  if (outcome === 'updated') {
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, text);
  }
  console.log(`${outcome.padEnd(9)} ${path.relative(ROOT, target)}`);
  return outcome;
}

/** True when the module at `moduleUrl` is the script node was started with (not imported by another). */
export function isEntryPoint(moduleUrl: string): boolean {
  const started = process.argv[1];
  return started !== undefined && moduleUrl === pathToFileURL(fs.realpathSync(started)).href;
}
