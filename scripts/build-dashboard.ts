/**
 * Builds the dashboard bundle (dashboard/dist) with Vite when its sources changed since the last
 * build, so `npm start` always serves the current dashboard without a separate build step.
 *   tsx scripts/build-dashboard.ts            build when stale
 *   tsx scripts/build-dashboard.ts --force    build always
 * Without Vite (a production install with --omit=dev) a prebuilt bundle is served as it is.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
export const dashboardRoot = path.join(repoRoot, 'dashboard');
export const dashboardDist = path.join(dashboardRoot, 'dist');
const stampFile = path.join(dashboardDist, '.source-hash');

/** Service modules the dashboard bundles (facts stated once, on the service's side). */
const SHARED_SOURCES = ['src/auth/scopes.ts'];

/** A hash of everything the bundle is made from: the sources, the config and the locked versions. */
function sourceHash(): string {
  const hash = createHash('sha256');
  const shared = SHARED_SOURCES.map((file) => path.join(repoRoot, file));
  const files = [path.join(repoRoot, 'package-lock.json'), ...shared, ...listFiles(dashboardRoot)].sort();
  for (const file of files) {
    hash.update(path.relative(repoRoot, file)).update('\0');
    hash.update(fs.readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

function listFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'dist' || entry.name === 'node_modules' ? [] : listFiles(full);
    return entry.isFile() ? [full] : [];
  });
}

export async function buildDashboard(options: { force?: boolean; quiet?: boolean } = {}): Promise<'built' | 'fresh' | 'prebuilt'> {
  const wanted = sourceHash();
  const current = fs.existsSync(stampFile) ? fs.readFileSync(stampFile, 'utf8').trim() : undefined;
  if (!options.force && current === wanted) return 'fresh';
  let vite: typeof import('vite');
  try {
    vite = await import('vite');
  } catch {
    if (fs.existsSync(path.join(dashboardDist, 'index.html'))) return 'prebuilt';
    throw new Error('The dashboard is not built and Vite is not installed: run `npm install` (with dev dependencies) first.');
  }
  const started = performance.now();
  // Built beside the served bundle and swapped in, so a running service never serves a half-written one.
  const staging = path.join(dashboardRoot, `.dist-${process.pid}`);
  // Vite follows NODE_ENV (vitest sets `test`): the bundle must always be React's production build.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await vite.build({
      configFile: path.join(dashboardRoot, 'vite.config.ts'),
      mode: 'production',
      logLevel: options.quiet ? 'error' : 'warn',
      build: { outDir: staging },
    });
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
  }
  fs.writeFileSync(path.join(staging, '.source-hash'), `${wanted}\n`);
  swapIn(staging);
  if (!options.quiet) console.log(JSON.stringify({ level: 'info', msg: 'dashboard built', ms: Math.round(performance.now() - started) }));
  return 'built';
}

/** Assets of earlier builds stay this long, so pages loaded before a rebuild can still load their lazy chunks. */
const KEEP_OLD_ASSETS_MS = 24 * 60 * 60 * 1000;

function swapIn(staging: string): void {
  keepRecentAssets(path.join(dashboardDist, 'assets'), path.join(staging, 'assets'));
  const retired = `${staging}-old`;
  if (fs.existsSync(dashboardDist)) fs.renameSync(dashboardDist, retired);
  fs.renameSync(staging, dashboardDist);
  fs.rmSync(retired, { recursive: true, force: true });
}

function keepRecentAssets(fromDir: string, toDir: string): void {
  if (!fs.existsSync(fromDir)) return;
  for (const name of fs.readdirSync(fromDir)) {
    const from = path.join(fromDir, name);
    const to = path.join(toDir, name);
    const { mtime } = fs.statSync(from);
    if (fs.existsSync(to) || Date.now() - mtime.getTime() > KEEP_OLD_ASSETS_MS) continue;
    fs.copyFileSync(from, to);
    fs.utimesSync(to, mtime, mtime);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  buildDashboard({ force: process.argv.includes('--force') }).catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
