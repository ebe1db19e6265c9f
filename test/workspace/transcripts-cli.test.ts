/**
 * `transcript:import` as operators run it: a child process (`node --import tsx src/cli/main.ts`)
 * on a temporary embedded database (DATABASE_URL cleared, as in test/cli/cli.test.ts).
 */
import { runCli } from '../helpers/cli.ts';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SAMPLES = path.join(ROOT, 'samples', 'transcripts');
const EMAIL = 'transcripts@example.com';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

let dataDir: string;

function cli(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return runCli(args, { DATA_DIR: dataDir, DATABASE_URL: '', TRANSCRIPT_PROVIDER: 'builtin', ...env });
}

beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'gateway-transcripts-cli-'));
  const created = await cli(['user:create', '--email', EMAIL, '--name', 'Transcript Tester']);
  expect(created.code).toBe(0);
});
afterAll(async () => {
  await fs.rm(dataDir, { recursive: true, force: true });
});

describe('transcript:import', () => {
  it('imports a JSON file, format from the extension, and prints one JSON object', async () => {
    const run = await cli(['transcript:import', '--email', EMAIL, '--file', path.join(SAMPLES, 'product-standup.json'), '--json']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.trimEnd().split('\n')).toHaveLength(1);
    const result = JSON.parse(run.stdout);
    expect(result).toMatchObject({
      title: 'Product standup',
      occurredAt: '2026-03-02T09:30:00.000Z',
      durationSeconds: 119,
      participants: ['Lena Vogel', 'Arjun Mehta', 'Chloe Dubois', 'Marcus Webb'],
      sentenceCount: 21,
      format: 'json',
      user: { email: EMAIL },
    });
    expect(result.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('takes --format, --title and --occurred-at, and prints a summary', async () => {
    const copy = path.join(dataDir, 'call.txt');
    await fs.copyFile(path.join(SAMPLES, 'client-call-cedar-trust.srt'), copy);
    const run = await cli([
      'transcript:import',
      '--email',
      EMAIL,
      '--file',
      copy,
      '--format',
      'srt',
      '--title',
      'Cedar call',
      '--occurred-at',
      '2026-02-03T15:30:00Z',
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Imported transcript [0-9a-f-]{36} "Cedar call" for transcripts@example\.com\n/);
    expect(run.stdout).toContain('occurred at 2026-02-03T15:30:00.000Z; 28 sentences; 157 s');
    expect(run.stdout).toContain('participants: Sofia Marchetti, Kwame Mensah, Robert Ashford');
  });

  it('uses the title in the file, else the file name', async () => {
    const vtt = await cli(['transcript:import', '--email', EMAIL, '--file', path.join(SAMPLES, 'weekly-investment-committee.vtt'), '--json']);
    expect(JSON.parse(vtt.stdout)).toMatchObject({ title: 'Weekly Investment Committee', sentenceCount: 36 });
    const srt = await cli(['transcript:import', '--email', EMAIL, '--file', path.join(SAMPLES, 'client-call-cedar-trust.srt'), '--json']);
    expect(JSON.parse(srt.stdout)).toMatchObject({ title: 'client-call-cedar-trust', format: 'srt' });
  });

  it('fails with the line of a parse error (exit 1), stdout empty', async () => {
    const bad = path.join(dataDir, 'bad.vtt');
    await fs.writeFile(bad, 'WEBVTT\r\n\r\n00:01.000 --> 00:02.000\r\n<v Ana>ok</v>\r\n\r\n00:03.000 --> 00:02.000\r\n<v Ana>backwards</v>\r\n');
    const run = await cli(['transcript:import', '--email', EMAIL, '--file', bad]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe('error: Invalid content: line 6: the cue ends (00:00:02.000) before it starts (00:00:03.000)\n');
  });

  it.each([
    [['--file', 'notes.docx'], 2, /cannot tell the format of notes\.docx: pass --format vtt\|srt\|json/],
    [['--file', 'x.vtt', '--format', 'pdf'], 2, /--format must be vtt, srt or json, got pdf/],
    [['--file', '/nonexistent/meeting.vtt'], 1, /cannot read \/nonexistent\/meeting\.vtt: ENOENT/],
    [['--file', path.join(SAMPLES, 'product-standup.json'), '--occurred-at', 'tuesday'], 1, /Invalid occurred-at/],
  ])('%j exits %d', async (args, code, message) => {
    const run = await cli(['transcript:import', '--email', EMAIL, ...args]);
    expect(run.code).toBe(code);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(message);
  });

  it('needs a known user and --file', async () => {
    const unknown = await cli(['transcript:import', '--email', 'nobody@example.com', '--file', path.join(SAMPLES, 'product-standup.json')]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/No user with email nobody@example\.com/);
    const missing = await cli(['transcript:import', '--email', EMAIL]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/transcript:import needs --file/);
  });

  it('refuses with the http provider', async () => {
    const run = await cli(['transcript:import', '--email', EMAIL, '--file', path.join(SAMPLES, 'product-standup.json')], {
      TRANSCRIPT_PROVIDER: 'http',
      TRANSCRIPT_API_URL: 'http://127.0.0.1:9/v1',
      TRANSCRIPT_API_KEY: 'tk_test',
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('error: Transcripts are read-only with the http provider\n');
  });

  it('is in the usage', async () => {
    const run = await cli(['help']);
    expect(run.stdout).toContain('transcript:import --email E --file F [--format vtt|srt|json] [--title T] [--occurred-at ISO]');
  });
});
