/**
 * The MCP host configurations of docs/mcp.md ("Host configuration": Claude Desktop through
 * mcp-remote, Cursor, VS Code, the MCP Inspector) are what a user can paste: every JSON snippet
 * parses, each server it declares reaches `/api/service` (by `url`, or as mcp-remote's URL
 * argument), and a token, where one is sent, goes as `Authorization: Bearer` in the form the
 * endpoint reads (the service's own `bearerToken`), with every `${...}` placeholder defined in the
 * same snippet (`env` for mcp-remote, `inputs` for VS Code) or read from the environment
 * (`${env:NAME}`, Cursor). The pinned mcp-remote and Inspector versions are the ones the page says
 * were tried. Pure file reading: no server, nothing downloaded.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bearerToken } from '../../src/context.ts';
import { secretKind } from '../../src/auth/api-keys.ts';

const PAGE = fs.readFileSync(new URL('../../docs/mcp.md', import.meta.url), 'utf8');

function section(): string {
  const start = PAGE.indexOf('\n## Host configuration\n');
  expect(start, 'docs/mcp.md has a "## Host configuration" section').toBeGreaterThanOrEqual(0);
  const end = PAGE.indexOf('\n## ', start + 1);
  return PAGE.slice(start, end === -1 ? undefined : end);
}

const SECTION = section();

/** The fenced blocks of one language in the section, each with the `###` heading it is under. */
function blocks(language: string): { host: string; text: string }[] {
  const found: { host: string; text: string }[] = [];
  let host = '';
  let fence: { language: string; lines: string[] } | null = null;
  for (const line of SECTION.split('\n')) {
    if (fence) {
      if (/^```\s*$/.test(line)) {
        if (fence.language === language) found.push({ host, text: fence.lines.join('\n') });
        fence = null;
      } else fence.lines.push(line);
      continue;
    }
    const opening = /^```(\S*)/.exec(line);
    if (opening) fence = { language: opening[1], lines: [] };
    else if (line.startsWith('### ')) host = line.slice(4).trim();
  }
  return found;
}

interface ServerEntry {
  url?: string;
  type?: string;
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  headers?: Record<string, string>;
}
interface HostConfig {
  mcpServers?: Record<string, ServerEntry>;
  servers?: Record<string, ServerEntry>;
  inputs?: { type: string; id: string; password?: boolean }[];
}

const SNIPPETS = blocks('json').map(({ host, text }) => ({ host, text, config: JSON.parse(text) as HostConfig }));

/** A header value with its placeholders filled in the way the host fills them, as a sample token would be. */
function resolved(value: string, config: HostConfig, entry: ServerEntry): string {
  return value.replace(/\$\{([^}]+)\}/g, (_, name: string) => {
    if (name.startsWith('env:')) return 'pat_0123456789abcdef0123456789abcdef'; // Cursor: the environment Cursor started in
    if (name.startsWith('input:')) {
      const input = config.inputs?.find((candidate) => candidate.id === name.slice('input:'.length));
      expect(input, `an inputs entry with id ${name.slice('input:'.length)}`).toBeDefined();
      expect(input).toMatchObject({ type: 'promptString', password: true });
      return 'pat_0123456789abcdef0123456789abcdef';
    }
    const fromEnv = entry.env?.[name];
    expect(fromEnv, `${name} defined in the entry's env`).toBeDefined();
    return fromEnv!;
  });
}

/** The Authorization value an entry sends, or undefined (the OAuth form). */
function authorization(config: HostConfig, entry: ServerEntry): string | undefined {
  if (entry.headers) {
    expect(Object.keys(entry.headers)).toEqual(['Authorization']);
    return resolved(entry.headers.Authorization, config, entry);
  }
  const args = entry.args ?? [];
  const at = args.indexOf('--header');
  if (at === -1) return undefined;
  const match = /^Authorization:\s*(.*)$/.exec(args[at + 1] ?? '');
  expect(match, `--header ${args[at + 1]} is an Authorization header`).not.toBeNull();
  return resolved(match![1], config, entry);
}

describe('docs/mcp.md host configurations', () => {
  it('has a snippet per host: Claude Desktop (a token and OAuth), Cursor, VS Code', () => {
    expect(SNIPPETS.map((snippet) => snippet.host)).toEqual([
      'Claude Desktop (through mcp-remote)',
      'Claude Desktop (through mcp-remote)',
      'Cursor',
      'VS Code',
    ]);
  });

  for (const [index, { host, config }] of SNIPPETS.entries()) {
    it(`${host}, snippet ${index + 1}: reaches /api/service, a token as Authorization: Bearer`, () => {
      const servers = config.mcpServers ?? config.servers;
      expect(servers, 'mcpServers (Claude Desktop, Cursor) or servers (VS Code)').toBeDefined();
      expect(Object.keys(servers!)).toEqual(['gateway']);
      const entry = servers!.gateway;
      const url = entry.url ?? entry.args?.find((arg) => /^https?:\/\//.test(arg));
      expect(url, 'a url, or mcp-remote with the URL as an argument').toBeDefined();
      expect(new URL(url!).pathname).toBe('/api/service');
      if (entry.command !== undefined) {
        expect(entry.command).toBe('npx');
        expect(entry.args?.slice(0, 2)).toEqual(['-y', 'mcp-remote@0.15.1']);
      }
      if (host === 'VS Code') expect(entry.type).toBe('http');
      const value = authorization(config, entry);
      if (value === undefined) return; // the OAuth form: no header, the host signs in
      const token = bearerToken({ authorization: value });
      expect(token, `"${value}" is read as a bearer token`).toBeDefined();
      expect(secretKind(token!)).toBe('access_token');
    });
  }

  it('has the OAuth form too: a snippet that sends no header', () => {
    expect(
      SNIPPETS.some(({ config }) => Object.values(config.mcpServers ?? config.servers ?? {}).some((entry) => authorization(config, entry) === undefined)),
    ).toBe(true);
  });

  it('pins the versions it says were tried: mcp-remote 0.15.1, the Inspector 0.15.0 (the newest for Node 20)', () => {
    const commands = blocks('sh')
      .map((block) => block.text)
      .join('\n');
    expect(commands).toContain('npx @modelcontextprotocol/inspector@0.15.0');
    expect([...SECTION.matchAll(/mcp-remote@(\d+\.\d+\.\d+)/g)].map((match) => match[1]).every((version) => version === '0.15.1')).toBe(true);
    expect([...SECTION.matchAll(/inspector@(\d+\.\d+\.\d+)/g)].map((match) => match[1]).every((version) => version === '0.15.0')).toBe(true);
    expect(SECTION).toMatch(/mcp-remote 0\.15\.1/);
    expect(SECTION).toMatch(/\*\*0\.15\.0\*\*/);
  });
});
