/**
 * npm run contract:check (scripts/contract-check.ts): against temp copies of the contract with one
 * thing the code does not have (so the code "removed" it), or one thing less (the code added it).
 * The command runs as a process for its exit code and output; the other cases call the same
 * comparison in-process. The committed baseline (contract/baseline/) is read, never written.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContractChange } from '../../scripts/contract/changes.ts';
import { checkChangelogRule, compareContracts, currentContract, writeBaseline, type Contract } from '../../scripts/contract/contract.ts';
import { diffSchemas } from '../../scripts/contract/json-schema-diff.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const tempDirs: string[] = [];
let current: Contract;

beforeAll(async () => {
  current = await currentContract();
}, 120_000);
afterAll(() => {
  for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'contract-check-'));
  tempDirs.push(dir);
  return dir;
}

/** A baseline directory holding the current contract as `edit` changes it. */
function baselineWith(edit: (contract: Contract) => Contract): string {
  const dir = tempDir();
  writeBaseline(dir, edit(structuredClone(current)));
  return dir;
}

function runContractCheck(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/contract-check.ts', ...args], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

type Parameter = { name: string; in: string; required?: boolean };
type OpenApi = { paths: Record<string, Record<string, { parameters?: Parameter[]; responses: Record<string, unknown> }>> };
type Schema = { type?: unknown; properties?: Record<string, Schema>; required?: string[]; items?: Schema };

function editOpenApi(contract: Contract, edit: (document: OpenApi) => void): Contract {
  const document = JSON.parse(contract.openapi) as OpenApi;
  edit(document);
  return { ...contract, openapi: JSON.stringify(document, null, 2) };
}

/** The SDL with `line` added to the body of `type` (`type Sticky`, `enum ComparisonStatus`). */
function sdlWith(sdl: string, type: string, line: string): string {
  const start = sdl.indexOf(`\n${type} {\n`);
  if (start === -1) throw new Error(`${type} is not in the SDL`);
  const bodyStart = start + type.length + 4;
  return `${sdl.slice(0, bodyStart)}  ${line}\n${sdl.slice(bodyStart)}`;
}

const breakingOf = (changes: ContractChange[]) => changes.filter((change) => change.level === 'breaking');
const messages = (changes: ContractChange[]) => changes.map((change) => `${change.level} ${change.front} ${change.message}`);

describe('npm run contract:check', () => {
  it('exits 1 and names the GraphQL field the code removed', async () => {
    const dir = baselineWith((contract) => ({ ...contract, sdl: sdlWith(contract.sdl, 'type Sticky', 'contractProbe: String') }));
    const run = await runContractCheck(['--baseline', dir]);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stdout).toMatch(/^BREAKING\s+graphql\s+Field 'contractProbe' was removed from object type 'Sticky'$/m);
    expect(run.stdout).toMatch(/^contract:check: 1 breaking, 0 other changes against /m);
  }, 120_000);

  it('passes on the committed baseline (contract/baseline/)', async () => {
    const run = await runContractCheck([]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^contract:check: 0 breaking, \d+ other changes against contract\/baseline /m);
    expect(run.stdout).not.toMatch(/^BREAKING|^PROBLEM/m);
  }, 120_000);
});

describe('contract comparison', () => {
  it('finds nothing between the code and itself', async () => {
    expect(messages(await compareContracts(current, current))).toEqual([]);
  });

  it('a removed REST route breaks', async () => {
    const baseline = editOpenApi(current, (document) => {
      document.paths['/api/contract-probe'] = { get: document.paths['/health'].get };
    });
    expect(messages(breakingOf(await compareContracts(baseline, current)))).toEqual(['breaking rest GET /api/contract-probe: route removed']);
  });

  it('a removed response status and a parameter made required break', async () => {
    const [route, required] = firstRequiredParameter(JSON.parse(current.openapi) as OpenApi);
    const baseline = editOpenApi(current, (document) => {
      const operation = document.paths[route].get;
      operation.responses['418'] = operation.responses['200'];
      operation.parameters!.find((parameter) => parameter.in === required.in && parameter.name === required.name)!.required = false;
    });
    expect(messages(breakingOf(await compareContracts(baseline, current)))).toEqual([
      `breaking rest GET ${route}: ${required.in} parameter ${required.name} made required`,
      `breaking rest GET ${route}: response 418 removed`,
    ]);
  });

  it('a removed MCP tool breaks', async () => {
    const baseline = { ...current, mcpTools: [...current.mcpTools, { name: 'contract_probe', inputSchema: { type: 'object', properties: {} } }] };
    expect(messages(breakingOf(await compareContracts(baseline, current)))).toEqual(['breaking mcp tool contract_probe: removed']);
  });

  it('a tool input property made required breaks', async () => {
    const tool = current.mcpTools.find((candidate) => ((candidate.inputSchema as Schema).required ?? []).length > 0);
    if (!tool) throw new Error('no tool has a required input');
    const property = (tool.inputSchema as Schema).required![0];
    const baseline = {
      ...current,
      mcpTools: current.mcpTools.map((candidate) =>
        candidate === tool
          ? { ...tool, inputSchema: { ...tool.inputSchema, required: (tool.inputSchema as Schema).required!.filter((name) => name !== property) } }
          : candidate,
      ),
    };
    expect(messages(breakingOf(await compareContracts(baseline, current)))).toEqual([
      `breaking mcp tool ${tool.name} input property ${property}: made required`,
    ]);
  });

  it('a tool output property removed or made nullable breaks', async () => {
    const tool = current.mcpTools.find((candidate) => Object.values((candidate.outputSchema as Schema | undefined)?.properties ?? {}).some(isNonNullString));
    if (!tool) throw new Error('no tool has a non-null string output property');
    const output = tool.outputSchema as Schema;
    const [name] = Object.entries(output.properties!).find(([, schema]) => isNonNullString(schema))!;
    const baselineOutput = structuredClone(output);
    baselineOutput.properties!.contractProbe = { type: 'string' };
    const after = structuredClone(output);
    after.properties![name] = { ...after.properties![name], type: ['string', 'null'] };
    const before = { ...current, mcpTools: [{ ...tool, outputSchema: baselineOutput as Record<string, unknown> }] };
    const now = { ...current, mcpTools: [{ ...tool, outputSchema: after as Record<string, unknown> }] };
    expect(messages(breakingOf(await compareContracts(before, now))).sort()).toEqual(
      [`breaking mcp tool ${tool.name} output property contractProbe: removed`, `breaking mcp tool ${tool.name} output property ${name}: made nullable`].sort(),
    );
  });

  it('a GraphQL enum value removed breaks', async () => {
    const baseline = { ...current, sdl: sdlWith(current.sdl, 'enum ComparisonStatus', 'contractProbe') };
    expect(messages(breakingOf(await compareContracts(baseline, current)))).toEqual([
      "breaking graphql Enum value 'contractProbe' was removed from enum 'ComparisonStatus'",
    ]);
  });

  it('additions (a field, a route, a tool) pass and are listed as info', async () => {
    const [firstTool, ...otherTools] = current.mcpTools;
    const baseline = editOpenApi({ ...current, mcpTools: otherTools }, (document) => {
      delete document.paths['/health'];
    });
    const changes = await compareContracts(baseline, current);
    expect(breakingOf(changes)).toEqual([]);
    expect(messages(changes)).toEqual(expect.arrayContaining(['info rest GET /health: route added', `info mcp tool ${firstTool.name}: added`]));
  });
});

describe('the JSON Schema differ (REST and MCP)', () => {
  const object = (properties: Record<string, unknown>, required: string[] = []) => ({ type: 'object', properties, required });

  it('reads a response and a request in opposite directions', () => {
    const narrow = object({ status: { type: 'string', enum: ['a', 'b'] } }, ['status']);
    const wide = object({ status: { type: ['string', 'null'], enum: ['a', 'b', 'c', null] } });
    expect(diffSchemas(narrow, wide, 'output').filter((change) => change.level === 'breaking')).toEqual([
      { level: 'breaking', path: 'status', what: 'no longer required (may be absent)' },
      { level: 'breaking', path: 'status', what: 'made nullable' },
    ]);
    expect(diffSchemas(narrow, wide, 'input').filter((change) => change.level === 'breaking')).toEqual([]);
    expect(diffSchemas(wide, narrow, 'input').filter((change) => change.level === 'breaking')).toEqual([
      { level: 'breaking', path: 'status', what: 'made required' },
      { level: 'breaking', path: 'status', what: 'no longer accepts null' },
      { level: 'breaking', path: 'status', what: 'enum value "c" removed' },
    ]);
  });

  it('follows $refs and folds anyOf [X, null] into a nullable X', () => {
    const document = { components: { schemas: { Item: object({ id: { type: 'string' } }, ['id']) } } };
    const refs = { $ref: '#/components/schemas/Item' };
    const resolve = (node: unknown) => {
      const ref = (node as { $ref?: string } | null)?.$ref;
      return ref ? document.components.schemas.Item : node;
    };
    const before = object({ items: { type: 'array', items: refs } });
    const after = object({ items: { type: 'array', items: { anyOf: [object({}), { type: 'null' }] } } });
    expect(diffSchemas(before, after, 'output', { resolveBefore: resolve, resolveAfter: resolve })).toEqual([
      { level: 'breaking', path: 'items[]', what: 'made nullable' },
      { level: 'breaking', path: 'items[].id', what: 'removed' },
    ]);
  });
});

describe('the CHANGELOG.md rule', () => {
  it('fails while the baseline last changed without a CHANGELOG.md line, and passes once one is committed', () => {
    const repo = tempDir();
    const git = (...args: string[]) => execFileSync('git', ['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { encoding: 'utf8' });
    git('-c', 'init.defaultBranch=main', 'init', '-q');
    fs.writeFileSync(path.join(repo, 'CHANGELOG.md'), '# Changelog\n');
    const baseline = path.join(repo, 'contract', 'baseline');
    fs.mkdirSync(baseline, { recursive: true });
    fs.writeFileSync(path.join(baseline, 'schema.graphql'), 'type Query { a: String }\n');
    git('add', '.');
    git('commit', '-q', '-m', 'first baseline');
    expect(checkChangelogRule(repo, baseline).problems).toEqual([]);

    fs.writeFileSync(path.join(baseline, 'schema.graphql'), 'type Query { b: String }\n');
    expect(checkChangelogRule(repo, baseline).problems).toEqual([
      'contract/baseline/ differs from the last commit but CHANGELOG.md does not: add a line saying what changed in the contract',
    ]);
    git('commit', '-q', '-am', 'baseline without a line');
    expect(checkChangelogRule(repo, baseline).problems).toEqual([
      expect.stringMatching(/^contract\/baseline\/ was last changed by \w+ baseline without a line, and CHANGELOG.md not since/),
    ]);

    fs.appendFileSync(path.join(repo, 'CHANGELOG.md'), '- Query.a removed\n');
    git('commit', '-q', '-am', 'the line');
    expect(checkChangelogRule(repo, baseline).problems).toEqual([]);
  });
});

/** The first GET route with a required query parameter (dietz-daily's entity_name today). */
function firstRequiredParameter(document: OpenApi): [string, Parameter] {
  for (const [route, item] of Object.entries(document.paths)) {
    const required = item.get?.parameters?.find((parameter) => parameter.in === 'query' && parameter.required === true);
    if (required && item.get.responses['200']) return [route, required];
  }
  throw new Error('no GET route has a required query parameter');
}

function isNonNullString(schema: Schema): boolean {
  return schema.type === 'string';
}
