/**
 * A small differ over JSON Schema, shared by contract:check's REST front (the OpenAPI 3.1
 * document's parameter, request and response schemas) and its MCP front (each tool's inputSchema
 * and outputSchema).
 *
 * Why not a package: the OpenAPI differs on npm did not fit when this was written (2026-11).
 * openapi-diff (Atlassian) reads Swagger 2 and OpenAPI 3.0 only, and this document is 3.1 (type
 * arrays for null); api-smart-diff documents OpenAPI 3.0 and has had no commit since July 2024;
 * @pb33f/openapi-changes downloads a Go binary when installed; oasdiff is Go and OpenAPITools'
 * openapi-diff Java. Neither front needs more than the keywords these documents use: type (with
 * type arrays), properties, required, items, additionalProperties, enum, const, anyOf/oneOf and
 * local $ref. Keywords it does not read (pattern, minimum, format...) are not compared.
 *
 * The direction decides what breaks a client:
 * - output (a response body, a tool's result), which the client reads: a property removed or no
 *   longer required, a value that may now have a type it could not have before (null above all),
 *   an enum that no longer restricts the value. New properties, narrower types and enum values
 *   added or removed are listed as info.
 * - input (parameters, a request body, a tool's arguments), which the client writes: a property
 *   removed or made required, a new required property, a type or enum value no longer accepted.
 *   New optional properties and wider types are info.
 */
import type { Level } from './changes.ts';

export type Direction = 'input' | 'output';

/** `path`: the property's place in the value (`data[].title`; '' for the value itself). */
export interface SchemaChange {
  level: Level;
  path: string;
  what: string;
}

/** Follows `$ref`s: a document's own references (OpenAPI components, a tool schema's $defs). */
export type Resolver = (node: unknown) => unknown;

export interface SchemaDiffOptions {
  resolveBefore?: Resolver;
  resolveAfter?: Resolver;
}

type Schema = { [key: string]: unknown };

/** Nesting deeper than any schema here: a guard against self-referencing schemas. */
const MAX_DEPTH = 64;

export function diffSchemas(before: unknown, after: unknown, direction: Direction, options: SchemaDiffOptions = {}): SchemaChange[] {
  const differ = new SchemaDiffer(direction, options.resolveBefore ?? ((node) => node), options.resolveAfter ?? ((node) => node));
  differ.compare(before, after, '', 0);
  return differ.changes;
}

/** A resolver of the local references (`#/...`) of `document`; the referring node's siblings override the target's keywords (OpenAPI 3.1). */
export function localRefResolver(document: unknown): Resolver {
  return (node) => {
    let current = node;
    for (let hops = 0; isReference(current); hops++) {
      if (hops > MAX_DEPTH) throw new Error(`$ref loop at ${current.$ref}`);
      const { $ref, ...siblings } = current;
      const target = jsonPointer(document, $ref);
      current = Object.keys(siblings).length > 0 && isObject(target) ? { ...target, ...siblings } : target;
    }
    return current;
  };
}

function isReference(node: unknown): node is { $ref: string } {
  return isObject(node) && typeof node.$ref === 'string';
}

function jsonPointer(document: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) throw new Error(`only local $refs are compared, not ${ref}`);
  let current = document;
  for (const token of ref.slice(1).split('/').slice(1)) {
    const key = decodeURIComponent(token).replaceAll('~1', '/').replaceAll('~0', '~');
    if (!isObject(current) || !(key in current)) throw new Error(`$ref ${ref} points nowhere`);
    current = current[key];
  }
  return current;
}

function isObject(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

class SchemaDiffer {
  readonly changes: SchemaChange[] = [];
  /** Pairs already compared (shared $ref targets are compared once per pair). */
  private readonly compared = new Map<object, Set<object>>();

  constructor(
    private readonly direction: Direction,
    private readonly resolveBefore: Resolver,
    private readonly resolveAfter: Resolver,
  ) {}

  compare(beforeNode: unknown, afterNode: unknown, path: string, depth: number): void {
    const before = normalize(beforeNode, this.resolveBefore);
    const after = normalize(afterNode, this.resolveAfter);
    if (depth > MAX_DEPTH || this.seen(this.resolveBefore(beforeNode), this.resolveAfter(afterNode))) return;
    this.compareTypes(before, after, path);
    this.compareEnums(before, after, path);
    if (mayBe(before, 'object') && mayBe(after, 'object')) {
      this.compareProperties(before, after, path, depth);
      if (isObject(before.additionalProperties) && isObject(after.additionalProperties)) {
        this.compare(before.additionalProperties, after.additionalProperties, join(path, '*'), depth + 1);
      }
    }
    if (mayBe(before, 'array') && mayBe(after, 'array') && (before.items !== undefined || after.items !== undefined)) {
      this.compare(before.items ?? {}, after.items ?? {}, `${path}[]`, depth + 1);
    }
    this.compareAlternatives(before, after, path, depth);
  }

  private add(level: Level, path: string, what: string): void {
    this.changes.push({ level, path, what });
  }

  private seen(before: unknown, after: unknown): boolean {
    if (!isObject(before) || !isObject(after)) return false;
    const partners = this.compared.get(before) ?? new Set<object>();
    if (partners.has(after)) return true;
    partners.add(after);
    this.compared.set(before, partners);
    return false;
  }

  /** Output: a type the reader could not get before breaks it. Input: a type the writer sent that is refused now. */
  private compareTypes(before: Schema, after: Schema, path: string): void {
    const was = typeSet(before, this.resolveBefore);
    const now = typeSet(after, this.resolveAfter);
    const gained = uncovered(was, now);
    const lost = uncovered(now, was);
    const [breaks, harmless] = this.direction === 'output' ? [gained, lost] : [lost, gained];
    const change = `type ${formatTypes(was)} changed to ${formatTypes(now)}`;
    if (breaks.length === 1 && breaks[0] === 'null') this.add('breaking', path, this.direction === 'output' ? 'made nullable' : 'no longer accepts null');
    else if (breaks.length > 0) this.add('breaking', path, change);
    else if (harmless.length > 0) this.add('info', path, change);
  }

  /** null in an enum is nullability, which compareTypes reports. */
  private compareEnums(before: Schema, after: Schema, path: string): void {
    const was = enumKeys(before);
    const now = enumKeys(after);
    if (was === undefined && now === undefined) return;
    if (was !== undefined && now !== undefined) {
      const removed = [...was].filter((value) => !now.has(value));
      const added = [...now].filter((value) => !was.has(value));
      if (removed.length > 0) this.add(this.direction === 'input' ? 'breaking' : 'info', path, `enum value ${removed.join(', ')} removed`);
      if (added.length > 0) this.add('info', path, `enum value ${added.join(', ')} added`);
    } else if (was !== undefined) {
      this.add(this.direction === 'output' ? 'breaking' : 'info', path, `no longer restricted to ${[...was].join(', ')}`);
    } else if (now !== undefined) {
      this.add(this.direction === 'input' ? 'breaking' : 'info', path, `now restricted to ${[...now].join(', ')}`);
    }
  }

  private compareProperties(before: Schema, after: Schema, path: string, depth: number): void {
    const was = isObject(before.properties) ? before.properties : undefined;
    const now = isObject(after.properties) ? after.properties : undefined;
    if (was === undefined && now === undefined) return;
    // An input that now takes any object takes whatever the client sent.
    if (this.direction === 'input' && now === undefined && after.additionalProperties !== false) return;
    const wasRequired = requiredOf(before);
    const nowRequired = requiredOf(after);
    for (const [name, schema] of Object.entries(was ?? {})) {
      const at = join(path, name);
      if (now === undefined || !(name in now)) {
        this.add('breaking', at, 'removed');
        continue;
      }
      this.compareRequired(wasRequired.has(name), nowRequired.has(name), at);
      this.compare(schema, now[name], at, depth + 1);
    }
    for (const name of Object.keys(now ?? {})) {
      if (was !== undefined && name in was) continue;
      const required = nowRequired.has(name);
      if (this.direction === 'input' && required) this.add('breaking', join(path, name), 'added as required');
      else this.add('info', join(path, name), required ? 'added' : 'added (optional)');
    }
  }

  private compareRequired(was: boolean, now: boolean, path: string): void {
    if (was === now) return;
    if (this.direction === 'output' && was) this.add('breaking', path, 'no longer required (may be absent)');
    else if (this.direction === 'input' && now) this.add('breaking', path, 'made required');
    else this.add('info', path, now ? 'made required' : 'made optional');
  }

  /** Unions other than "X or null" (normalize folds those): compared branch by branch, in order. */
  private compareAlternatives(before: Schema, after: Schema, path: string, depth: number): void {
    const was = alternativesOf(before) ?? [];
    const now = alternativesOf(after) ?? [];
    if (was.length === 0 && now.length === 0) return;
    for (let index = 0; index < Math.min(was.length, now.length); index++) {
      this.compare(was[index], now[index], path === '' ? `(alternative ${index + 1})` : `${path}(alternative ${index + 1})`, depth + 1);
    }
    if (now.length > was.length) this.add(this.direction === 'output' ? 'breaking' : 'info', path, `${now.length - was.length} alternative(s) added`);
    if (was.length > now.length) this.add(this.direction === 'input' ? 'breaking' : 'info', path, `${was.length - now.length} alternative(s) removed`);
  }
}

/**
 * The schema with its $ref followed, and `anyOf`/`oneOf` of one schema and null folded into that
 * schema with null in its type (how OpenAPI 3.0 tools and zod write nullable, and how
 * portable-json-schema.ts does not): both spellings compare equal.
 */
function normalize(node: unknown, resolve: Resolver): Schema {
  const schema = resolve(node);
  if (!isObject(schema)) return {};
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = schema[key];
    if (!Array.isArray(branches) || branches.length !== 2) continue;
    const resolved = branches.map((branch) => normalize(branch, resolve));
    const others = resolved.filter((branch) => !isNullOnly(branch));
    if (others.length !== 1) continue;
    const { [key]: _union, ...rest } = schema;
    return nullable({ ...rest, ...others[0] }, resolve);
  }
  return schema;
}

function nullable(schema: Schema, resolve: Resolver): Schema {
  const types = typeSet(schema, resolve);
  if (types === null) return schema;
  const values = enumValuesOf(schema);
  return { ...schema, type: [...new Set([...types, 'null'])], ...(values ? { enum: [...values, null] } : {}) };
}

function isNullOnly(schema: Schema): boolean {
  return schema.type === 'null' || (Array.isArray(schema.type) && schema.type.length === 1 && schema.type[0] === 'null') || schema.const === null;
}

function enumValuesOf(schema: Schema): unknown[] | undefined {
  if (Array.isArray(schema.enum)) return schema.enum;
  if ('const' in schema) return [schema.const];
  return undefined;
}

function enumKeys(schema: Schema): Set<string> | undefined {
  const values = enumValuesOf(schema);
  return values && new Set(values.filter((value) => value !== null).map((value) => JSON.stringify(value)));
}

function alternativesOf(schema: Schema): unknown[] | undefined {
  const branches = schema.anyOf ?? schema.oneOf;
  return Array.isArray(branches) ? branches : undefined;
}

function requiredOf(schema: Schema): Set<string> {
  return new Set(Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === 'string') : []);
}

/** The JSON types a value may have; null: any. */
function typeSet(schema: Schema, resolve: Resolver): Set<string> | null {
  if (typeof schema.type === 'string') return new Set([schema.type]);
  if (Array.isArray(schema.type)) return new Set(schema.type.map(String));
  const values = enumValuesOf(schema);
  if (values) return new Set(values.map(jsonType));
  if (isObject(schema.properties)) return new Set(['object']);
  if (schema.items !== undefined) return new Set(['array']);
  const branches = alternativesOf(schema);
  if (!branches) return null;
  const union = new Set<string>();
  for (const branch of branches) {
    const types = typeSet(normalize(branch, resolve), resolve);
    if (types === null) return null;
    for (const type of types) union.add(type);
  }
  return union;
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function mayBe(schema: Schema, type: string): boolean {
  const types = typeSet(schema, (node) => node);
  return types === null || types.has(type);
}

/** Types of `to` that `from` does not allow (an integer is a number). */
function uncovered(from: Set<string> | null, to: Set<string> | null): string[] {
  if (from === null) return [];
  if (to === null) return ['any'];
  return [...to].filter((type) => !from.has(type) && !(type === 'integer' && from.has('number')));
}

function formatTypes(types: Set<string> | null): string {
  return types === null ? 'any' : [...types].join(' | ');
}

function join(path: string, name: string): string {
  return path === '' ? name : `${path}.${name}`;
}
