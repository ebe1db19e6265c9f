/**
 * The fuzz cases: for every target (REST route, GraphQL root field, JSON-RPC tool) one case per
 * parameter and malformed-input class, plus the cases aimed at a whole request (bodies, encodings,
 * multipart framing, credentials, the sign-in form). A case builds its request only when it runs,
 * from its own seeded PRNG, so a case is the same whatever ran before it.
 */
import { gzipSync } from 'node:zlib';
import { SignJWT } from 'jose';
import { checkGraphql, checkMcp, checkPlain, checkRest, excerpt, jsonRpcMessages, rawHttp, send, type Answer, type Front } from './http.ts';
import {
  VALUE_CLASSES,
  baseline,
  baselineObject,
  deepArray,
  deepObject,
  flattenParams,
  paramLabel,
  pick,
  resourceOf,
  toJsonText,
  withValueAt,
  type BaselineContext,
  type Malformed,
  type Param,
  type Resource,
  type Rng,
  type Transport,
} from './values.ts';
import type { GraphqlTarget, McpTarget, RestField, RestTarget } from './targets.ts';

export interface FuzzEnv {
  baseUrl: string;
  /** API key (scope admin) for REST */
  apiKey: string;
  /** `sso_token=...` of the same user, for GraphQL (some fields need a signed-in session) */
  cookie: string;
  /** personal access token for /api/service */
  accessToken: string;
  /** SSO_JWT_SECRET the service was started with (to sign session tokens with odd claims) */
  jwtSecret: string;
  userId: string;
  password: string;
  ids: Partial<Record<Resource, string>>;
  entityName: string;
  accountCode: string;
  /** extensions.code values of the error table */
  codes: ReadonlySet<string>;
}

export interface Outcome {
  input: string;
  answer: Answer;
  problem: string | undefined;
  /** records a successful write created or changed, for the read-back */
  ids?: [Resource, string][];
}

export interface Case {
  target: string;
  front: Front;
  cls: string;
  /** the parameter, or `*` for a case about the whole request */
  param: string;
  kind: 'read' | 'write';
  run(rng: Rng): Promise<Outcome>;
}

export function ctxFor(env: FuzzEnv, target: string, destructive: boolean, rng: Rng): BaselineContext {
  return { ids: env.ids, entityName: env.entityName, accountCode: env.accountCode, target, destructive, rng, password: env.password };
}

/** Whether a class has a value for this parameter at all (decided from the shape, not the PRNG). */
function applicable(param: Param, transport: Transport) {
  const name = String(param.path[param.path.length - 1]);
  return VALUE_CLASSES.filter((cls) => {
    const made = cls.make(param.shape, name, 'fuzz', () => 0, transport);
    return made !== undefined && (transport === 'json' ? made.hasJson : made.text !== null || made.url !== undefined);
  });
}

function valueAt(args: Record<string, unknown>, path: (string | number)[]): unknown {
  let current: unknown = args;
  for (const key of path) current = current !== null && typeof current === 'object' ? (current as Record<string | number, unknown>)[key] : undefined;
  return current;
}

function textOf(value: unknown): string {
  if (Array.isArray(value)) return value.map(textOf).join(',');
  if (value === null || value === undefined) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function successIds(status: number, target: string, candidates: unknown[]): [Resource, string][] | undefined {
  if (status < 200 || status > 299) return undefined;
  const resource = resourceOf(target.replace(/^(REST|GraphQL|MCP) /, ''));
  if (!resource) return undefined;
  const found = candidates.find((c): c is string => typeof c === 'string' && /^[0-9a-f-]{36}$/.test(c));
  return found ? [[resource, found]] : undefined;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// Multipart bodies, by hand (control characters in a file name, bodies cut off mid-file)

export interface Part {
  name: string;
  value: string | Buffer;
  filename?: string;
  contentType?: string;
}

export function multipartBody(boundary: string, parts: Part[], close = true): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename !== undefined ? `; filename="${part.filename}"` : ''}`;
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: ${disposition}\r\n${part.filename !== undefined ? `Content-Type: ${part.contentType ?? 'text/csv'}\r\n` : ''}\r\n`,
        'utf8',
      ),
    );
    chunks.push(typeof part.value === 'string' ? Buffer.from(part.value, 'utf8') : part.value, Buffer.from('\r\n'));
  }
  if (close) chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

export const CSV =
  'account_code,entity_name,date,market_value,cash_flow,flow_timing,description\nFZ-1,Fuzz Fund,2025-03-03,100.00,,,\nFZ-1,Fuzz Fund,2025-03-04,101.00,,,\n';

interface UploadVariant {
  cls: string;
  note: string;
  filename: string;
  bytes: Buffer;
}

/** Malformed files and file names (the file's framing is fuzzed by the raw cases). */
function uploadVariant(rng: Rng): UploadVariant {
  return pick(rng, [
    () => {
      const name = pick(rng, ['a\u0001b.csv', 'a\u0000b.csv', '\u001b[31mred.csv', 'tab\there.csv', 'del\u007f.csv', 'bell\u0007.csv']);
      return { cls: 'file-name-control-chars', note: `filename ${JSON.stringify(name)}`, filename: name, bytes: Buffer.from(CSV) };
    },
    () => {
      const name = pick(rng, ['../../../etc/passwd', '', 'x'.repeat(5000) + '.csv', '%E0%A4%A.csv', 'a"b.csv', 'é😀.csv', ' .csv', '.']);
      return { cls: 'file-name-odd', note: `filename ${excerpt(JSON.stringify(name), 60)}`, filename: name, bytes: Buffer.from(CSV) };
    },
    () => {
      const bad = pick(rng, ['Fuzz\u0000Fund', 'FZ\u00001', '2025-03-05\u0000']);
      return {
        cls: 'file-content-nul-byte',
        note: `CSV with ${JSON.stringify(bad)} in a cell`,
        filename: 'nul.csv',
        bytes: Buffer.from(`${CSV}FZ-1,${bad},2025-03-05,1.00,,,\n`),
      };
    },
    () => {
      const row = pick(rng, [
        'FZ-1,Fuzz Fund,275760-09-13,1.00,,,',
        'FZ-1,Fuzz Fund,+275760-09-13,1.00,,,',
        'FZ-1,Fuzz Fund,2025-03-05,1e309,,,',
        'FZ-1,Fuzz Fund,2025-03-05,NaN,,,',
        'FZ-1,Fuzz Fund,2025-03-05,99999999999999999999999999999999999999.99,,,',
        'FZ-1,Fuzz Fund,0000-01-01,1,,,',
      ]);
      return { cls: 'file-content-out-of-range', note: `CSV row ${JSON.stringify(row)}`, filename: 'range.csv', bytes: Buffer.from(`${CSV}${row}\n`) };
    },
    () => {
      const bytes = pick(rng, [
        Buffer.alloc(0),
        Buffer.from([0xff, 0xfe, 0x00, 0x00, 0x01]),
        Buffer.from('\ufeff' + CSV, 'utf16le'),
        Buffer.from('account_code\n' + '"'.repeat(1000)),
      ]);
      return {
        cls: 'file-content-not-csv',
        note: `${bytes.length} bytes: ${excerpt(JSON.stringify(bytes.subarray(0, 12).toString('latin1')), 40)}`,
        filename: 'odd.csv',
        bytes,
      };
    },
  ])();
}

// ---------------------------------------------------------------------------------------------
// REST

export function restCases(env: FuzzEnv, target: RestTarget): Case[] {
  const cases: Case[] = [];
  const { route } = target;
  const sourceOf = (name: string | number) => target.fields.find((f) => f.name === name)?.source ?? 'query';
  const destructive = route.method === 'DELETE';
  const make = (cls: string, param: string, build: (rng: Rng) => Promise<Outcome>): Case => ({
    target: target.name,
    front: 'rest',
    cls,
    param,
    kind: target.kind,
    run: build,
  });

  for (const param of flattenParams(target.fields)) {
    const source = sourceOf(param.path[0]);
    // Upload form fields and the file are fuzzed as multipart requests below.
    if (source === 'file' || source === 'form') continue;
    const transport: Transport = source === 'body' ? 'json' : 'text';
    if (transport === 'text' && param.path.length > 1) continue;
    const name = String(param.path[param.path.length - 1]);
    for (const cls of applicable(param, transport)) {
      if (source === 'path' && cls.name === 'repeated-param') continue;
      cases.push(
        make(cls.name, paramLabel(param.path), async (rng) => {
          const ctx = ctxFor(env, route.path, destructive, rng);
          let args = baselineObject(target.fields, ctx);
          const base = valueAt(args, param.path) ?? baseline(name, param.shape, ctx);
          const bad = cls.make(param.shape, name, base, rng, transport)!;
          if (transport === 'json') args = withValueAt(args, param.path, bad.json, target.fields, ctx);
          else delete args[name];
          const answer = await sendRest(env, target, args, transport === 'text' ? { name, bad } : undefined);
          return restOutcome(target, `${paramLabel(param.path)}=${bad.note}`, answer);
        }),
      );
    }
  }

  if (route.body === 'json') {
    const bodyCase = (
      cls: string,
      build: (rng: Rng, args: Record<string, unknown>) => { note: string; body: Buffer | string; headers?: Record<string, string> },
    ) =>
      make(cls, '*', async (rng) => {
        const args = baselineObject(target.fields, ctxFor(env, route.path, destructive, rng));
        const { note, body, headers } = build(rng, args);
        return restOutcome(target, note, await sendRest(env, target, args, undefined, { body, headers }));
      });
    const json = (args: Record<string, unknown>) =>
      toJsonText(Object.fromEntries(target.fields.filter((f) => f.source === 'body' && f.name in args).map((f) => [f.name, args[f.name]])));
    cases.push(
      bodyCase('malformed-json', (rng) => {
        const body = pick(rng, ['{"content": "a', '{', '{"a":1}}', "{'a':1}", '{"a":01}', '{"a":"\\x"}', '{"a":"\\ud800"}', '\u0000', '{"a":1,}']);
        return { note: `body ${JSON.stringify(body)}`, body };
      }),
      bodyCase('body-not-object', (rng) => {
        const body = pick(rng, ['[]', '[{}]', '"x"', '5', 'true', '1e309']);
        return { note: `body ${body}`, body };
      }),
      bodyCase('deep-nesting', (rng) => {
        const body = pick(rng, [deepArray(), deepObject()]).text;
        return { note: `body nested 5000 deep (${body.slice(0, 10)}…)`, body };
      }),
      bodyCase('unknown-field', (rng, args) => {
        const extra = pick(rng, ['zzz', '__proto__', 'constructor', 'id', 'user_id', '']);
        const body = json({ ...args }).replace(
          /^\{/,
          `{${JSON.stringify(extra)}:${pick(rng, ['1', '{"isAdmin":true}', 'null'])}${Object.keys(args).length ? ',' : ''}`,
        );
        return { note: `body ${excerpt(body, 80)}`, body };
      }),
      bodyCase('duplicate-keys', (_rng, args) => {
        const first = target.fields.find((f) => f.source === 'body');
        const body = first ? json(args).replace(/^\{/, `{${JSON.stringify(first.name)}:[1,2],`) : '{"a":1,"a":2}';
        return { note: `body ${excerpt(body, 80)}`, body };
      }),
      bodyCase('wrong-content-type', (rng, args) => {
        const type = pick(rng, ['text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'multipart/form-data', 'application/json-seq', '']);
        return { note: `Content-Type ${JSON.stringify(type)}`, body: json(args), headers: { 'content-type': type } };
      }),
      bodyCase('unsupported-charset', (rng, args) => {
        const charset = pick(rng, ['utf-16', 'utf-16le', 'latin1', 'x-unknown', 'utf-32']);
        return {
          note: `application/json; charset=${charset}`,
          body: Buffer.from(json(args), charset === 'utf-16' || charset === 'utf-16le' ? 'utf16le' : 'latin1'),
          headers: { 'content-type': `application/json; charset=${charset}` },
        };
      }),
      bodyCase('broken-compression', (rng, args) => {
        const encoding = pick(rng, ['gzip', 'deflate', 'br', 'x-unknown']);
        const body = pick(rng, [Buffer.from('not compressed at all'), gzipSync(json(args)).subarray(0, 12)]);
        return { note: `Content-Encoding ${encoding}, ${body.length} bytes that do not decompress`, body, headers: { 'content-encoding': encoding } };
      }),
      bodyCase('over-1mb', (rng) => {
        const body = `{"${target.fields.find((f) => f.source === 'body')?.name ?? 'x'}":"${pick(rng, ['x', 'é']).repeat(1_100_000)}"}`;
        return { note: 'a 1.1 MB JSON body', body };
      }),
    );
  }

  if (route.body === 'multipart') {
    for (const param of target.fields) {
      if (param.source !== 'form') continue;
      for (const cls of applicable({ path: [param.name], shape: param.shape, required: param.required }, 'text')) {
        if (cls.name === 'malformed-percent-encoding' || cls.name === 'repeated-param') continue;
        cases.push(
          make(cls.name, param.name, async (rng) => {
            const bad = cls.make(param.shape, param.name, baseline(param.name, param.shape, ctxFor(env, route.path, false, rng)), rng, 'text')!;
            const fields = uploadFormFields(env, target, rng, { [param.name]: bad.text ?? '' });
            return restOutcome(
              target,
              `${param.name}=${bad.note}`,
              await sendRestMultipart(env, route.path, fields, { filename: 'fuzz.csv', bytes: Buffer.from(CSV) }),
            );
          }),
        );
      }
    }
    for (let i = 0; i < 5; i += 1) {
      cases.push(
        make('upload-file', `file#${i}`, async (rng) => {
          const variant = uploadVariant(rng);
          const answer = await sendRestMultipart(env, route.path, uploadFormFields(env, target, rng, {}), variant);
          return { ...restOutcome(target, `${variant.cls}: ${variant.note}`, answer) };
        }),
      );
    }
  }

  // Every route: junk in unknown query parameters (ignored by design, so never a 500)
  cases.push(
    make('unknown-query-param', '*', async (rng) => {
      const ctx = ctxFor(env, route.path, destructive, rng);
      const args = baselineObject(target.fields, ctx);
      const junk = pick(rng, [
        '%E0%A4%A=1',
        'x=%00',
        '%00=1',
        'x[y]=1&x[z][w]=2',
        '__proto__[a]=1',
        'x=' + 'y'.repeat(7000),
        Array.from({ length: 1500 }, (_, i) => `p${i}=1`).join('&'),
      ]);
      const answer = await sendRest(env, target, args, undefined, { extraQuery: junk });
      return restOutcome(target, `query ${excerpt(junk, 60)}`, answer);
    }),
  );
  return cases;
}

function uploadFormFields(env: FuzzEnv, target: RestTarget, rng: Rng, overrides: Record<string, string>): [string, string][] {
  const ctx = ctxFor(env, target.route.path, false, rng);
  const fields: [string, string][] = [];
  for (const field of target.fields) {
    if (field.source !== 'form') continue;
    if (field.name in overrides) fields.push([field.name, overrides[field.name]]);
    else if (field.required) fields.push([field.name, textOf(baseline(field.name, field.shape, ctx))]);
  }
  return fields;
}

function restOutcome(target: RestTarget, input: string, answer: Answer): Outcome {
  const body = parse(answer.text) as { data?: { id?: unknown } } | undefined;
  return {
    input,
    answer,
    problem: checkRest(answer),
    ids: target.kind === 'write' ? successIds(answer.status, target.route.path, [body?.data?.id]) : undefined,
  };
}

export interface RestExtras {
  body?: Buffer | string;
  headers?: Record<string, string>;
  extraQuery?: string;
}

export function restUrl(env: FuzzEnv, target: RestTarget, args: Record<string, unknown>, bad?: { name: string; bad: Malformed }, extraQuery?: string): string {
  const fields = target.fields;
  const encode = (name: string, value: unknown) =>
    bad?.name === name ? (bad.bad.url ?? encodeURIComponent(bad.bad.text ?? '')) : encodeURIComponent(textOf(value));
  const path = target.route.path.replace(/:(\w+)/g, (_m, name: string) => encode(name, args[name]));
  const query: string[] = [];
  for (const field of fields) {
    if (field.source !== 'query') continue;
    if (bad?.name === field.name) {
      const value = encode(field.name, undefined);
      query.push(`${field.name}=${value}`);
      if (bad.bad.repeat) query.push(`${field.name}=${value}`);
    } else if (args[field.name] !== undefined) {
      query.push(`${field.name}=${encode(field.name, args[field.name])}`);
    }
  }
  if (extraQuery) query.push(extraQuery);
  return `${env.baseUrl}${path}${query.length ? `?${query.join('&')}` : ''}`;
}

export function sendRest(
  env: FuzzEnv,
  target: RestTarget,
  args: Record<string, unknown>,
  bad?: { name: string; bad: Malformed },
  extras: RestExtras = {},
): Promise<Answer> {
  const url = restUrl(env, target, args, bad, extras.extraQuery);
  const headers: Record<string, string> = { 'x-api-key': env.apiKey };
  let body: Buffer | string | undefined = extras.body;
  if (target.route.body === 'json' && body === undefined) {
    body = toJsonText(Object.fromEntries(target.fields.filter((f: RestField) => f.source === 'body' && f.name in args).map((f) => [f.name, args[f.name]])));
  }
  if (body !== undefined) headers['content-type'] = 'application/json';
  return send(url, { method: target.route.method, headers: { ...headers, ...extras.headers }, body });
}

export async function sendRestMultipart(
  env: FuzzEnv,
  path: string,
  fields: [string, string][],
  file: { filename: string; bytes: Buffer } | undefined,
): Promise<Answer> {
  const boundary = `----fuzz${Math.random().toString(16).slice(2)}`;
  const parts: Part[] = fields.map(([name, value]) => ({ name, value }));
  if (file) parts.push({ name: 'file', value: file.bytes, filename: file.filename });
  return send(`${env.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'x-api-key': env.apiKey, 'content-type': `multipart/form-data; boundary=${boundary}` },
    body: multipartBody(boundary, parts),
  });
}

// ---------------------------------------------------------------------------------------------
// GraphQL

export function graphqlHeaders(env: FuzzEnv): Record<string, string> {
  return { cookie: env.cookie, 'x-csrf-protection': '1' };
}

export async function sendGraphql(env: FuzzEnv, target: GraphqlTarget, variables: Record<string, unknown>, rng: Rng): Promise<Answer> {
  const variablesText = toJsonText(variables);
  if (target.uploadArgs.length > 0) {
    const boundary = `----fuzz${Math.floor(rng() * 1e12).toString(16)}`;
    const operations = `{"query":${JSON.stringify(target.document)},"operationName":"Fuzz","variables":${toJsonText({ ...variables, ...Object.fromEntries(target.uploadArgs.map((a) => [a, null])) })}}`;
    const map = JSON.stringify(Object.fromEntries(target.uploadArgs.map((a, i) => [String(i), [`variables.${a}`]])));
    const parts: Part[] = [
      { name: 'operations', value: operations },
      { name: 'map', value: map },
      ...target.uploadArgs.map((_a, i) => ({ name: String(i), value: Buffer.from(CSV), filename: 'fuzz.csv' })),
    ];
    return send(`${env.baseUrl}/graphql`, {
      method: 'POST',
      headers: { ...graphqlHeaders(env), 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: multipartBody(boundary, parts),
    });
  }
  if (target.operationType === 'query' && variablesText.length < 4000 && rng() < 0.3) {
    const url = `${env.baseUrl}/graphql?query=${encodeURIComponent(target.document)}&operationName=Fuzz&variables=${encodeURIComponentLoose(variablesText)}`;
    return send(url, { headers: { ...graphqlHeaders(env), accept: 'application/graphql-response+json, application/json' } });
  }
  return send(`${env.baseUrl}/graphql`, {
    method: 'POST',
    headers: { ...graphqlHeaders(env), 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json' },
    body: `{"query":${JSON.stringify(target.document)},"operationName":"Fuzz","variables":${variablesText}}`,
  });
}

/** encodeURIComponent that writes a lone surrogate as the (invalid UTF-8) bytes a sloppy client would send. */
function encodeURIComponentLoose(text: string): string {
  return text.replace(/[\ud800-\udfff]|[^\ud800-\udfff]+/g, (part) =>
    /^[\ud800-\udfff]$/.test(part)
      ? `%ED%${(0xa0 + ((part.charCodeAt(0) >> 6) & 0x1f)).toString(16).toUpperCase()}%${(0x80 + (part.charCodeAt(0) & 0x3f)).toString(16).toUpperCase()}`
      : encodeURIComponent(part),
  );
}

export function graphqlOutcome(env: FuzzEnv, target: GraphqlTarget, input: string, answer: Answer): Outcome {
  const body = parse(answer.text) as { data?: Record<string, { id?: unknown } | null> } | undefined;
  return {
    input,
    answer,
    problem: checkGraphql(answer, env.codes),
    ids: target.kind === 'write' && !target.destructive ? successIds(answer.status, target.field, [body?.data?.[target.field]?.id]) : undefined,
  };
}

export function graphqlCases(env: FuzzEnv, target: GraphqlTarget): Case[] {
  const cases: Case[] = [];
  const make = (cls: string, param: string, run: (rng: Rng) => Promise<Outcome>): Case => ({
    target: target.name,
    front: 'graphql',
    cls,
    param,
    kind: target.kind,
    run,
  });
  for (const param of flattenParams(target.fields)) {
    if (param.shape.kind === 'upload') continue;
    const name = String(param.path[param.path.length - 1]);
    for (const cls of applicable(param, 'json')) {
      cases.push(
        make(cls.name, paramLabel(param.path), async (rng) => {
          const ctx = ctxFor(env, target.field, target.destructive, rng);
          let args = baselineObject(
            target.fields.filter((f) => f.shape.kind !== 'upload'),
            ctx,
          );
          const base = valueAt(args, param.path) ?? baseline(name, param.shape, ctx);
          const bad = cls.make(param.shape, name, base, rng, 'json')!;
          args = withValueAt(args, param.path, bad.json, target.fields, ctx);
          return graphqlOutcome(env, target, `$${paramLabel(param.path)}=${bad.note}`, await sendGraphql(env, target, args, rng));
        }),
      );
    }
  }
  cases.push(...embeddedDocumentCases(env, target, make));
  for (let i = 0; i < (target.uploadArgs.length ? 5 : 0); i += 1) {
    cases.push(
      make('upload-file', `file#${i}`, async (rng) => {
        const variant = uploadVariant(rng);
        const ctx = ctxFor(env, target.field, false, rng);
        const variables = {
          ...baselineObject(
            target.fields.filter((f) => f.shape.kind !== 'upload'),
            ctx,
          ),
          ...Object.fromEntries(target.uploadArgs.map((a) => [a, null])),
        };
        const boundary = `----fuzz${i}`;
        const body = multipartBody(boundary, [
          { name: 'operations', value: JSON.stringify({ query: target.document, operationName: 'Fuzz', variables }) },
          { name: 'map', value: JSON.stringify({ 0: [`variables.${target.uploadArgs[0]}`] }) },
          { name: '0', value: variant.bytes, filename: variant.filename },
        ]);
        const answer = await send(`${env.baseUrl}/graphql`, {
          method: 'POST',
          headers: { ...graphqlHeaders(env), 'content-type': `multipart/form-data; boundary=${boundary}` },
          body,
        });
        return graphqlOutcome(env, target, `${variant.cls}: ${variant.note}`, answer);
      }),
    );
  }
  return cases;
}

/**
 * An input whose `content` is itself a document in a `format` (a transcript import: VTT, SRT or
 * JSON): the document's own fields (speaker, text, timestamps, occurred_at) reach the database too.
 */
function embeddedDocumentCases(env: FuzzEnv, target: GraphqlTarget, make: (cls: string, param: string, run: (rng: Rng) => Promise<Outcome>) => Case): Case[] {
  const input = target.fields.find(
    (f) =>
      f.shape.kind === 'object' &&
      f.shape.fields.some((g) => g.name === 'content') &&
      f.shape.fields.some((g) => g.name === 'format' && g.shape.kind === 'enum' && g.shape.values.includes('JSON')),
  );
  if (!input) return [];
  const json = (fields: string, sentence: string) => `{"title":"Fuzz JSON","occurred_at":"2026-03-02T09:30:00Z",${fields}"sentences":[${sentence}]}`;
  const ok = '{"speaker":"Ana","text":"Hello","start":0,"end":1}';
  const documents: [string, string, 'JSON' | 'VTT' | 'SRT'][] = [
    ['out-of-range-date', json('', ok).replace('2026-03-02T09:30:00Z', '+275760-09-13T00:00:00Z'), 'JSON'],
    ['out-of-range-date', json('', ok).replace('2026-03-02T09:30:00Z', '275760-09-13T00:00:00Z'), 'JSON'],
    ['out-of-range-date', json('', ok).replace('2026-03-02T09:30:00Z', '-271821-04-20T00:00:00Z'), 'JSON'],
    ['out-of-range-date', json('', ok).replace('2026-03-02T09:30:00Z', '10000-01-01T00:00:00+14:00'), 'JSON'],
    ['nul-byte', json('', '{"speaker":"A\\u0000na","text":"Hello","start":0,"end":1}'), 'JSON'],
    ['nul-byte', json('', '{"speaker":"Ana","text":"He\\u0000llo","start":0,"end":1}'), 'JSON'],
    ['nul-byte', json('"participants":["A\\u0000na"],', ok).replace('Fuzz JSON', 'Fuzz\\u0000JSON'), 'JSON'],
    ['nul-byte', 'WEBVTT - Fuzz\u0000\n\n00:00:00.000 --> 00:00:01.000\n<v An\u0000a>Hel\u0000lo</v>\n', 'VTT'],
    ['nul-byte', '1\n00:00:00,000 --> 00:00:01,000\nAna: Hel\u0000lo\n', 'SRT'],
    ['lone-surrogate', json('', '{"speaker":"Ana\\ud800","text":"Hello\\udc00","start":0,"end":1}'), 'JSON'],
    ['huge-number', json('', '{"speaker":"Ana","text":"Hello","start":1e309,"end":1e310}'), 'JSON'],
    ['huge-number', json('', '{"speaker":"Ana","text":"Hello","start":9007199254740993,"end":9007199254740994}'), 'JSON'],
    ['huge-number', json('', '{"speaker":"Ana","text":"Hello","start":-1,"end":-0.5}'), 'JSON'],
    ['huge-number', 'WEBVTT\n\n99999999:00:00.000 --> 99999999:00:01.000\n<v Ana>Hello</v>\n', 'VTT'],
    ['huge-number', '1\n9999999999:00:00,000 --> 9999999999:00:01,000\nAna: Hello\n', 'SRT'],
    ['wrong-type', json('"participants":"Ana",', '{"speaker":5,"text":["x"],"start":"0","end":{}}'), 'JSON'],
    ['wrong-type', '[1,2,3]', 'JSON'],
    ['deep-nesting', json('"extra":' + deepArray().text + ',', ok), 'JSON'],
    ['long-string', json('', `{"speaker":"${'S'.repeat(100_000)}","text":"${'t'.repeat(400_000)}","start":0,"end":1}`), 'JSON'],
  ];
  return documents.map(([cls, content, format], i) =>
    make(`document-${cls}`, `${input.name}.content#${i}`, async (rng) => {
      const ctx = ctxFor(env, target.field, false, rng);
      const args = withValueAt(
        withValueAt(baselineObject(target.fields, ctx), [input.name, 'content'], content, target.fields, ctx),
        [input.name, 'format'],
        format,
        target.fields,
        ctx,
      );
      return graphqlOutcome(env, target, `${format} content ${excerpt(JSON.stringify(content), 110)}`, await sendGraphql(env, target, args, rng));
    }),
  );
}

// ---------------------------------------------------------------------------------------------
// JSON-RPC (MCP)

export const MODERN_META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

/** One JSON-RPC request, in either protocol era (the PRNG decides), body given as JSON text pieces. */
export function sendMcp(
  env: FuzzEnv,
  method: string,
  paramsText: string,
  rng: Rng,
  options: { toolName?: string; idText?: string; headers?: Record<string, string>; body?: string | Buffer; timeoutMs?: number } = {},
): Promise<Answer> {
  const modern = rng() < 0.5;
  const params = modern ? paramsText.replace(/^\{/, `{"_meta":${JSON.stringify(MODERN_META)}${paramsText === '{}' ? '' : ','}`) : paramsText;
  const body =
    options.body ?? `{"jsonrpc":"2.0","id":${options.idText ?? String(Math.floor(rng() * 1e6))},"method":${JSON.stringify(method)},"params":${params}}`;
  const headers: Record<string, string> = {
    authorization: `Bearer ${env.accessToken}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...(modern ? { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...(options.toolName ? { 'mcp-name': options.toolName } : {}) } : {}),
    ...options.headers,
  };
  return send(`${env.baseUrl}/api/service`, { method: 'POST', headers, body, timeoutMs: options.timeoutMs });
}

/** A tool that waits for a summary generation may take long on a loaded machine: that is not a hang. */
export const LONG_RUNNING_TIMEOUT_MS = 120_000;

export function mcpOutcome(target: string, input: string, answer: Answer, write: boolean): Outcome {
  let structured: { id?: unknown } | undefined;
  if (write) {
    const message = jsonRpcMessages(answer)[0] as { result?: { structuredContent?: { id?: unknown }; isError?: boolean } } | undefined;
    if (!message?.result?.isError) structured = message?.result?.structuredContent;
  }
  return { input, answer, problem: checkMcp(answer), ids: write ? successIds(answer.status, target, [structured?.id]) : undefined };
}

export function mcpCases(env: FuzzEnv, target: McpTarget): Case[] {
  const cases: Case[] = [];
  const make = (cls: string, param: string, run: (rng: Rng) => Promise<Outcome>): Case => ({
    target: target.name,
    front: 'mcp',
    cls,
    param,
    kind: target.kind,
    run,
  });
  const call = (rng: Rng, argumentsText: string) =>
    sendMcp(env, 'tools/call', `{"name":${JSON.stringify(target.tool)},"arguments":${argumentsText}}`, rng, {
      toolName: target.tool,
      timeoutMs: target.longRunning ? LONG_RUNNING_TIMEOUT_MS : undefined,
    });
  for (const param of flattenParams(target.fields)) {
    const name = String(param.path[param.path.length - 1]);
    for (const cls of applicable(param, 'json')) {
      cases.push(
        make(cls.name, paramLabel(param.path), async (rng) => {
          const ctx = ctxFor(env, target.tool, false, rng);
          let args = baselineObject(target.fields, ctx);
          const base = valueAt(args, param.path) ?? baseline(name, param.shape, ctx);
          const bad = cls.make(param.shape, name, base, rng, 'json')!;
          args = withValueAt(args, param.path, bad.json, target.fields, ctx);
          return mcpOutcome(target.tool, `${paramLabel(param.path)}=${bad.note}`, await call(rng, toJsonText(args)), target.kind === 'write');
        }),
      );
    }
  }
  cases.push(
    make('arguments-not-object', '*', async (rng) => {
      const args = pick(rng, ['[]', '"x"', '5', 'null', 'true', '[{}]']);
      return mcpOutcome(target.tool, `arguments ${args}`, await call(rng, args), false);
    }),
    make('deep-nesting', '*', async (rng) => {
      const deep = pick(rng, [deepArray(), deepObject()]);
      const args = pick(rng, [deep.text, `{"zzz":${deep.text}}`]);
      return mcpOutcome(target.tool, `arguments nested 5000 deep (${args.slice(0, 10)}…)`, await call(rng, args), false);
    }),
    make('unknown-argument', '*', async (rng) => {
      const args = {
        ...baselineObject(target.fields, ctxFor(env, target.tool, false, rng)),
        [pick(rng, ['zzz', '__proto__', 'constructor', ''])]: pick(rng, [1, { isAdmin: true }, null]),
      };
      return mcpOutcome(target.tool, `arguments ${excerpt(toJsonText(args), 80)}`, await call(rng, toJsonText(args)), false);
    }),
  );
  return cases;
}

// ---------------------------------------------------------------------------------------------
// Whole requests: each endpoint's framing, the sign-in form, credentials, raw multipart

/** A case about a whole request; `label` (its input) also keys its PRNG. */
function plainCase(target: string, front: Front, cls: string, label: string, run: (rng: Rng) => Promise<Outcome>): Case {
  return { target, front, cls, param: label, kind: 'write', run };
}

export function graphqlEndpointCases(env: FuzzEnv): Case[] {
  const target = 'GraphQL /graphql';
  const headers = graphqlHeaders(env);
  const get = (query: string) => send(`${env.baseUrl}/graphql?${query}`, { headers });
  const post = (body: string | Buffer, extra: Record<string, string> = {}) =>
    send(`${env.baseUrl}/graphql`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json', ...extra }, body });
  const outcome = (input: string, answer: Answer): Outcome => ({ input, answer, problem: checkGraphql(answer, env.codes) });
  const health = '{health{status}}';
  const c = (cls: string, inputs: { note: string; send: () => Promise<Answer> }[]) =>
    inputs.map((input) => plainCase(target, 'graphql', cls, input.note, async () => outcome(input.note, await input.send())));
  const cases: Case[] = [];
  for (const [query, note] of [
    [`query=${health}&variables=%7B`, 'GET ?query={health{status}}&variables=%7B'],
    [`query=${health}&variables=%5B`, 'GET ?query=…&variables=%5B'],
    [`query=${health}&extensions=%7B`, 'GET ?query=…&extensions=%7B'],
    [`query=${health}&variables=null`, 'GET ?query=…&variables=null'],
    [`query=${health}&variables=%22x%22`, 'GET ?query=…&variables="x"'],
    [`query=${health}&variables=1e309`, 'GET ?query=…&variables=1e309'],
    ['query=%E0%A4%A', 'GET ?query=%E0%A4%A'],
    [`query=%7Bhealth%7Bstatus%7D%7D%00`, 'GET ?query={health{status}}%00'],
    [`query=${health}&query=${health}`, 'GET query given twice'],
    [`query=${health}&operationName=%00`, 'GET operationName %00'],
    [`query=${encodeURIComponent('{ stickies(search: "a\\u0000b") { edges { node { id } } } }')}`, 'GET literal "a\\u0000b" in search'],
    [`query=${encodeURIComponent('{ selfTestHistory(limit: 99999999999) { id } }')}`, 'GET Int literal 99999999999'],
    [`query=${encodeURIComponent('mutation { triggerSelfTest { id } }')}`, 'GET with a mutation'],
    ['', 'GET without a query'],
  ]) {
    cases.push(plainCase(target, 'graphql', 'get-request', note, async () => outcome(note, await get(query))));
  }
  const bodies: [string, string][] = [
    ['{"query": "{ health { status } }"', 'truncated JSON'],
    ['', 'empty body'],
    ['[]', 'empty batch'],
    ['[1,2]', 'batch of numbers'],
    [`[${Array.from({ length: 200 }, () => `{"query":"${health}"}`).join(',')}]`, 'batch of 200 operations'],
    ['"x"', 'a JSON string'],
    ['null', 'null'],
    ['{"query": 5}', 'query a number'],
    ['{"query": null}', 'query null'],
    ['{"query": ["{health{status}}"]}', 'query an array'],
    [`{"query":"${health}","variables":"{}"}`, 'variables a string'],
    [`{"query":"${health}","variables":[]}`, 'variables an array'],
    [`{"query":"${health}","variables":5}`, 'variables a number'],
    [`{"query":"query Q($d: Boolean) { health(detailed: $d) { status } }","variables":[{"d":true}]}`, 'variables an array of objects'],
    [`{"query":"${health}","operationName":5}`, 'operationName a number'],
    [`{"query":"${health}","operationName":"\\u0000"}`, 'operationName NUL'],
    [`{"query":"${health}","extensions":"x"}`, 'extensions a string'],
    [`{"query":"${health}","extensions":{"persistedQuery":{"version":1,"sha256Hash":"\\u0000"}}}`, 'persisted query hash NUL'],
    [`{"query":"{health{status}}\\u0000"}`, 'query ending in NUL'],
    [`{"query":"{ stickies(search: \\"a\\\\u0000b\\") { edges { node { id } } } }"}`, 'literal "a\\u0000b" in search'],
    [`{"query":"{ stickies(first: 1e309) { edges { node { id } } } }"}`, 'Int literal 1e309'],
    [`{"query":"{ selfTestHistory(limit: 9007199254740993) { id } }"}`, 'Int literal 2^53+1'],
    [`{"query":"{ newsDigest(week: \\"275760-W01\\") { week } }"}`, 'week 275760-W01 literal'],
    [`{"query":"{ dietzDailyReturns(entityName: \\"${env.entityName}\\", startDate: \\"2025-01-01\\", endDate: 5) { entityName } }"}`, 'Date literal a number'],
    [`{"query":${JSON.stringify('{' + 'a:health{status} '.repeat(5000) + '}')}}`, '5000 aliases'],
    [`{"query":${JSON.stringify('{'.repeat(3000) + '}'.repeat(3000))}}`, 'selection nested 3000 deep'],
    [`{"query":${JSON.stringify('query Q' + '($v:String)'.repeat(1) + ' { health { status } } fragment F on Query { ...F }')}}`, 'fragment cycle'],
    [`{"query":${JSON.stringify('#'.repeat(900_000) + '\n' + health)}}`, '900 KB comment'],
    [`{"query":"${health}","variables":${deepObject().text}}`, 'variables nested 5000 deep'],
    [deepArray().text, 'body nested 5000 deep'],
  ];
  for (const [body, note] of bodies) cases.push(plainCase(target, 'graphql', 'post-body', note, async () => outcome(note, await post(body))));
  cases.push(
    ...c('post-encoding', [
      {
        note: 'application/json; charset=utf-16',
        send: () => post(Buffer.from(`{"query":"${health}"}`, 'utf16le'), { 'content-type': 'application/json; charset=utf-16' }),
      },
      { note: 'Content-Encoding gzip, not gzip', send: () => post('not gzip', { 'content-encoding': 'gzip' }) },
      { note: 'Content-Encoding deflate, truncated', send: () => post(gzipSync(`{"query":"${health}"}`).subarray(0, 10), { 'content-encoding': 'deflate' }) },
      { note: 'Content-Encoding x-unknown', send: () => post(`{"query":"${health}"}`, { 'content-encoding': 'x-unknown' }) },
      { note: 'Content-Type text/plain', send: () => post(`{"query":"${health}"}`, { 'content-type': 'text/plain' }) },
      { note: 'Content-Type application/x-www-form-urlencoded', send: () => post(`query=${health}`, { 'content-type': 'application/x-www-form-urlencoded' }) },
      { note: 'Content-Type application/graphql', send: () => post(health, { 'content-type': 'application/graphql' }) },
      { note: 'multipart without boundary', send: () => post('x', { 'content-type': 'multipart/form-data' }) },
    ]),
  );
  cases.push(...multipartFramingCases(env, 'graphql'));
  return cases;
}

/** Malformed GraphQL multipart requests (operations/map) and the raw cases shared with the REST upload. */
function multipartFramingCases(env: FuzzEnv, front: 'graphql' | 'rest'): Case[] {
  const path = front === 'graphql' ? '/graphql' : '/api/storage/upload';
  const target = front === 'graphql' ? 'GraphQL /graphql (multipart)' : 'REST POST /api/storage/upload (multipart framing)';
  const headers = front === 'graphql' ? graphqlHeaders(env) : { 'x-api-key': env.apiKey };
  const check = (answer: Answer) => (front === 'graphql' ? checkGraphql(answer, env.codes) : checkRest(answer));
  const mutation = 'mutation Up($file: Upload!, $orgId: UUID!) { uploadFile(file: $file, orgId: $orgId) { id } }';
  const operations = JSON.stringify({ query: mutation, variables: { file: null, orgId: env.ids.org } });
  const formParts = (file: Part): Part[] =>
    front === 'graphql'
      ? [
          { name: 'operations', value: operations },
          { name: 'map', value: '{"0":["variables.file"]}' },
          { ...file, name: '0' },
        ]
      : [
          { name: 'org_id', value: env.ids.org ?? '' },
          { ...file, name: 'file' },
        ];
  const cases: Case[] = [];
  const add = (cls: string, run: (rng: Rng) => Promise<Outcome>, label = '*') => cases.push(plainCase(target, front, cls, label, run));

  if (front === 'graphql') {
    const variants: [string, Part[]][] = [
      [
        'operations not JSON',
        [
          { name: 'operations', value: '{"query":' },
          { name: 'map', value: '{}' },
        ],
      ],
      [
        'operations NUL',
        [
          { name: 'operations', value: '\u0000' },
          { name: 'map', value: '{}' },
        ],
      ],
      [
        'operations nested 5000 deep',
        [
          { name: 'operations', value: deepArray().text },
          { name: 'map', value: '{}' },
        ],
      ],
      [
        'map not JSON',
        [
          { name: 'operations', value: operations },
          { name: 'map', value: '{"0":' },
          { name: '0', value: CSV, filename: 'a.csv' },
        ],
      ],
      [
        'map to a missing path',
        [
          { name: 'operations', value: operations },
          { name: 'map', value: '{"0":["variables.nope.deeper"]}' },
          { name: '0', value: CSV, filename: 'a.csv' },
        ],
      ],
      [
        'map to __proto__',
        [
          { name: 'operations', value: operations },
          { name: 'map', value: '{"0":["__proto__.polluted"]}' },
          { name: '0', value: CSV, filename: 'a.csv' },
        ],
      ],
      [
        'map an array',
        [
          { name: 'operations', value: operations },
          { name: 'map', value: '[1]' },
          { name: '0', value: CSV, filename: 'a.csv' },
        ],
      ],
      [
        'map without its file',
        [
          { name: 'operations', value: operations },
          { name: 'map', value: '{"0":["variables.file"]}' },
        ],
      ],
      [
        'file before operations',
        [
          { name: '0', value: CSV, filename: 'a.csv' },
          { name: 'operations', value: operations },
          { name: 'map', value: '{"0":["variables.file"]}' },
        ],
      ],
      [
        'batched operations',
        [
          { name: 'operations', value: `[${operations},${operations}]` },
          { name: 'map', value: '{"0":["0.variables.file"]}' },
          { name: '0', value: CSV, filename: 'a.csv' },
        ],
      ],
    ];
    for (const [note, parts] of variants) {
      add(
        'multipart-fields',
        async () => {
          const boundary = '----fuzzframing';
          const answer = await send(`${env.baseUrl}${path}`, {
            method: 'POST',
            headers: { ...headers, 'content-type': `multipart/form-data; boundary=${boundary}` },
            body: multipartBody(boundary, parts),
          });
          return { input: note, answer, problem: check(answer) };
        },
        note,
      );
    }
  }
  // The body ends (properly, for HTTP) in the middle of the file: the multipart form is incomplete.
  add('multipart-cut-off-mid-file', async (rng) => {
    const boundary = '----fuzzcut';
    const whole = multipartBody(boundary, formParts({ name: 'file', value: CSV.repeat(50), filename: 'cut.csv' }), false);
    const cut = whole.subarray(0, whole.length - Math.floor(rng() * 200) - 30);
    const answer = await send(`${env.baseUrl}${path}`, {
      method: 'POST',
      headers: { ...headers, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: cut,
      timeoutMs: 10_000,
    });
    return { input: `${cut.length} bytes, no closing boundary`, answer, problem: check(answer) };
  });
  // The client declares more than it sends and then half-closes its socket.
  add('multipart-socket-closed-mid-file', async () => {
    const boundary = '----fuzzsocket';
    const whole = multipartBody(boundary, formParts({ name: 'file', value: CSV.repeat(50), filename: 'cut.csv' }), false);
    const answer = await rawHttp(env.baseUrl, {
      method: 'POST',
      path,
      headers: { ...headers, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(whole.length + 5000), connection: 'close' },
      body: [whole],
      end: true,
      timeoutMs: 10_000,
    });
    return {
      input: `Content-Length ${whole.length + 5000}, ${whole.length} bytes sent, then the socket half-closed`,
      answer,
      problem: checkPlain(answer, true),
    };
  });
  // A Content-Length no upload limit allows: refused up front, not after reading (or waiting for) the body.
  add('multipart-content-length-huge', async () => {
    const boundary = '----fuzzhuge';
    const start = multipartBody(boundary, formParts({ name: 'file', value: CSV, filename: 'huge.csv' }), false);
    const answer = await rawHttp(env.baseUrl, {
      method: 'POST',
      path,
      headers: { ...headers, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': '99999999999', connection: 'close' },
      body: [start],
      end: false,
      timeoutMs: 10_000,
    });
    return { input: 'Content-Length: 99999999999 (first bytes sent, then nothing)', answer, problem: check(answer) };
  });
  add('multipart-control-char-filename', async (rng) => {
    const name = pick(rng, ['a\u0001b.csv', 'a\u0000b.csv', '\u001b[2Jx.csv', 'a\u007fb.csv']);
    const boundary = '----fuzzname';
    const answer = await send(`${env.baseUrl}${path}`, {
      method: 'POST',
      headers: { ...headers, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: multipartBody(boundary, formParts({ name: 'file', value: CSV, filename: name })),
    });
    return { input: `filename ${JSON.stringify(name)}`, answer, problem: check(answer) };
  });
  add('multipart-bad-boundary', async (rng) => {
    const [type, body] = pick(rng, [
      ['multipart/form-data', multipartBody('x', formParts({ name: 'file', value: CSV, filename: 'a.csv' }))],
      ['multipart/form-data; boundary=other', multipartBody('x', formParts({ name: 'file', value: CSV, filename: 'a.csv' }))],
      ['multipart/form-data; boundary=' + 'b'.repeat(200), multipartBody('b'.repeat(200), formParts({ name: 'file', value: CSV, filename: 'a.csv' }))],
      ['multipart/form-data; boundary=x', Buffer.from('--x\r\nContent-Disposition: form-data\r\n\r\nno name\r\n--x--\r\n')],
      [
        'multipart/form-data; boundary=x',
        Buffer.from('--x\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n' + 'X-Header: y\r\n'.repeat(3000) + '\r\n\r\n--x--\r\n'),
      ],
    ] as [string, Buffer][]);
    const answer = await send(`${env.baseUrl}${path}`, { method: 'POST', headers: { ...headers, 'content-type': type }, body });
    return { input: `${excerpt(type, 60)} with ${body.length} bytes`, answer, problem: check(answer) };
  });
  return cases;
}

export function restFramingCases(env: FuzzEnv, targets: RestTarget[]): Case[] {
  const cases = multipartFramingCases(env, 'rest');
  // Event streams resume from the Last-Event-ID header: odd ones, following a real run.
  for (const target of targets.filter((t) => t.route.stream)) {
    const follow = target.route.stream!.followParam;
    for (const lastEventId of ['1e309', '-1', '99999999999999999999', '9007199254740993', 'abc', ' ', '0x10', '1.5', '%E0%A4%A', 'x'.repeat(8000)]) {
      cases.push(
        plainCase(target.name, 'rest', 'odd-last-event-id', lastEventId, async () => {
          const answer = await send(`${env.baseUrl}${target.route.path}?${follow}=${env.ids.run}`, {
            headers: { 'x-api-key': env.apiKey, 'last-event-id': lastEventId },
          });
          return { input: `Last-Event-ID: ${excerpt(JSON.stringify(lastEventId), 40)}`, answer, problem: checkRest(answer) };
        }),
      );
    }
  }
  const target = 'REST (paths)';
  const paths = [
    '/api/%E0%A4%A',
    '/%E0%A4%A',
    '/assets/%E0%A4%A',
    '/graphql/%E0%A4%A',
    '/api/service/%E0%A4%A',
    '/login/%E0%A4%A',
    '/api/stickies/%00',
    '/api/stickies/..%2F..%2Fhealth',
    '/api/stickies/%2e%2e',
    '/api/pm/tasks/%25',
    `/api/links/${'a'.repeat(7000)}`,
    '/health/%E0%A4%A',
    '/api/stickies/%E0%A4%A/versions?limit=%E0%A4%A',
  ];
  for (const path of paths) {
    for (const accept of ['application/json', 'text/html']) {
      cases.push(
        plainCase(target, 'rest', 'malformed-path', `${path} ${accept}`, async () => {
          const answer = await send(`${env.baseUrl}${path}`, { headers: { 'x-api-key': env.apiKey, accept } });
          // An API path answers the documented JSON error; a page path may answer an HTML page.
          // (/graphql/... and /api/service/... belong to graphql-yoga and the MCP handler: not REST bodies.)
          const api = /^\/(api|health|status|test-scheduler)(\/|$|%)/.test(path) && !path.startsWith('/api/service');
          return {
            input: `GET ${excerpt(path, 60)} (Accept ${accept})`,
            answer,
            problem: api && accept === 'application/json' ? checkRest(answer) : checkPlain(answer, false),
          };
        }),
      );
    }
  }
  return cases;
}

export function mcpEndpointCases(env: FuzzEnv): Case[] {
  const target = 'MCP /api/service';
  const cases: Case[] = [];
  const add = (cls: string, note: string, run: (rng: Rng) => Promise<Answer>) =>
    cases.push(
      plainCase(target, 'mcp', cls, note, async (rng) => {
        const answer = await run(rng);
        return { input: note, answer, problem: checkMcp(answer) };
      }),
    );
  const deepA = deepArray().text;
  const deepO = deepObject().text;
  add('deep-params', 'tools/call params.arguments nested 5000 deep', (rng) =>
    sendMcp(env, 'tools/call', `{"name":"list_stickies","arguments":${deepO}}`, rng, { toolName: 'list_stickies' }),
  );
  add('deep-params', 'tools/list params nested 5000 deep', (rng) => sendMcp(env, 'tools/list', `{"cursor":${deepA}}`, rng));
  add('deep-params', 'ping params nested 5000 deep', (rng) => sendMcp(env, 'ping', `{"x":${deepA}}`, rng));
  add('deep-params', 'initialize params nested 5000 deep', (rng) =>
    sendMcp(env, 'initialize', `{"protocolVersion":"2025-11-25","capabilities":${deepO},"clientInfo":{"name":"f","version":"1"}}`, rng),
  );
  add('deep-params', 'tools/call _meta nested 5000 deep', (rng) =>
    sendMcp(env, 'tools/call', `{"name":"list_stickies","arguments":{},"_meta":{"progressToken":${deepA}}}`, rng, { toolName: 'list_stickies' }),
  );
  add('deep-params', 'params a 5000-deep array', (rng) => sendMcp(env, 'tools/call', deepA, rng, { toolName: 'list_stickies' }));
  add('deep-params', 'body a 5000-deep array', (rng) => sendMcp(env, 'ping', '{}', rng, { body: deepA }));
  add('deep-params', 'id nested 5000 deep', (rng) => sendMcp(env, 'ping', '{}', rng, { idText: deepO }));
  for (const [note, method] of [
    ['method with NUL', 'tools/call\u0000'],
    ['method 100,000 chars', 'x'.repeat(100_000)],
    ['method __proto__', '__proto__'],
    ['method constructor', 'constructor'],
    ['method toString', 'toString'],
  ]) {
    add('odd-method', note, (rng) => sendMcp(env, method, '{}', rng, { headers: { 'mcp-method': 'x' } }));
  }
  for (const [note, id] of [
    ['id 1e309', '1e309'],
    ['id an object', '{"a":1}'],
    ['id an array', '[1]'],
    ['id true', 'true'],
    ['id 2^53+1', '9007199254740993'],
    ['id a 500 KB string', JSON.stringify('i'.repeat(500_000))],
    ['id with NUL', '"a\\u0000b"'],
  ]) {
    add('odd-id', note, (rng) => sendMcp(env, 'tools/list', '{}', rng, { idText: id }));
  }
  for (const [note, params] of [
    ['tool name with NUL', '{"name":"list_stickies\\u0000","arguments":{}}'],
    ['tool name a number', '{"name":5,"arguments":{}}'],
    ['tool name null', '{"name":null}'],
    ['tool name 100,000 chars', `{"name":"${'n'.repeat(100_000)}"}`],
    ['tool name __proto__', '{"name":"__proto__","arguments":{}}'],
    ['tool name constructor', '{"name":"constructor","arguments":{}}'],
    ['progressToken an object', '{"name":"list_stickies","arguments":{},"_meta":{"progressToken":{"a":1}}}'],
    ['progressToken 1e309', '{"name":"list_stickies","arguments":{},"_meta":{"progressToken":1e309}}'],
    ['_meta a string', '{"name":"list_stickies","arguments":{},"_meta":"x"}'],
  ]) {
    add('odd-tool-call', note, (rng) => sendMcp(env, 'tools/call', params, rng));
  }
  for (const cursor of [
    '\\u0000',
    '%%%',
    Buffer.from('1e309').toString('base64url'),
    Buffer.from('-1').toString('base64url'),
    Buffer.from('NaN').toString('base64url'),
    Buffer.from('9007199254740993').toString('base64url'),
    'x'.repeat(100_000),
    '\\ud800',
  ]) {
    add('odd-cursor', `tools/list cursor ${excerpt(JSON.stringify(cursor), 40)}`, (rng) => sendMcp(env, 'tools/list', `{"cursor":"${cursor}"}`, rng));
  }
  add('odd-cursor', 'tools/list cursor a number', (rng) => sendMcp(env, 'tools/list', '{"cursor":5}', rng));
  for (const [note, body] of [
    ['batch of junk', '[1,"x",null,{},[]]'],
    ['batch of 1,000 pings', `[${Array.from({ length: 1000 }, (_, i) => `{"jsonrpc":"2.0","id":${i},"method":"ping"}`).join(',')}]`],
    ['jsonrpc "2.0\\u0000"', '{"jsonrpc":"2.0\\u0000","id":1,"method":"ping"}'],
    ['jsonrpc 2 (a number)', '{"jsonrpc":2,"id":1,"method":"ping"}'],
    [
      'initialize with protocolVersion NUL',
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"\\u0000","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}',
    ],
    [
      'initialize with protocolVersion an object',
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":{},"capabilities":[],"clientInfo":5}}',
    ],
    ['lone surrogate in the body', '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_stickies","arguments":{"search":"\\ud800"}}}'],
    ['duplicate keys', '{"jsonrpc":"2.0","id":1,"id":{},"method":"ping","method":"tools/list"}'],
  ]) {
    add('odd-message', note, (rng) => sendMcp(env, 'ping', '{}', rng, { body }));
  }
  add('post-encoding', 'application/json; charset=utf-16', (rng) =>
    sendMcp(env, 'ping', '{}', rng, {
      body: Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping"}', 'utf16le'),
      headers: { 'content-type': 'application/json; charset=utf-16' },
    }),
  );
  add('post-encoding', 'Content-Encoding gzip, not gzip', (rng) =>
    sendMcp(env, 'ping', '{}', rng, { body: 'not gzip', headers: { 'content-encoding': 'gzip' } }),
  );
  add('post-encoding', 'Content-Encoding br, truncated', (rng) =>
    sendMcp(env, 'ping', '{}', rng, { body: gzipSync('{"jsonrpc":"2.0","id":1,"method":"ping"}').subarray(0, 8), headers: { 'content-encoding': 'br' } }),
  );
  add('post-encoding', 'invalid UTF-8 bytes', (rng) =>
    sendMcp(env, 'ping', '{}', rng, {
      body: Buffer.concat([
        Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_stickies","arguments":{"search":"'),
        Buffer.from([0xc0, 0xaf, 0xed, 0xa0, 0x80, 0xff]),
        Buffer.from('"}}}'),
      ]),
    }),
  );
  for (const [note, value] of [
    ['MCP-Protocol-Version 1,000 chars', 'v'.repeat(1000)],
    ['MCP-Protocol-Version latin-1 bytes', '2026-07-28\u00e9'],
    ['MCP-Protocol-Version a list', '2026-07-28, 2025-11-25'],
  ]) {
    add('odd-headers', note, (rng) => sendMcp(env, 'tools/list', '{}', rng, { headers: { 'mcp-protocol-version': value, 'mcp-method': 'tools/list' } }));
  }
  add('odd-headers', 'Mcp-Name latin-1 bytes', (rng) =>
    sendMcp(env, 'tools/call', '{"name":"list_stickies","arguments":{}}', rng, {
      headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'list_stickies\u00ff' },
    }),
  );
  return cases;
}

export function loginCases(env: FuzzEnv, email: string): Case[] {
  const target = 'POST /login';
  const cases: Case[] = [];
  const post = (body: string | Buffer, headers: Record<string, string> = {}) =>
    send(`${env.baseUrl}/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body });
  const add = (cls: string, note: string, run: () => Promise<Answer>) =>
    cases.push(
      plainCase(target, 'login', cls, note, async () => {
        const answer = await run();
        return { input: note, answer, problem: checkPlain(answer, false) };
      }),
    );
  const form = (email: string, password = 'x', extra = '') => `email=${email}&password=${password}${extra}`;
  const e = encodeURIComponent(email);
  for (const [cls, note, body] of [
    ['nul-byte', 'email "a\\u0000b@x"', form('a%00b%40x')],
    ['nul-byte', 'email with NUL after a real one', form(`${e}%00`)],
    ['nul-byte', 'password with NUL', form(e, 'pass%00word')],
    ['control-chars', 'email with \\u0001\\u001b', form('a%01%1Bb%40x')],
    ['lone-surrogate', 'email with CESU-8 surrogate bytes', form('a%ED%A0%80%40x')],
    ['malformed-percent-encoding', 'email=%E0%A4%A', form('%E0%A4%A')],
    ['malformed-percent-encoding', 'password=%', form(e, '%')],
    ['like-metachars', 'email "%"', form('%25')],
    ['like-metachars', 'email "\\\\"', form('%5C')],
    ['long-string', 'email of 15,000 chars', form('a'.repeat(15_000))],
    ['long-string', 'password of 15,000 chars', form(e, 'p'.repeat(15_000))],
    ['repeated-param', 'email given twice', form(e, 'x', `&email=${e}`)],
    ['repeated-param', 'password given twice', form(e, 'x', '&password=y')],
    ['wrong-type', 'email[a]=b', 'email[a]=b&password=x'],
    ['null', 'no fields', ''],
    ['odd-next', 'next with NUL', form(e, 'x', '&next=%2F%00')],
    ['odd-next', 'next %E0%A4%A', form(e, 'x', '&next=%E0%A4%A')],
    ['odd-next', 'next of 8,000 chars', form(e, 'x', `&next=%2F${'n'.repeat(8000)}`)],
    ['form-over-16kb', 'a 20 KB form', form(e, 'x', `&pad=${'z'.repeat(20_000)}`)],
    ['form-over-16kb', 'a 1 MB form', form(e, 'x', `&pad=${'z'.repeat(1_000_000)}`)],
    ['form-parameters', '2,000 fields', form(e, 'x', Array.from({ length: 2000 }, (_, i) => `&f${i}=1`).join(''))],
  ] as [string, string, string][]) {
    add(cls, note, () => post(body));
  }
  add('unsupported-charset', 'charset=utf-16', () =>
    post(Buffer.from(form(e), 'utf16le'), { 'content-type': 'application/x-www-form-urlencoded; charset=utf-16' }),
  );
  add('unsupported-charset', 'charset=x-unknown', () => post(form(e), { 'content-type': 'application/x-www-form-urlencoded; charset=x-unknown' }));
  add('broken-compression', 'Content-Encoding gzip, not gzip', () => post('not gzip at all', { 'content-encoding': 'gzip' }));
  add('broken-compression', 'Content-Encoding gzip, truncated', () => post(gzipSync(form(e)).subarray(0, 15), { 'content-encoding': 'gzip' }));
  add('broken-compression', 'Content-Encoding deflate, garbage', () => post(Buffer.from([1, 2, 3, 4]), { 'content-encoding': 'deflate' }));
  add('broken-compression', 'Content-Encoding x-unknown', () => post(form(e), { 'content-encoding': 'x-unknown' }));
  add('broken-compression', 'a gzip bomb (10 MB of zeros)', () => post(gzipSync(Buffer.alloc(10_000_000)), { 'content-encoding': 'gzip' }));
  add('wrong-content-type', 'a JSON body', () => post(JSON.stringify({ email, password: 'x' }), { 'content-type': 'application/json' }));
  add('wrong-content-type', 'a multipart body', () =>
    post(multipartBody('b', [{ name: 'email', value: email }]), { 'content-type': 'multipart/form-data; boundary=b' }),
  );
  add('wrong-content-type', 'no Content-Type', () => send(`${env.baseUrl}/login`, { method: 'POST', body: form(e) }));
  add('odd-origin', 'Origin null', () => post(form(e), { origin: 'null' }));
  add('odd-origin', 'Origin not a URL', () => post(form(e), { origin: '%E0%A4%A' }));
  add('odd-next', 'GET /login?next=%E0%A4%A', () => send(`${env.baseUrl}/login?next=%E0%A4%A`));
  add('odd-next', 'GET /login?next=%00', () => send(`${env.baseUrl}/login?next=%2F%00`));
  add('odd-next', 'GET /login?next twice', () => send(`${env.baseUrl}/login?next=%2Fa&next=%2Fb`));
  return cases;
}

/** Credentials that are malformed (or signed, with odd claims): every front must refuse them with its documented 401. */
export function credentialCases(env: FuzzEnv): Case[] {
  const cases: Case[] = [];
  const secret = new TextEncoder().encode(env.jwtSecret);
  const jwt = async (claims: Record<string, unknown>, sub?: string) => {
    let token = new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime('1h');
    if (sub !== undefined) token = token.setSubject(sub);
    return token.sign(secret);
  };
  const headerSets: [string, () => Promise<Record<string, string>>][] = [
    ['x-api-key sk_ + 32 non-hex', async () => ({ 'x-api-key': `sk_${'g'.repeat(32)}` })],
    ['x-api-key 8,000 chars', async () => ({ 'x-api-key': 'sk_' + 'a'.repeat(8000) })],
    ['x-api-key with latin-1 bytes', async () => ({ 'x-api-key': 'sk_\u00e9\u00ff' })],
    ['x-api-key twice', async () => ({ 'x-api-key': `${env.apiKey}, ${env.apiKey}` })],
    ['Authorization Bearer junk', async () => ({ authorization: 'Bearer %E0%A4%A' })],
    ['Authorization Bearer with no token', async () => ({ authorization: 'Bearer' })],
    ['Authorization Basic', async () => ({ authorization: 'Basic Og==' })],
    ['Authorization Bearer 8,000 chars', async () => ({ authorization: 'Bearer ' + 'a'.repeat(8000) })],
    ['cookie sso_token=%E0%A4%A', async () => ({ cookie: 'sso_token=%E0%A4%A' })],
    ['cookie sso_token a.b.c', async () => ({ cookie: 'sso_token=a.b.c' })],
    [
      'cookie sso_token alg none',
      async () => ({
        cookie: `sso_token=${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(`{"sub":"${env.userId}"}`).toString('base64url')}.`,
      }),
    ],
    ['cookie sso_token twice', async () => ({ cookie: `sso_token=x; sso_token=y` })],
    ['signed session, sub with NUL', async () => ({ cookie: `sso_token=${await jwt({}, 'a\u0000b')}` })],
    ['signed session, sub not a UUID', async () => ({ cookie: `sso_token=${await jwt({}, "' OR 1=1 --")}` })],
    ['signed session, sub 3,000 chars', async () => ({ cookie: `sso_token=${await jwt({}, 'u'.repeat(3000))}` })],
    ['signed session, email with NUL', async () => ({ cookie: `sso_token=${await jwt({ email: 'a\u0000b@x' })}` })],
    ['signed session, email \\\\%', async () => ({ cookie: `sso_token=${await jwt({ email: '\\%' })}` })],
    ['signed session, email a number', async () => ({ cookie: `sso_token=${await jwt({ email: 5 })}` })],
    ['signed session, email an object', async () => ({ cookie: `sso_token=${await jwt({ email: { $ne: null } })}` })],
    [
      'signed session, exp beyond year 275760',
      async () => ({
        cookie: `sso_token=${await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject(env.userId).setExpirationTime(8.64e15).sign(secret)}`,
      }),
    ],
    [
      'signed session, iat 1e20',
      async () => ({ cookie: `sso_token=${await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject(env.userId).setIssuedAt(1e20).sign(secret)}` }),
    ],
  ];
  for (const [note, headers] of headerSets) {
    cases.push(
      plainCase('credentials (REST GET /api/stickies)', 'rest', 'malformed-credential', note, async () => {
        const answer = await send(`${env.baseUrl}/api/stickies?limit=1`, { headers: await headers() });
        return { input: note, answer, problem: checkRest(answer) };
      }),
      plainCase('credentials (GraphQL me)', 'graphql', 'malformed-credential', note, async () => {
        const answer = await send(`${env.baseUrl}/graphql`, {
          method: 'POST',
          headers: { ...(await headers()), 'content-type': 'application/json' },
          body: '{"query":"{ me { user { id } } }"}',
        });
        return { input: note, answer, problem: checkGraphql(answer, env.codes) };
      }),
      plainCase('credentials (MCP tools/list)', 'mcp', 'malformed-credential', note, async () => {
        const own = await headers();
        const answer = await send(`${env.baseUrl}/api/service`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...own,
            ...(own.authorization ? {} : { authorization: `Bearer ${own['x-api-key'] ?? 'pat_x'}` }),
          },
          body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
        });
        return { input: note, answer, problem: checkMcp(answer) };
      }),
    );
  }
  return cases;
}
