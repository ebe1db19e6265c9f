/**
 * The README's Quick start, run as a new user runs it: the service started as `npm start` starts
 * it (a child process with the defaults: no NODE_ENV, HOST or SEED_DEMO_DATA), the values of the
 * printed credentials block put where the README says to put them, and every command of the
 * Quick start's shell blocks run as written with bash (curl). Each must succeed (2xx), an upload
 * must reach `processed`, and the returns commands must return data. On the embedded database
 * the first start seeds the demo; with DATABASE_URL (PostgreSQL) the start logs that no user
 * exists, with the commands to run, and `npm run cli -- seed:demo` seeds it (once).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { REPO_ROOT, startChildService, type ChildService } from '../helpers/child-service.ts';

const README = fs.readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const onPostgres = Boolean(process.env.DATABASE_URL?.trim());

/** The fenced `sh` blocks of the README's "Quick start" section, as lines (continuations joined). */
function quickStartBlocks(): string[][] {
  const start = README.indexOf('\n## Quick start\n');
  expect(start, 'README has a "## Quick start" section').toBeGreaterThanOrEqual(0);
  const end = README.indexOf('\n## ', start + 1);
  const section = README.slice(start, end === -1 ? undefined : end);
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1].replace(/\\\n\s*/g, ' '));
  return blocks.map((block) =>
    block
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line.length > 0),
  );
}

/** The values of the credentials block (a line each: "| <label> <value> |"). */
function parseBlock(lines: readonly string[]): { dashboard: string; apiKey: string; orgId: string; heading: string } {
  const frame = lines.filter((line) => line.startsWith('| '));
  const text = frame.join('\n');
  const dashboard = /Dashboard:\s+(\S+)/.exec(text)?.[1];
  const apiKey = /\b(sk_[0-9a-f]{32})\b/.exec(text)?.[1];
  const orgId = /org_id Demo Capital:\s+([0-9a-f-]{36})/.exec(text)?.[1];
  expect({ dashboard, apiKey, orgId }, `the credentials block:\n${text}`).toEqual({
    dashboard: expect.any(String),
    apiKey: expect.any(String),
    orgId: expect.any(String),
  });
  return { dashboard: dashboard!, apiKey: apiKey!, orgId: orgId!, heading: frame[0].slice(2, -1).trim() };
}

interface Answer {
  status: number;
  body: string;
}

/** Runs one README command with bash, curl reporting the status on a last line of its own. */
function runCommand(command: string, env: Record<string, string>): Promise<Answer> {
  const script = `curl() { command curl -sS --max-time 120 -w '\\n%{http_code}' "$@"; }\n${command}\n`;
  return new Promise((resolve, reject) => {
    execFile(
      'bash',
      ['-c', script],
      { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env }, timeout: 180_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`${command}\nfailed: ${error.message}\n${stderr}`));
        const cut = stdout.lastIndexOf('\n');
        resolve({ status: Number(stdout.slice(cut + 1)), body: stdout.slice(0, cut) });
      },
    );
  });
}

/** Runs one README shell line (not a single curl) with bash; it must exit 0 within the timeout. */
function runShell(command: string, env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(
      'bash',
      ['-c', command],
      { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env }, timeout: 180_000 },
      (error, _stdout, stderr) => {
        if (error) return reject(new Error(`${command}\nfailed: ${error.message}\n${stderr}`));
        resolve();
      },
    );
  });
}

describe('README Quick start, against a fresh start', () => {
  let service: ChildService;
  let credentials: ReturnType<typeof parseBlock>;

  beforeAll(async () => {
    service = await startChildService({ unsetEnv: ['NODE_ENV', 'HOST', 'SEED_DEMO_DATA', 'SELF_TEST_ENABLED'], startTimeoutMs: 240_000 });
    if (onPostgres) {
      await service.waitForLine((line) => line.includes('no user exists yet'), 60_000);
      const seeded = await service.cli(['seed:demo']);
      expect(seeded.code, seeded.stderr).toBe(0);
      credentials = parseBlock(seeded.stdout.split('\n'));
    } else {
      await service.waitForLine((line) => line.includes('Copy them somewhere safe'), 60_000);
      credentials = parseBlock(service.stdout);
    }
  }, 360_000);

  afterAll(async () => {
    await service?.cleanup();
  });

  it('starts as the README says: loopback, production (no GraphiQL), the real URL in the block', async () => {
    const defaults = loadConfig({});
    expect([defaults.host, defaults.env]).toEqual(['127.0.0.1', 'production']);
    const [start] = quickStartBlocks();
    expect(start[0]).toMatch(new RegExp(`^npm install && npm start\\s+# http://${defaults.host}:${defaults.port},`));

    const listening = JSON.parse(service.stdout.find((line) => line.includes('"service listening"'))!);
    expect(listening).toMatchObject({ url: service.url, address: '127.0.0.1', env: 'production' });
    expect(credentials.dashboard).toBe(`${service.url}/`);
    expect(credentials.heading).toBe(
      onPostgres ? 'DEMO DATA SEEDED into PostgreSQL by npm run cli -- seed:demo' : 'DEMO DATA SEEDED: first start with the embedded database',
    );

    const page = await fetch(`${service.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(await page.text()).not.toContain('GraphiQL');
  });

  it.runIf(onPostgres)('on an empty PostgreSQL logs how to create the first admin, and seed:demo seeds once', async () => {
    const hint = JSON.parse(service.stdout.find((line) => line.includes('no user exists yet'))!);
    expect(hint.level).toBe(30); // info
    expect(hint.msg).toContain('npm run cli -- user:create --email you@example.com');
    expect(hint.msg).toContain('--admin');
    expect(hint.msg).toContain('npm run cli -- seed:demo');
    const again = await service.cli(['seed:demo']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('The demo exists already');
    expect(again.stdout).not.toMatch(/sk_[0-9a-f]{32}/);
  });

  it.runIf(!onPostgres)('a second seed:demo on the embedded database says the demo exists', async () => {
    const again = await service.cli(['seed:demo', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({ seeded: false, exists: true });
  });

  it('demo:credentials prints new ones for a lost block: the new passwords sign in, the new key works, and so does the old one', async () => {
    const reissued = await service.cli(['demo:credentials']);
    expect(reissued.code, reissued.stderr).toBe(0);
    const block = parseBlock(reissued.stdout.split('\n'));
    expect(block.heading).toBe(`DEMO CREDENTIALS REISSUED in ${onPostgres ? 'PostgreSQL' : 'the embedded database'} by npm run cli -- demo:credentials`);
    expect(block.apiKey).not.toBe(credentials.apiKey);
    expect(block.orgId).toBe(credentials.orgId);
    for (const key of [block.apiKey, credentials.apiKey]) expect((await fetch(`${service.url}/status`, { headers: { 'x-api-key': key } })).status).toBe(200);
    const password = /admin \(Demo Capital\)[\s\S]*?password\s+(\S+)/.exec(reissued.stdout)?.[1];
    const signIn = await fetch(`${service.url}/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: service.url },
      body: new URLSearchParams({ email: 'admin@demo.local', password: password ?? '' }).toString(),
    });
    expect(signIn.status).toBe(303);
  });

  it('runs every command of the Quick start successfully', async () => {
    const [, commands] = quickStartBlocks();
    const env = { API_KEY: credentials.apiKey, ORG_ID: credentials.orgId, BASE: service.url };
    const uploaded: string[] = [];
    let curls = 0;
    for (const line of commands) {
      if (line.startsWith('export ')) {
        // the README's placeholders: the values of the block go here
        expect(line).toMatch(/^export API_KEY=sk_\.\.\.\s+ORG_ID=\.\.\./);
        continue;
      }
      if (line.startsWith('BASE=')) {
        const defaults = loadConfig({});
        expect(line).toBe(`BASE=http://${defaults.host}:${defaults.port}`); // what the default start listens on
        continue;
      }
      if (line.startsWith('until ')) {
        // The README's wait for the ingest, run as written: the next lines need the files processed.
        expect(line).toMatch(/^until curl .*status=processed.* \| grep -q performance-sample\.csv; do sleep 1; done/);
        await runShell(line, env);
        continue;
      }
      expect(line, 'every other line of the block is a curl command').toMatch(/^curl /);
      curls++;
      const answer = await runCommand(line, env);
      expect(answer.status, `${line}\n${answer.body}`).toBeGreaterThanOrEqual(200);
      expect(answer.status, `${line}\n${answer.body}`).toBeLessThan(300);
      const body = JSON.parse(answer.body);
      const comment = /#\s*(\{.*\})\s*$/.exec(line)?.[1];
      if (comment) expect(body, line).toEqual(JSON.parse(comment));
      if (line.includes('/graphql')) expect(body.errors, line).toBeUndefined();
      if (line.includes('/api/storage/upload')) {
        expect(body.data.status, line).toBe('uploaded');
        uploaded.push(body.data.id);
        // No waiting here: the README's own `until` line waits, as a user pasting the block does.
      }
      if (line.includes('/api/storage/files')) {
        const ids = body.data.map((file: { id: string }) => file.id);
        for (const id of uploaded) expect(ids, line).toContain(id);
        expect(body.data.every((file: { status: string }) => file.status === 'processed')).toBe(true);
      }
      if (line.includes('/api/returns/')) {
        // the demo's and the samples' accounts answer with data, not an empty page
        const rows = Array.isArray(body.data) ? body.data : body.data.days;
        expect(rows.length, `${line}\n${answer.body.slice(0, 500)}`).toBeGreaterThan(0);
      }
      if (line.includes('account_code=ACC-1001')) {
        const statuses = new Set(body.data.map((row: { status: string }) => row.status));
        expect(statuses).toEqual(new Set(['match', 'review', 'investigate']));
      }
    }
    expect(curls).toBeGreaterThan(10);
    expect(uploaded).toHaveLength(2);
  }, 600_000);
});
