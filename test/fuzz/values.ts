/**
 * Malformed values for the fuzz test (malformed-input.test.ts): a shape per parameter (from the
 * GraphQL input types or a tool's JSON Schema), a valid baseline value per shape, and the classes
 * of bad input issue 11 lists, each generated from a seeded PRNG.
 */
import { mulberry32 } from '../../src/util/prng.ts';

export type Rng = () => number;

/** A PRNG for one case: the run's seed mixed with the case's own key, so a case's values do not depend on what ran before it. */
export function rngFor(seed: number, key: string): Rng {
  let hash = 2166136261 ^ seed;
  for (let i = 0; i < key.length; i += 1) hash = Math.imul(hash ^ key.charCodeAt(i), 16777619);
  return mulberry32(hash >>> 0);
}

export function pick<T>(rng: Rng, items: readonly T[]): T {
  return items[Math.floor(rng() * items.length)];
}

/** Mostly one of the `first` candidates (the values the review found), else any. */
export function pickMostly<T>(rng: Rng, first: number, items: readonly T[]): T {
  return rng() < 0.6 ? items[Math.floor(rng() * Math.min(first, items.length))] : pick(rng, items);
}

export function shuffle<T>(rng: Rng, items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i -= 1) {
    const j = Math.floor(rng() * (i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}

export function randomUuid(rng: Rng): string {
  const hex = () => Math.floor(rng() * 16).toString(16);
  const part = (n: number) => Array.from({ length: n }, hex).join('');
  return `${part(8)}-${part(4)}-4${part(3)}-${pick(rng, ['8', '9', 'a', 'b'])}${part(3)}-${part(12)}`;
}

/** JSON text spliced into a body as it is: numbers JSON.stringify cannot write (1e309, -0), nesting 5,000 deep. */
export class RawJson {
  constructor(readonly text: string) {}
}

export function toJsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${JSON.stringify(k)}:${toJsonText(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

// ---------------------------------------------------------------------------------------------
// Shapes

export type TextFormat = 'plain' | 'uuid' | 'date' | 'datetime' | 'decimal';

export type Shape =
  | { kind: 'text'; format: TextFormat }
  | { kind: 'int' }
  | { kind: 'float' }
  | { kind: 'boolean' }
  | { kind: 'enum'; values: string[] }
  | { kind: 'list'; of: Shape }
  | { kind: 'object'; fields: Field[] }
  | { kind: 'upload' }
  | { kind: 'json' };

export interface Field {
  name: string;
  shape: Shape;
  required: boolean;
}

/** A parameter to fuzz: a top-level argument, or a field inside one (`input.content`, `messages[0].role`). */
export interface Param {
  path: (string | number)[];
  shape: Shape;
  required: boolean;
}

export function paramLabel(path: (string | number)[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

/** Every parameter of a field list: each argument, and the fields of input objects (through lists at index 0). */
export function flattenParams(fields: Field[], prefix: (string | number)[] = []): Param[] {
  const params: Param[] = [];
  for (const field of fields) {
    const path = [...prefix, field.name];
    params.push({ path, shape: field.shape, required: field.required });
    if (field.shape.kind === 'object') params.push(...flattenParams(field.shape.fields, path));
    if (field.shape.kind === 'list' && field.shape.of.kind === 'object') params.push(...flattenParams(field.shape.of.fields, [...path, 0]));
  }
  return params;
}

// ---------------------------------------------------------------------------------------------
// Baselines: valid values, so that the one malformed parameter of a case is what gets judged

export type Resource = 'sticky' | 'link' | 'folder' | 'transcript' | 'task' | 'news' | 'run' | 'conversation' | 'file' | 'org' | 'webhook';

export interface BaselineContext {
  ids: Partial<Record<Resource, string>>;
  entityName: string;
  accountCode: string;
  /** The target's name (route path, field or tool name): says which record an `id` addresses. */
  target: string;
  /** Deletes and revocations get a random id, so the fuzz does not remove the records it addresses. */
  destructive: boolean;
  /** the user's password, for fields that ask for it again (`currentPassword`) */
  password: string;
  rng: Rng;
}

const RESOURCE_WORDS: [RegExp, Resource][] = [
  // First: a webhook's routes and fields also say deliveries and redeliver.
  [/webhook|endpointid/i, 'webhook'],
  [/folder/i, 'folder'],
  [/stick/i, 'sticky'],
  [/link/i, 'link'],
  [/transcript/i, 'transcript'],
  [/task/i, 'task'],
  [/news/i, 'news'],
  [/generat|run/i, 'run'],
  [/conversation/i, 'conversation'],
  [/file/i, 'file'],
  [/org/i, 'org'],
];

export function resourceOf(name: string): Resource | undefined {
  return RESOURCE_WORDS.find(([pattern]) => pattern.test(name))?.[1];
}

let uniqueCounter = 0;

/** A transcript the built-in importer accepts (format VTT), so a bad title or speaker gets as far as the database. */
export const VTT_TRANSCRIPT =
  'WEBVTT - Fuzz meeting\n\n00:00:00.000 --> 00:00:02.500\n<v Ana Fuzz>Hello there, this is the fuzz.</v>\n\n00:00:03.000 --> 00:00:05.000\n<v Ben Fuzz>Thanks.</v>\n';

export function baseline(name: string, shape: Shape, ctx: BaselineContext): unknown {
  const lower = name.replace(/_/g, '').toLowerCase();
  switch (shape.kind) {
    case 'text':
      switch (shape.format) {
        case 'uuid': {
          if (ctx.destructive && lower === 'id') return randomUuid(ctx.rng);
          const resource = lower === 'id' ? resourceOf(ctx.target) : resourceOf(lower);
          return (resource && ctx.ids[resource]) ?? randomUuid(ctx.rng);
        }
        case 'date':
          return lower.includes('start') ? '2025-01-02' : lower.includes('end') ? '2025-03-31' : '2026-06-30';
        case 'datetime':
          return '2026-01-15T10:00:00.000Z';
        case 'decimal':
          return '1.5';
        case 'plain':
          if (lower === 'entityname') return ctx.entityName;
          if (lower === 'accountcode') return ctx.accountCode;
          if (lower === 'url') return `https://example.com/fuzz/${(uniqueCounter += 1)}`;
          if (lower === 'week') return '2026-W10';
          if (lower === 'expiresin') return '30d';
          if (lower === 'name') return `fuzz ${(uniqueCounter += 1)}`;
          if (lower === 'scopes') return 'read:workspace';
          if (lower === 'events') return 'webhook.test';
          if (lower === 'currentpassword') return ctx.password;
          if (lower === 'content' && /transcript/i.test(ctx.target)) return VTT_TRANSCRIPT;
          if (lower === 'content' || lower === 'body' || lower === 'title') return 'fuzz text';
          return 'fuzz';
      }
      break;
    case 'int':
      return lower === 'days' ? 7 : lower === 'after' ? 0 : lower === 'first' || lower === 'last' || lower === 'limit' ? 5 : 1;
    case 'float':
      return 1;
    case 'boolean':
      return true;
    case 'enum':
      return shape.values.includes('user') ? 'user' : shape.values.includes('VTT') ? 'VTT' : shape.values[0];
    case 'list':
      return [baseline(name, shape.of, ctx)];
    case 'object':
      return baselineObject(shape.fields, ctx);
    case 'upload':
      return null;
    case 'json':
      return {};
  }
  return null;
}

/** Optional fields a valid request gives all the same. */
const ALWAYS_GIVEN = new Set(['currentPassword', 'current_password']);

/** The required fields of an object, each at its baseline (optional ones are left out). */
export function baselineObject(fields: Field[], ctx: BaselineContext): Record<string, unknown> {
  const value: Record<string, unknown> = {};
  for (const field of fields) if (field.required || ALWAYS_GIVEN.has(field.name)) value[field.name] = baseline(field.name, field.shape, ctx);
  return value;
}

/** `args` with the value at `path` replaced (containers on the way created from their baselines). */
export function withValueAt(
  args: Record<string, unknown>,
  path: (string | number)[],
  value: unknown,
  fields: Field[],
  ctx: BaselineContext,
): Record<string, unknown> {
  const root: Record<string, unknown> = structuredClone(args);
  let container: Record<string | number, unknown> = root;
  let shapeFields: Field[] | undefined = fields;
  for (let i = 0; i < path.length - 1; i += 1) {
    const key = path[i];
    const field: Field | undefined = typeof key === 'string' ? shapeFields?.find((f) => f.name === key) : undefined;
    let next = container[key];
    if (next === undefined || next === null || typeof next !== 'object') {
      next = field ? baseline(field.name, field.shape, ctx) : {};
      if (next === null || typeof next !== 'object') next = typeof path[i + 1] === 'number' ? [] : {};
      container[key] = next;
    }
    if (field?.shape.kind === 'object') shapeFields = field.shape.fields;
    else if (field?.shape.kind === 'list' && field.shape.of.kind === 'object') shapeFields = field.shape.of.fields;
    container = next as Record<string | number, unknown>;
  }
  container[path[path.length - 1]] = value;
  return root;
}

// ---------------------------------------------------------------------------------------------
// Malformed values

/**
 * One bad value, in the forms the transports need: `json` for JSON bodies, GraphQL variables and
 * tool arguments; `text` for query strings, path segments and form fields (null: no text form);
 * `url` when the URL form is not simply encodeURIComponent(text) (broken percent-encoding);
 * `repeat` to send the query parameter twice.
 */
export interface Malformed {
  json?: unknown;
  /** false: this class has no JSON form. */
  hasJson: boolean;
  text: string | null;
  url?: string;
  repeat?: boolean;
  /** How the input is described in the report. */
  note: string;
}

export type Transport = 'json' | 'text';

export interface ValueClass {
  name: string;
  make(shape: Shape, name: string, base: unknown, rng: Rng, transport: Transport): Malformed | undefined;
}

const DEEP = 5000;
export const deepArray = (depth = DEEP) => new RawJson('['.repeat(depth) + ']'.repeat(depth));
export const deepObject = (depth = DEEP) => new RawJson('{"a":'.repeat(depth) + '1' + '}'.repeat(depth));

function describe(value: unknown): string {
  if (value instanceof RawJson) return value.text.length > 60 ? `${value.text.slice(0, 24)}… (${value.text.length} chars of JSON)` : value.text;
  if (typeof value === 'string') {
    if (value.length > 80) return `${JSON.stringify(value.slice(0, 12))}… (${value.length.toLocaleString('en')} chars)`;
    return escapeForReport(JSON.stringify(value));
  }
  const text = toJsonText(value);
  return text.length > 80 ? `${text.slice(0, 60)}… (${text.length} chars)` : escapeForReport(text);
}

/** JSON.stringify leaves lone surrogates and U+2028 as they are; the report shows them escaped. */
function escapeForReport(text: string): string {
  return text.replace(/[\ud800-\udfff\u2028\u2029\u202e\ufeff\u0080-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

const textual = (shape: Shape): boolean => shape.kind === 'text' || shape.kind === 'enum' || (shape.kind === 'list' && textual(shape.of));

/** A bad string put where the shape takes text; lists get it as their one item. */
function textValue(shape: Shape, bad: string, note?: string, url?: string): Malformed | undefined {
  if (!textual(shape)) return undefined;
  const json = shape.kind === 'list' ? [bad] : bad;
  return { json, hasJson: true, text: bad, url, note: note ?? describe(bad) };
}

function baseText(base: unknown): string {
  if (typeof base === 'string') return base;
  if (Array.isArray(base) && typeof base[0] === 'string') return base[0];
  return 'fuzz';
}

function insertAt(rng: Rng, text: string, insert: string): string {
  const at = Math.floor(rng() * (text.length + 1));
  return text.slice(0, at) + insert + text.slice(at);
}

function isIntLike(shape: Shape): boolean {
  return shape.kind === 'int' || shape.kind === 'float' || (shape.kind === 'list' && isIntLike(shape.of));
}

export const VALUE_CLASSES: ValueClass[] = [
  {
    name: 'nul-byte',
    make: (shape, _name, base, rng) => textValue(shape, insertAt(rng, baseText(base), '\u0000')),
  },
  {
    name: 'control-chars',
    make: (shape, _name, base, rng) =>
      textValue(
        shape,
        insertAt(rng, baseText(base), pick(rng, ['\u0001\u001b[31m', '\u007f', '\r\n\t', '\u0085\u2028\u2029', '\u0008\u000b\u000c', '\u202e'])),
      ),
  },
  {
    name: 'lone-surrogate',
    make: (shape, _name, base, rng) => {
      const bad = insertAt(rng, baseText(base), pick(rng, ['\ud800', '\udfff', '\udc00\ud800']));
      // encodeURIComponent refuses lone surrogates: in a URL they are the (invalid UTF-8) CESU-8 bytes.
      return textValue(shape, bad, undefined, encodeURIComponent(baseText(base)) + '%ED%A0%80');
    },
  },
  {
    name: 'long-string',
    make: (shape, _name, base, rng, transport) => {
      if (!textual(shape)) return undefined;
      const unit = pick(rng, ['x', 'é', '😀', baseText(base)]);
      // A URL stays under Node's 16 KB header limit once percent-encoded (beyond it Node answers 431 before the app).
      const length =
        transport === 'text' ? Math.floor(8_000 / Math.max(1, encodeURIComponent(unit).length / unit.length)) : pick(rng, [10_001, 200_001, 1_000_000]);
      return textValue(shape, unit.repeat(Math.ceil(length / unit.length)).slice(0, length - (length % unit.length)));
    },
  },
  {
    name: 'huge-number',
    make: (shape, _name, _base, rng) => {
      if (isIntLike(shape) || (shape.kind === 'text' && shape.format === 'decimal')) {
        const candidates: [unknown, string][] = [
          [new RawJson('1e309'), '1e309'],
          [new RawJson('-1e309'), '-1e309'],
          [-1, '-1'],
          [0, '0'],
          [new RawJson('9007199254740993'), '9007199254740993'],
          [2147483648, '2147483648'],
          [-2147483649, '-2147483649'],
          [1e20, '100000000000000000000'],
          [1.5, '1.5'],
          [new RawJson('-0'), '-0'],
          ['NaN', 'NaN'],
          ['Infinity', 'Infinity'],
          [new RawJson('1e-400'), '1e-400'],
        ];
        const [json, text] = pickMostly(rng, 5, candidates);
        const wrapped = shape.kind === 'list' ? [json] : json;
        return { json: wrapped, hasJson: true, text, note: describe(wrapped) };
      }
      return undefined;
    },
  },
  {
    name: 'wrong-type',
    make: (shape, _name, _base, rng, transport) => {
      if (transport === 'text') {
        // Text has no types: JSON-ish text where a scalar is expected.
        if (shape.kind === 'upload') return undefined;
        const text = pick(rng, ['[]', '{}', '["a"]', '{"a":1}', 'true', 'null', 'undefined']);
        return { hasJson: false, text, note: JSON.stringify(text) };
      }
      const options: unknown[] =
        shape.kind === 'text' || shape.kind === 'enum'
          ? [123, true, [], ['a', 'b'], {}, { a: 1 }, 1.5]
          : shape.kind === 'int' || shape.kind === 'float'
            ? ['5', true, [5], {}, 'five']
            : shape.kind === 'boolean'
              ? ['true', 1, [], {}, 'yes']
              : shape.kind === 'list'
                ? [{}, { 0: 'a' }, [[['a']]], [null], [{}], 42]
                : shape.kind === 'object'
                  ? [[], 'x', 5, true, [{}]]
                  : [[], 'x', 5, { a: [] }];
      const json = pick(rng, options);
      return { json, hasJson: true, text: null, note: describe(json) };
    },
  },
  {
    name: 'null',
    make: (_shape, _name, _base, _rng, transport) => (transport === 'json' ? { json: null, hasJson: true, text: null, note: 'null' } : undefined),
  },
  {
    name: 'unknown-enum',
    make: (shape, _name, _base, rng) => {
      const enumShape = shape.kind === 'list' ? shape.of : shape;
      if (enumShape.kind !== 'enum') return undefined;
      const first = enumShape.values[0];
      return textValue(
        shape,
        pick(rng, [
          'not_a_value',
          first.toUpperCase() === first ? first.toLowerCase() : first.toUpperCase(),
          ` ${first}`,
          `${first} `,
          `${first},${first}`,
          '__proto__',
          'constructor',
        ]),
      );
    },
  },
  {
    name: 'invalid-uuid',
    make: (shape, _name, base, rng) => {
      const uuidShape = shape.kind === 'list' ? shape.of : shape;
      if (uuidShape.kind !== 'text' || uuidShape.format !== 'uuid') return undefined;
      const valid = typeof base === 'string' ? base : randomUuid(rng);
      return textValue(
        shape,
        pick(rng, [
          'not-a-uuid',
          '123',
          `${valid.slice(0, -1)}g`,
          `${valid}0`,
          valid.slice(0, -1),
          `{${valid}}`,
          valid.replace(/-/g, ''),
          "' OR '1'='1",
          '00000000-0000-0000-0000-000000000000',
          'ffffffff-ffff-ffff-ffff-ffffffffffff',
          valid.toUpperCase(),
          `${valid}\n`,
          '../../etc/passwd',
        ]),
      );
    },
  },
  {
    name: 'out-of-range-date',
    make: (shape, name, _base, rng) => {
      const inner = shape.kind === 'list' ? shape.of : shape;
      const lower = name.toLowerCase();
      let candidates: string[] | undefined;
      if (inner.kind === 'text' && inner.format === 'date') {
        candidates = [
          '+275760-09-13',
          '275760-09-13',
          '0000-01-01',
          '-000001-01-01',
          '0000-00-00',
          '2026-02-30',
          '2026-13-01',
          '9999-12-31',
          '10000-01-01',
          '0001-01-01',
          '1900-01-01',
          '2026-1-1',
          '20260101',
          '2026-06-30T00:00:00Z',
        ];
      } else if (inner.kind === 'text' && inner.format === 'datetime') {
        candidates = [
          '+275760-09-13T00:00:00Z',
          '-271821-04-20T00:00:00Z',
          '0000-01-01T00:00:00Z',
          '275760-09-13T00:00:00Z',
          '+275760-09-13T00:00:00.000Z',
          '10000-01-01T00:00:00Z',
          '9999-12-31T23:59:59.999Z',
          '2026-02-30T00:00:00Z',
          '2026-01-01T25:00:00Z',
          '1970-01-01T00:00:00Z',
          '1e15',
          '2026',
          '0',
          'now',
        ];
      } else if (inner.kind === 'text' && lower === 'week') {
        candidates = ['275760-W01', '+275760-W01', '2026-W00', '2026-W54', '0000-W01', '9999-W52', '2026-W1', '2026W10', '-0001-W01'];
      } else if (inner.kind === 'text' && lower === 'expiresin') {
        candidates = ['+275760-09-13T00:00:00Z', '275760-09-13', '99999999d', '1e309d', '-1d', '0s', '9007199254740993w', '10000-01-01T00:00:00Z'];
      }
      return candidates ? textValue(shape, pickMostly(rng, 3, candidates)) : undefined;
    },
  },
  {
    name: 'like-metachars',
    make: (shape, _name, base, rng) => {
      const inner = shape.kind === 'list' ? shape.of : shape;
      if (inner.kind !== 'text' || inner.format !== 'plain') return undefined;
      return textValue(
        shape,
        pickMostly(rng, 3, ['\\', `${baseText(base)}\\`, '%', '_', '%\\%', '\\%', "'", '"', "'; DROP TABLE x; --", '$1', '\\x00', '[a-', '(?', '*']),
      );
    },
  },
  {
    name: 'odd-unicode',
    make: (shape, _name, base, rng) => {
      const inner = shape.kind === 'list' ? shape.of : shape;
      if (inner.kind !== 'text' || inner.format !== 'plain') return undefined;
      return textValue(
        shape,
        pick(rng, ['\ufeff' + baseText(base), 'e\u0301'.repeat(2000), '\u{10ffff}\uffff\ufffe', '😀'.repeat(300), '\u200b', 'İı'.repeat(50)]),
      );
    },
  },
  {
    name: 'empty',
    make: (shape, _name, _base, rng) => textValue(shape, pick(rng, ['', ' ', '\t\n'])),
  },
  {
    name: 'malformed-percent-encoding',
    make: (shape, _name, _base, rng, transport) => {
      if (transport !== 'text' || shape.kind === 'upload') return undefined;
      const url = pick(rng, ['%E0%A4%A', '%', '%zz', '%C0%AF', '%ED%A0%80', '%FF', 'a%2', '%%']);
      return { hasJson: false, text: null, url, note: `${url} (raw in the URL)` };
    },
  },
  {
    name: 'repeated-param',
    make: (shape, _name, base, _rng, transport) => {
      if (transport !== 'text' || shape.kind === 'upload') return undefined;
      const text = Array.isArray(base) ? String(base[0]) : String(base ?? 'fuzz');
      return { hasJson: false, text, repeat: true, note: `given twice (${JSON.stringify(text)})` };
    },
  },
  {
    name: 'deep-nesting',
    make: (shape, _name, _base, rng, transport) => {
      if (transport !== 'json' || shape.kind === 'upload') return undefined;
      const json = pick(rng, [deepArray(), deepObject()]);
      return { json, hasJson: true, text: null, note: `${describe(json)}, ${DEEP} deep` };
    },
  },
  {
    name: 'prototype-keys',
    make: (shape, _name, _base, rng, transport) => {
      if (transport !== 'json' || shape.kind !== 'object') return undefined;
      const json = new RawJson(pick(rng, ['{"__proto__":{"isAdmin":true}}', '{"constructor":{"prototype":{"x":1}}}', '{"toString":1,"valueOf":2}']));
      return { json, hasJson: true, text: null, note: json.text };
    },
  },
];
