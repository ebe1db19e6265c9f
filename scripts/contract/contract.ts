/**
 * The public contract of the three fronts, as contract:check compares it: the GraphQL SDL, the
 * REST layer's OpenAPI document and the MCP tools' schemas; the code's (currentContract) and the
 * committed baseline's (contract/baseline/, readBaseline).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { printSchema } from 'graphql';
import { sortedSchema } from '../../schema/index.ts';
import { openApiJson } from '../../rest-compat/openapi/index.ts';
import type { ContractChange } from './changes.ts';
import { diffSdl } from './graphql-diff.ts';
import { diffMcpTools, type ToolContract } from './mcp-diff.ts';
import { listMcpTools } from './mcp-tools.ts';
import { diffOpenApi } from './openapi-diff.ts';

export interface Contract {
  /** The SDL as `npm run schema:emit` prints it. */
  sdl: string;
  /** The OpenAPI document's text as `npm run openapi:emit` writes it. */
  openapi: string;
  mcpTools: ToolContract[];
}

export const REPOSITORY_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const DEFAULT_BASELINE_DIR = path.join(REPOSITORY_ROOT, 'contract', 'baseline');

export const BASELINE_FILES = { sdl: 'schema.graphql', openapi: 'openapi.json', mcpTools: 'mcp-tools.json' } as const;

export async function currentContract(): Promise<Contract> {
  return { sdl: `${printSchema(sortedSchema())}\n`, openapi: openApiJson(), mcpTools: await listMcpTools() };
}

export class MissingBaselineError extends Error {}

export function readBaseline(dir: string): Contract {
  const read = (file: string) => {
    const target = path.join(dir, file);
    if (!fs.existsSync(target)) throw new MissingBaselineError(`no baseline file ${target}: npm run contract:baseline writes it`);
    return fs.readFileSync(target, 'utf8');
  };
  return { sdl: read(BASELINE_FILES.sdl), openapi: read(BASELINE_FILES.openapi), mcpTools: JSON.parse(read(BASELINE_FILES.mcpTools)) as ToolContract[] };
}

/** Returns the files written. */
export function writeBaseline(dir: string, contract: Contract): string[] {
  fs.mkdirSync(dir, { recursive: true });
  const files: [string, string][] = [
    [BASELINE_FILES.sdl, contract.sdl],
    [BASELINE_FILES.openapi, contract.openapi],
    [BASELINE_FILES.mcpTools, `${JSON.stringify(contract.mcpTools, null, 2)}\n`],
  ];
  return files.map(([file, text]) => {
    const target = path.join(dir, file);
    fs.writeFileSync(target, text);
    return target;
  });
}

/**
 * The written baseline formatted as `npm run format` would (Biome: the type-check fails on an
 * unformatted file; openapi.json is left alone by biome.json, as the emitted one is).
 */
export function formatBaseline(files: string[]): void {
  const biome = path.join(REPOSITORY_ROOT, 'node_modules', '.bin', 'biome');
  // Biome formats the repository's files only (a baseline elsewhere, such as a test's, is left as written).
  const formattable = files.filter((file) => path.basename(file) !== BASELINE_FILES.openapi && !path.relative(REPOSITORY_ROOT, file).startsWith('..'));
  if (formattable.length === 0) return;
  execFileSync(biome, ['format', '--write', ...formattable], { cwd: REPOSITORY_ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
}

/** Every difference from the baseline, front by front (GraphQL, REST, MCP). */
export async function compareContracts(baseline: Contract, current: Contract): Promise<ContractChange[]> {
  return [
    ...(await diffSdl(baseline.sdl, current.sdl)),
    ...diffOpenApi(JSON.parse(baseline.openapi), JSON.parse(current.openapi)),
    ...diffMcpTools(baseline.mcpTools, current.mcpTools),
  ];
}

export interface ChangelogCheck {
  problems: string[];
  /** Why the rule could not be checked (not a git checkout), if it could not. */
  skipped?: string;
}

/**
 * The rule that makes a baseline change deliberate: the commit that last changed the baseline
 * changed CHANGELOG.md too (or a later one did), and so does the working tree when its baseline
 * differs from the last commit's. Read from git: a checkout without git history is not checked
 * (and says so).
 */
export function checkChangelogRule(root: string = REPOSITORY_ROOT, baselineDir: string = DEFAULT_BASELINE_DIR): ChangelogCheck {
  const baseline = path.relative(root, baselineDir).split(path.sep).join('/');
  const git = (...args: string[]) => execFileSync('git', ['-C', root, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    git('rev-parse', '--verify', 'HEAD');
  } catch (error) {
    return { problems: [], skipped: `not checked against git history (${firstLine(error)})` };
  }
  const problems: string[] = [];
  const baselinePending = git('status', '--porcelain', '--', baseline).trim() !== '';
  const changelogPending = git('status', '--porcelain', '--', 'CHANGELOG.md').trim() !== '';
  if (baselinePending && !changelogPending) {
    problems.push(`${baseline}/ differs from the last commit but CHANGELOG.md does not: add a line saying what changed in the contract`);
  }
  // The baseline's last commit changed CHANGELOG.md too, or a later commit did (a line forgotten
  // is made good by committing it; history is never rewritten).
  const lastBaseline = git('log', '-1', '--format=%H', '--', baseline).trim();
  if (lastBaseline !== '') {
    const lastChangelog = git('log', '-1', '--format=%H', '--', 'CHANGELOG.md').trim();
    if (lastChangelog === '' || !isAncestor(git, lastBaseline, lastChangelog)) {
      const subject = git('log', '-1', '--format=%h %s', lastBaseline).trim();
      problems.push(`${baseline}/ was last changed by ${subject}, and CHANGELOG.md not since: add a line saying what changed in the contract`);
    }
  }
  return { problems };
}

function isAncestor(git: (...args: string[]) => string, ancestor: string, descendant: string): boolean {
  try {
    git('merge-base', '--is-ancestor', ancestor, descendant);
    return true;
  } catch {
    return false;
  }
}

function firstLine(error: unknown): string {
  const stderr = (error as { stderr?: unknown }).stderr;
  const text = typeof stderr === 'string' && stderr.trim() !== '' ? stderr : String(error);
  return text.trim().split('\n')[0];
}
