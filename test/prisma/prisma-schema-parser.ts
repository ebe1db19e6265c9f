import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

/**
 * `prisma/schema.prisma` as Prisma itself parses it (the DMMF datamodel, with native types,
 * indexes and referential actions), obtained offline.
 *
 * The Prisma CLI has no command that prints the DMMF, and the WASM parser it ships is bundled
 * inside its CLI without an export. But `prisma generate` hands the DMMF to every generator over
 * a small, documented JSON-RPC protocol (the one `@prisma/generator-helper` implements), and
 * `generate` works offline (DESIGN.md). So we run `prisma generate` on a copy of the schema
 * whose generator blocks are replaced by a throwaway generator that writes the datamodel to a
 * file. Nothing in the project's src/generated is touched.
 */

export interface DmmfField {
  name: string;
  dbName?: string | null;
  kind: 'scalar' | 'object' | 'enum' | 'unsupported';
  type: string;
  isList: boolean;
  isRequired: boolean;
  isId: boolean;
  isUnique: boolean;
  isUpdatedAt?: boolean;
  hasDefaultValue: boolean;
  /** e.g. `{ name: 'now', args: [] }`, or a literal: `'member'`, `0`, `true`. */
  default?: { name: string; args: unknown[] } | string | number | boolean | unknown[];
  /** `@db.*`: `['Decimal', ['20', '4']]`, `['Uuid', []]`; null when none. */
  nativeType?: [string, string[]] | null;
  relationName?: string;
  relationFromFields?: string[];
  relationToFields?: string[];
  relationOnDelete?: string;
  relationOnUpdate?: string;
}

export interface DmmfModel {
  name: string;
  dbName: string | null;
  schema?: string | null;
  fields: DmmfField[];
  primaryKey: { name: string | null; fields: string[] } | null;
}

export interface DmmfEnum {
  name: string;
  dbName?: string | null;
  values: { name: string; dbName: string | null }[];
}

export interface DmmfIndex {
  model: string;
  type: 'id' | 'normal' | 'unique' | 'fulltext';
  isDefinedOnField: boolean;
  /** The `map:` name, when the schema gives one. */
  dbName?: string;
  name?: string;
  algorithm?: string;
  fields: { name: string; sortOrder?: 'asc' | 'desc'; length?: number }[];
}

export interface Datamodel {
  enums: DmmfEnum[];
  models: DmmfModel[];
  indexes: DmmfIndex[];
}

// A generator with no dependencies: answers `getManifest` and `generate` (JSON lines on stdin,
// replies on stderr, as @prisma/generator-helper does) and writes the datamodel to DMMF_OUT.
const GENERATOR_SOURCE = String.raw`
const fs = require('node:fs');
const readline = require('node:readline');
const reply = (msg) => process.stderr.write(JSON.stringify({ jsonrpc: '2.0', ...msg }) + '\n');
readline.createInterface({ input: process.stdin, crlfDelay: Infinity }).on('line', (line) => {
  const req = JSON.parse(line);
  try {
    if (req.method === 'getManifest') {
      reply({ id: req.id, result: { manifest: { prettyName: 'DMMF dump', requiresGenerators: [] } } });
    } else if (req.method === 'generate') {
      fs.writeFileSync(process.env.DMMF_OUT, JSON.stringify(req.params.dmmf.datamodel));
      reply({ id: req.id, result: null });
    }
  } catch (e) {
    reply({ id: req.id, error: { code: -32000, message: String(e && e.message), data: { stack: e && e.stack } } });
  }
});
process.stdin.resume();
`;

/** Removes every `generator x { ... }` block (the schema's own generators must not run). */
export function stripGenerators(schema: string): string {
  return schema.replace(/^[ \t]*generator\s+\w+\s*\{[\s\S]*?^[ \t]*\}[ \t]*$/gm, '');
}

function prismaCliPath(): string {
  const require = createRequire(import.meta.url);
  return path.join(path.dirname(require.resolve('prisma/package.json')), 'build', 'index.js');
}

export async function loadDatamodel(schemaPath: string): Promise<Datamodel> {
  const schema = await fs.readFile(schemaPath, 'utf8');
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'prisma-dmmf-'));
  try {
    const generator = path.join(dir, 'dmmf-generator.cjs');
    const out = path.join(dir, 'datamodel.json');
    await fs.writeFile(generator, GENERATOR_SOURCE);
    // Prisma runs the provider through a shell; our temp paths have no spaces.
    const provider = `${process.execPath} ${generator}`;
    await fs.writeFile(
      path.join(dir, 'schema.prisma'),
      `${stripGenerators(schema)}\ngenerator dmmf {\n  provider = ${JSON.stringify(provider)}\n  output   = "./out"\n}\n`,
    );
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DMMF_OUT: out,
      PRISMA_HIDE_UPDATE_MESSAGE: '1',
      CHECKPOINT_DISABLE: '1',
      // `generate` needs no schema engine but insists that one exists (see scripts/prisma-generate.mjs).
      PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? process.execPath,
    };
    // cwd is the temp dir so that the project's prisma.config.ts is not picked up.
    const { code, output } = await run(process.execPath, [prismaCliPath(), 'generate', '--schema', 'schema.prisma', '--no-hints'], dir, env);
    if (code !== 0) throw new Error(`prisma generate (DMMF dump) failed with exit code ${code}:\n${output}`);
    return JSON.parse(await fs.readFile(out, 'utf8')) as Datamodel;
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}
