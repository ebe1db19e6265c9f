/**
 * Issue 11: a seeded, time-bounded fuzz of every front with the malformed-input classes the
 * review found (NUL bytes and other control characters, lone surrogates, broken percent-encoding,
 * LIKE metacharacters, huge and non-finite numbers, out-of-range dates, very long strings, wrong
 * JSON types, unknown enum values, invalid UUIDs, nesting 5,000 deep, bodies with broken
 * charsets/compression/multipart framing, lying Content-Lengths, odd credentials).
 *
 * Targets come from the product's own tables: every REST route of `restRoutes` (parameters from
 * its operation's variables), every Query and Mutation field of the schema (arguments and input
 * types), every tool the JSON-RPC endpoint lists (input JSON Schemas). Each case sends one request
 * over real HTTP to one real service and checks that the answer is never a 5xx (nor no answer),
 * that a REST error is `{"error": "<message>"}` with a 4xx, that GraphQL answers carry no
 * INTERNAL_SERVER_ERROR and only codes of the error table, and that JSON-RPC answers carry no
 * -32603 and no tool result saying "Internal error". Reads are fuzzed before writes, and after
 * the writes every list and record is read back: a value stored by a write that breaks a read is
 * reported as a `read-back` failure of that read.
 *
 * Deterministic: FUZZ_SEED (printed) fixes every case's values. Bounded: FUZZ_BUDGET_MS (default
 * 75 s) bounds the per-parameter cases, which run one at a time, round-robin over the targets
 * (so a short budget still reaches every target), the review's classes first, for at most
 * FUZZ_ROUNDS rounds (default 3) with fresh values each. The violations are collected and
 * reported once, deduplicated by (target, class), with the request count per front.
 * To reproduce one: FUZZ_SEED=<seed> FUZZ_ONLY='<target regex>' FUZZ_VERBOSE=1 npx vitest run test/fuzz
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, signInCookie, type TestUser } from '../helpers/fixtures.ts';
import { loadSamples } from '../helpers/returns-data.ts';
import { GRAPHQL_PROTOCOL_CODES, HTTP_STATUS_BY_CODE } from '../../src/errors.ts';
import { checkGraphql, checkMcp, checkRest, excerpt, jsonRpcMessages, send, type Answer, type Front } from './http.ts';
import { graphqlTargets, mcpTargets, restTargets, type GraphqlTarget, type ListedTool, type McpTarget, type RestTarget } from './targets.ts';
import { baselineObject, resourceOf, rngFor, shuffle, VTT_TRANSCRIPT, type Resource, type Rng } from './values.ts';
import {
  credentialCases,
  graphqlCases,
  graphqlEndpointCases,
  loginCases,
  mcpCases,
  mcpEndpointCases,
  restCases,
  restFramingCases,
  sendGraphql,
  sendMcp,
  sendRest,
  sendRestMultipart,
  CSV,
  ctxFor,
  LONG_RUNNING_TIMEOUT_MS,
  type Case,
  type FuzzEnv,
  type Outcome,
} from './cases.ts';

const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : 20_260_511;
const BUDGET_MS = process.env.FUZZ_BUDGET_MS ? Number(process.env.FUZZ_BUDGET_MS) : 75_000;
/** Rounds over every (parameter, class) pair, each with fresh values, while the budget lasts. */
const ROUNDS = process.env.FUZZ_ROUNDS ? Number(process.env.FUZZ_ROUNDS) : 3;
/** Share of the budget for the reads (the writes get the rest). */
const READ_SHARE = 0.4;
/** FUZZ_ONLY=<regex>: only the targets whose name matches (to reproduce one failure quickly); FUZZ_VERBOSE=1 prints every case. */
const ONLY = process.env.FUZZ_ONLY ? new RegExp(process.env.FUZZ_ONLY) : undefined;
const VERBOSE = process.env.FUZZ_VERBOSE === '1';
const JWT_SECRET = 'fuzz-session-secret-0123456789abcdef-0123456789';
const HIGH = '1000000';

let server: TestServer;
let user: TestUser;
let env: FuzzEnv;

beforeAll(async () => {
  const setupStarted = Date.now();
  server = await startTestServer({
    RATE_LIMIT_RETURNS_PER_MINUTE: HIGH,
    RATE_LIMIT_UPLOAD_PER_MINUTE: HIGH,
    RATE_LIMIT_CHAT_PER_MINUTE: HIGH,
    RATE_LIMIT_GENERATE_PER_MINUTE: HIGH,
    LOGIN_ATTEMPTS_PER_MINUTE: HIGH,
    RATE_LIMIT_WEBHOOKS_PER_MINUTE: HIGH,
    WEBHOOK_MAX_ENDPOINTS: '1000',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    SSO_JWT_SECRET: JWT_SECRET,
  });
  const t1 = Date.now();
  user = await createUser(server.services);
  const cookie = await signInCookie(server.url, user);
  const accessToken = (
    await server.services.apiKeys.create({
      userId: user.userId,
      name: 'fuzz',
      scopes: ['read:workspace', 'write:workspace', 'read:returns', 'read:pnl', 'write:upload', 'write:webhooks'],
      kind: 'access_token',
    })
  ).secret;

  // One record of each kind to address by id (and for the reads to serialise), made through the API.
  const create = async (path: string, body: Record<string, unknown>): Promise<string> => {
    const answer = await send(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'x-api-key': user.key, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const id = (JSON.parse(answer.text) as { data?: { id?: string } }).data?.id;
    if (answer.status !== 201 || !id) throw new Error(`POST ${path} answered ${answer.status} ${answer.text.slice(0, 300)}`);
    return id;
  };
  const graphql = async <T>(query: string, variables: Record<string, unknown> = {}): Promise<T> => {
    const answer = await send(`${server.url}/graphql`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
    const body = JSON.parse(answer.text) as { data?: T; errors?: unknown };
    if (!body.data || body.errors) throw new Error(`${query} answered ${answer.status} ${answer.text.slice(0, 300)}`);
    return body.data;
  };
  const folder = await create('/api/links/folders', { name: 'Fuzz folder' });
  // A local port nobody listens on (WEBHOOK_ALLOW_PRIVATE): its test deliveries fail at once, which nothing here waits for.
  const webhookAnswer = await send(`${server.url}/api/webhooks`, {
    method: 'POST',
    headers: { 'x-api-key': user.key, 'content-type': 'application/json' },
    body: JSON.stringify({ url: 'http://127.0.0.1:9/fuzz', events: ['webhook.test'] }),
  });
  const webhook = (JSON.parse(webhookAnswer.text) as { data?: { endpoint?: { id?: string } } }).data?.endpoint?.id;
  if (webhookAnswer.status !== 201 || !webhook) throw new Error(`POST /api/webhooks answered ${webhookAnswer.status} ${webhookAnswer.text.slice(0, 300)}`);
  const sticky = await create('/api/stickies', { content: 'A fuzz sticky about cash flows', tags: ['fuzz', 'cash'] });
  await create('/api/stickies', { content: 'Another fuzz sticky' });
  const link = await create('/api/links', { url: 'https://example.com/fuzz', title: 'Fuzz link', folder_id: folder, tags: ['fuzz'], starred: true });
  const task = await create('/api/pm/tasks', {
    title: 'Fuzz task',
    description: 'fuzz',
    assignee: 'Ana Fuzz',
    due_date: '2026-12-31',
    labels: ['fuzz'],
    priority: 'high',
  });
  await create(`/api/pm/tasks/${task}/comments`, { body: 'A fuzz comment' });
  const news = await create('/api/news', {
    title: 'Fuzz news',
    url: 'https://example.com/news/fuzz',
    source: 'Fuzz Wire',
    summary: 'fuzz',
    body: 'fuzz body',
    tags: ['fuzz'],
  });
  const transcript = await graphql<{ importTranscript: { id: string } }>(
    'mutation I($content: String!) { importTranscript(input: { content: $content, format: VTT }) { id } }',
    { content: VTT_TRANSCRIPT },
  );
  const conversation = await graphql<{ sendChatMessage: { conversation: { id: string } } }>(
    'mutation { sendChatMessage(input: { content: "hello fuzz" }) { conversation { id } } }',
  );
  const run = await graphql<{ startGeneration: { id: string } }>('mutation { startGeneration(input: { days: 7, length: short }) { id } }');
  const t2 = Date.now();
  await loadSamples(server.url, user.key, user.orgId);
  const t3 = Date.now();
  const file = JSON.parse((await send(`${server.url}/api/storage/files?org_id=${user.orgId}&limit=1`, { headers: { 'x-api-key': user.key } })).text) as {
    data: { id: string }[];
  };
  const comparison = JSON.parse((await send(`${server.url}/api/returns/comparison?limit=1`, { headers: { 'x-api-key': user.key } })).text) as {
    data: { account_code: string; entity_name: string }[];
  };

  env = {
    baseUrl: server.url,
    apiKey: user.key,
    cookie,
    accessToken,
    jwtSecret: JWT_SECRET,
    userId: user.userId,
    password: user.password,
    ids: {
      sticky,
      link,
      folder,
      transcript: transcript.importTranscript.id,
      task,
      news,
      file: file.data[0].id,
      org: user.orgId,
      run: run.startGeneration.id,
      conversation: conversation.sendChatMessage.conversation.id,
      webhook,
    },
    entityName: comparison.data[0]?.entity_name ?? 'Harbor Growth Fund LP',
    accountCode: comparison.data[0]?.account_code ?? 'ACC-1001',
    // The error table, and graphql-yoga's own codes for requests it refuses before execution (src/errors.ts maps them to 400).
    codes: new Set([...Object.keys(HTTP_STATUS_BY_CODE), ...Object.keys(GRAPHQL_PROTOCOL_CODES)]),
  };
  console.log(
    `fuzz: service started in ${((t1 - setupStarted) / 1000).toFixed(1)} s, records ${((t2 - t1) / 1000).toFixed(1)} s, sample files ${((t3 - t2) / 1000).toFixed(1)} s, the rest ${((Date.now() - t3) / 1000).toFixed(1)} s`,
  );
}, 180_000);

afterAll(async () => server?.close());

// ---------------------------------------------------------------------------------------------
// Bookkeeping

interface Violation {
  target: string;
  cls: string;
  input: string;
  problem: string;
  count: number;
}

class Ledger {
  readonly requests: Record<Front, number> = { rest: 0, graphql: 0, mcp: 0, login: 0 };
  readonly violations = new Map<string, Violation>();
  readonly baselineRefusals: string[] = [];
  readonly written = new Map<Resource, Set<string>>();
  /** target -> [ms, cases] */
  readonly time = new Map<string, [number, number]>();

  timed(target: string, ms: number): void {
    const [total, n] = this.time.get(target) ?? [0, 0];
    this.time.set(target, [total + ms, n + 1]);
  }

  slowest(n: number): string {
    return [...this.time]
      .sort((a, b) => b[1][0] - a[1][0])
      .slice(0, n)
      .map(([target, [ms, count]]) => `${target} ${(ms / 1000).toFixed(1)} s/${count}`)
      .join('; ');
  }

  record(c: Pick<Case, 'target' | 'front' | 'cls' | 'param'>, outcome: Outcome): void {
    this.requests[c.front] += 1;
    for (const [resource, id] of outcome.ids ?? []) {
      const set = this.written.get(resource) ?? new Set<string>();
      set.add(id);
      this.written.set(resource, set);
    }
    if (!outcome.problem) return;
    const key = `${c.target}\u0000${c.cls}`;
    const existing = this.violations.get(key);
    if (existing) existing.count += 1;
    else this.violations.set(key, { target: c.target, cls: c.cls, input: outcome.input, problem: outcome.problem, count: 1 });
  }

  total(): number {
    return Object.values(this.requests).reduce((a, b) => a + b, 0);
  }

  report(): string {
    const byClass = new Map<string, Violation[]>();
    for (const v of this.violations.values()) byClass.set(v.cls, [...(byClass.get(v.cls) ?? []), v]);
    const lines: string[] = [`${this.violations.size} (target, class) pairs answered badly (seed ${SEED}; FUZZ_SEED=${SEED} reproduces):`];
    for (const [cls, list] of [...byClass].sort((a, b) => a[0].localeCompare(b[0]))) {
      lines.push('', `[${cls}]`);
      for (const v of list.sort((a, b) => a.target.localeCompare(b.target))) {
        lines.push(`  ${v.target}  ${v.input}${v.count > 1 ? `  (${v.count} cases)` : ''}`, `      -> ${v.problem}`);
      }
    }
    return lines.join('\n');
  }
}

async function runCase(ledger: Ledger, c: Case, round = 0): Promise<boolean> {
  if (ONLY && !ONLY.test(c.target)) return false;
  const rng = rngFor(SEED, `${c.target}|${c.cls}|${c.param}${round ? `|${round}` : ''}`);
  let outcome: Outcome;
  const started = Date.now();
  try {
    outcome = await c.run(rng);
    ledger.timed(c.target, Date.now() - started);
  } catch (error) {
    // A bug of the test itself: say so, with the case, rather than blaming the service.
    throw new Error(`fuzz case ${c.target} [${c.cls}] ${c.param} could not be built or sent: ${(error as Error).stack ?? String(error)}`);
  }
  ledger.record(c, outcome);
  if (VERBOSE)
    console.log(
      `${outcome.problem ? 'FAIL' : 'ok  '} ${c.target} [${c.cls}] ${outcome.input} -> ${outcome.answer.status || outcome.answer.problem} ${excerpt(outcome.answer.text, 120)}`,
    );
  return true;
}

/** The classes of the review's findings go first, so that a short budget still tries them on every target. */
const FIRST_CLASSES = new Set([
  'nul-byte',
  'lone-surrogate',
  'malformed-percent-encoding',
  'like-metachars',
  'out-of-range-date',
  'huge-number',
  'long-string',
  'wrong-type',
  'null',
  'unknown-enum',
  'invalid-uuid',
  'deep-nesting',
  'upload-file',
  'malformed-json',
  'unsupported-charset',
  'broken-compression',
]);

function prioritised(rng: Rng, cases: Case[]): Case[] {
  const later = (c: Case) => Number(!FIRST_CLASSES.has(c.cls) && !c.cls.startsWith('document-'));
  return shuffle(rng, cases).sort((a, b) => later(a) - later(b));
}

/**
 * Runs case lists round-robin (case i of every target before case i+1 of any), then again with
 * fresh values (up to ROUNDS rounds), until the deadline passes.
 */
async function roundRobin(ledger: Ledger, lists: Case[][], deadline: number): Promise<{ ran: number; planned: number }> {
  const planned = lists.reduce((n, list) => n + list.length, 0);
  let ran = 0;
  const longest = Math.max(0, ...lists.map((list) => list.length));
  for (let round = 0; round < ROUNDS; round += 1) {
    for (let i = 0; i < longest; i += 1) {
      for (const list of lists) {
        if (i >= list.length) continue;
        if (Date.now() > deadline) return { ran, planned };
        if (await runCase(ledger, list[i], round)) ran += 1;
      }
    }
  }
  return { ran, planned };
}

// ---------------------------------------------------------------------------------------------
// Baselines and the read-back

function baselineRest(target: RestTarget, rng: Rng): Promise<Answer> {
  const ctx = ctxFor(env, target.route.path, target.route.method === 'DELETE', rng);
  const args = baselineObject(target.fields, ctx);
  if (target.route.body === 'multipart') {
    return sendRestMultipart(
      env,
      target.route.path,
      target.fields.filter((f) => f.source === 'form' && f.required).map((f) => [f.name, String(args[f.name])]),
      { filename: 'fuzz.csv', bytes: Buffer.from(CSV) },
    );
  }
  return sendRest(env, target, args);
}

function baselineGraphql(target: GraphqlTarget, rng: Rng): Promise<Answer> {
  const ctx = ctxFor(env, target.field, target.destructive, rng);
  return sendGraphql(
    env,
    target,
    baselineObject(
      target.fields.filter((f) => f.shape.kind !== 'upload'),
      ctx,
    ),
    () => 0.99,
  );
}

function baselineMcp(target: McpTarget, rng: Rng): Promise<Answer> {
  const ctx = ctxFor(env, target.tool, false, rng);
  return sendMcp(env, 'tools/call', JSON.stringify({ name: target.tool, arguments: baselineObject(target.fields, ctx) }), rng, {
    toolName: target.tool,
    timeoutMs: target.longRunning ? LONG_RUNNING_TIMEOUT_MS : undefined,
  });
}

function isSuccess(front: Front, answer: Answer): boolean {
  if (answer.status < 200 || answer.status > 299) return false;
  if (front === 'graphql') return /^\s*\{"data"/.test(answer.text) && !answer.text.includes('"errors"');
  if (front === 'mcp')
    return jsonRpcMessages(answer).every((m) => !(m as { error?: unknown }).error && !(m as { result?: { isError?: boolean } }).result?.isError);
  return true;
}

async function listTools(): Promise<ListedTool[]> {
  const tools: ListedTool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 50; page += 1) {
    const answer = await sendMcp(env, 'tools/list', JSON.stringify(cursor ? { cursor } : {}), () => 0.99);
    const body = (jsonRpcMessages(answer)[0] ?? {}) as { result?: { tools: ListedTool[]; nextCursor?: string } };
    if (!body.result) throw new Error(`tools/list answered ${answer.status} ${answer.text.slice(0, 300)}`);
    tools.push(...body.result.tools);
    cursor = body.result.nextCursor;
    if (!cursor) break;
  }
  return tools;
}

/** Every REST list page by page, every record a write returned, every GraphQL query field and read-only tool once. */
async function readBack(ledger: Ledger, rest: RestTarget[], graphql: GraphqlTarget[], mcp: McpTarget[]): Promise<void> {
  const rng = rngFor(SEED, 'read-back');
  const record = (target: string, front: Front, input: string, answer: Answer, problem: string | undefined) =>
    ledger.record({ target, front, cls: 'read-back', param: '*' }, { input, answer, problem });
  const skip = (name: string) => ONLY !== undefined && !ONLY.test(name);
  for (const target of rest) {
    if (target.kind !== 'read' || skip(target.name)) continue;
    const ctx = ctxFor(env, target.route.path, false, rng);
    const pathParams = target.fields.filter((f) => f.source === 'path');
    if (pathParams.length === 0) {
      const args = baselineObject(target.fields, ctx);
      if (target.fields.some((f) => f.name === 'limit')) args.limit = 100;
      for (let page = 0; page < 100; page += 1) {
        const answer = await sendRest(env, target, args);
        record(target.name, 'rest', `page ${page + 1} after the writes`, answer, checkRest(answer));
        const body = answer.status === 200 ? (JSON.parse(answer.text) as { pagination?: { has_more: boolean; next_cursor: string | null } }) : undefined;
        if (!body?.pagination?.has_more || !body.pagination.next_cursor) break;
        args.cursor = body.pagination.next_cursor;
      }
    } else if (pathParams.length === 1 && pathParams[0].name === 'id') {
      const resource = resourceOf(target.route.path);
      const ids = [...(resource ? (ledger.written.get(resource) ?? []) : [])].slice(-150);
      for (const id of ids) {
        const answer = await sendRest(env, target, { ...baselineObject(target.fields, ctx), id });
        record(target.name, 'rest', `id ${id} written by the fuzz`, answer, answer.status === 404 ? undefined : checkRest(answer));
      }
    }
  }
  for (const target of graphql) {
    if (target.operationType !== 'query' || skip(target.name)) continue;
    const answer = await baselineGraphql(target, rng);
    record(target.name, 'graphql', 'valid arguments, after the writes', answer, checkGraphql(answer, env.codes));
  }
  for (const target of mcp) {
    if (target.kind !== 'read' || skip(target.name)) continue;
    const answer = await baselineMcp(target, rng);
    record(target.name, 'mcp', 'valid arguments, after the writes', answer, checkMcp(answer));
  }
}

// ---------------------------------------------------------------------------------------------

describe('malformed input (issue 11)', () => {
  it(
    'is refused with the documented 4xx on every REST route, GraphQL field and JSON-RPC tool: never a 5xx, an internal error or no answer',
    async () => {
      const started = Date.now();
      const ledger = new Ledger();
      const rest = restTargets();
      const graphql = graphqlTargets();
      const mcp = mcpTargets(await listTools());
      expect(rest.length).toBeGreaterThan(30);
      expect(graphql.length).toBeGreaterThan(40);
      expect(mcp.length).toBeGreaterThan(15);
      console.log(
        `fuzz: seed ${SEED} (FUZZ_SEED), budget ${BUDGET_MS / 1000} s (FUZZ_BUDGET_MS); targets: ${rest.length} REST routes, ${graphql.length} GraphQL fields, ${mcp.length} tools`,
      );

      // 1. Baselines: valid requests, so a target whose baseline is refused is known (its cases judge less).
      const baseRng = rngFor(SEED, 'baseline');
      const baselines: [string, Front, () => Promise<Answer>, (a: Answer) => string | undefined][] = [
        ...rest.map((t): [string, Front, () => Promise<Answer>, (a: Answer) => string | undefined] => [
          t.name,
          'rest',
          () => baselineRest(t, baseRng),
          checkRest,
        ]),
        ...graphql.map((t): [string, Front, () => Promise<Answer>, (a: Answer) => string | undefined] => [
          t.name,
          'graphql',
          async () => {
            let answer = await baselineGraphql(t, baseRng);
            // A selection too costly for the complexity limit would hide every argument behind that refusal: select less.
            for (let depth = 2; depth >= 0 && /complexity \d+ exceeds/i.test(answer.text); depth -= 1) {
              t.document = t.documentAt(depth);
              answer = await baselineGraphql(t, baseRng);
            }
            return answer;
          },
          (a) => checkGraphql(a, env.codes),
        ]),
        ...mcp.map((t): [string, Front, () => Promise<Answer>, (a: Answer) => string | undefined] => [t.name, 'mcp', () => baselineMcp(t, baseRng), checkMcp]),
      ];
      for (const [name, front, run, check] of baselines) {
        if (ONLY && !ONLY.test(name)) continue;
        const answer = await run();
        ledger.record({ target: name, front, cls: 'baseline', param: '*' }, { input: 'valid arguments', answer, problem: check(answer) });
        // Deletes get a random id (so the records stay), updates no change: those refusals are by design.
        if (!isSuccess(front, answer) && !/not found|nothing to update|not in the trash/i.test(answer.text))
          ledger.baselineRefusals.push(`${name}: ${answer.status} ${excerpt(answer.text, 140)}`);
      }

      // 2. Whole-request cases (framing, encodings, credentials, the sign-in form): a fixed list.
      const fixed = [
        ...graphqlEndpointCases(env),
        ...restFramingCases(env, rest),
        ...mcpEndpointCases(env),
        ...loginCases(env, user.email),
        ...credentialCases(env),
      ];
      let fixedCount = 0;
      for (const c of fixed) if (await runCase(ledger, c)) fixedCount += 1;

      // 3. Per-parameter cases: reads first, then writes, each target's cases in a seeded order.
      const order = rngFor(SEED, 'order');
      const listsOf = (kind: 'read' | 'write') => [
        ...rest.filter((t) => t.kind === kind).map((t) => prioritised(order, restCases(env, t))),
        ...graphql.filter((t) => t.kind === kind).map((t) => prioritised(order, graphqlCases(env, t))),
        ...mcp.filter((t) => t.kind === kind).map((t) => prioritised(order, mcpCases(env, t))),
      ];
      const fuzzStart = Date.now();
      const reads = await roundRobin(ledger, listsOf('read'), fuzzStart + BUDGET_MS * READ_SHARE);
      const writes = await roundRobin(ledger, listsOf('write'), fuzzStart + BUDGET_MS);

      // 4. What the writes stored must still read back.
      await readBack(ledger, rest, graphql, mcp);

      // 5. Still up.
      const health = await send(`${server.url}/health`);
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      console.log(
        `fuzz: seed ${SEED}; ${ledger.total()} requests (REST ${ledger.requests.rest}, GraphQL ${ledger.requests.graphql}, JSON-RPC ${ledger.requests.mcp}, /login ${ledger.requests.login}) in ${seconds} s; ` +
          `fixed cases ${fixedCount}, parameter cases run (${ROUNDS} rounds of each (parameter, class) at most, while the budget lasts): reads ${reads.ran} (${reads.planned} a round), writes ${writes.ran} (${writes.planned} a round); ${ledger.violations.size} violations (target, class)`,
      );
      console.log(`fuzz: most time spent on: ${ledger.slowest(12)}`);
      if (ledger.baselineRefusals.length)
        console.log(`fuzz: targets whose valid baseline was refused (their cases reach less far):\n  ${ledger.baselineRefusals.join('\n  ')}`);
      expect(health.status, `GET /health after the fuzz: ${health.status} ${health.text}`).toBe(200);
      expect(JSON.parse(health.text)).toEqual({ status: 'healthy' });
      if (ledger.violations.size > 0) expect.fail(ledger.report());
    },
    BUDGET_MS + 300_000,
  );
});
