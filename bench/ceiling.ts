/**
 * The ceiling (issue 16): a bare `node:http` + `pg` server doing the project's work for three
 * endpoints and nothing else, so that a benchmark can say how far the project's REST layer is
 * from what the same statements cost without a framework:
 *
 *   GET /api/returns/comparison?limit=50   (limit, cursor, account_code, status)
 *   GET /api/stickies?limit=20             (limit; no cursor, tags, search or includeDeleted)
 *   GET /api/returns/dietz-daily           (entity_name, start_date, end_date; no currency)
 *   GET /health
 *
 * Per request it sends the statements the project sends: the API key by prefix with its user and
 * the user's memberships in ONE statement (VERIFY_SQL of src/auth/api-keys.ts), then the
 * endpoint's statement: `comparisonQuery` of src/returns/returns-service.ts for the comparison,
 * STICKY_LIST_SQL of src/workspace/stickies/sticky-service.ts (first page, active stickies) for
 * stickies, the project's ReturnsService.dietzDaily on the ceiling's pool for daily returns (its
 * statements and arithmetic: what is left out is the framework around them), none for /health.
 * The bodies are written by hand to be byte-identical to the project's REST bodies
 * (bench/ceiling-compare.ts checks that before it measures anything). The comparison
 * thresholds come from the organization rows the statement reads (what the project shows), so
 * the ceiling needs no configuration besides DATABASE_URL.
 *
 * `/floor/<path>` is the floor: the same answer from memory, or a 304, with no work at all (see floor()).
 * `/exact/<path>` is the exact floor: the same, after the one statement an exact cached answer needs (see exactFloor()).
 *
 * Standalone:  DATABASE_URL='postgresql://…/test?schema=<the project's schema>' [PORT=0] npx tsx bench/ceiling.ts
 * Forked with an IPC channel (bench/ceiling-compare.ts) it reports `{ type: 'listening', url }`
 * and answers `{ type: 'cpu' }` with its own process.cpuUsage().
 */
import { timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { VERIFY_SQL, hashSecret, keyPrefix, secretKind, type KeyRow } from '../src/auth/api-keys.ts';
import { grants, isScope, type Scope } from '../src/auth/scopes.ts';
import { classifyDifference, COMPARISON_STATUSES, type ComparisonStatus } from '../src/returns/dietz.ts';
import { STICKY_LIST_SQL } from '../src/workspace/stickies/sticky-service.ts';
import { comparisonQuery, ReturnsService, type DietzDailyResult, type RawComparison } from '../src/returns/returns-service.ts';

export interface CeilingOptions {
  /** PostgreSQL URL; Prisma's `?schema=name` names the project's schema (search_path, as the project does). */
  databaseUrl: string;
  port?: number;
  host?: string;
  /** Connections in the pool (the project's pool holds 10). */
  poolSize?: number;
}

export interface Ceiling {
  url: string;
  server: http.Server;
  pool: pg.Pool;
  close(): Promise<void>;
}

/** As the project: last_used_at is written at most once a minute per key. */
const LAST_USED_RESOLUTION_MS = 60_000;

interface Viewer {
  userId: string;
  scopes: Set<Scope>;
  orgIds: string[];
}

const PAGE = { comparison: { first: 50, max: 500 }, stickies: { first: 50, max: 200 } } as const;
const MESSAGES = { invalidApiKey: 'Invalid or expired API key', insufficientPermissions: 'Insufficient permissions' } as const;

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Splits Prisma's `?schema=` off the URL, as src/db/database.ts does. */
function splitSchema(url: string): { connectionString: string; schema: string | undefined } {
  const parsed = new URL(url);
  const schema = parsed.searchParams.get('schema') ?? undefined;
  if (schema !== undefined && !/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) throw new Error('DATABASE_URL: schema must be a plain identifier');
  parsed.searchParams.delete('schema');
  return { connectionString: parsed.toString(), schema };
}

export async function startCeiling(options: CeilingOptions): Promise<Ceiling> {
  const { connectionString, schema } = splitSchema(options.databaseUrl);
  const pool = new pg.Pool({ connectionString, max: options.poolSize ?? 10, ...(schema ? { options: `-c search_path="${schema}"` } : {}) });
  pool.on('error', () => undefined);

  async function authenticate(header: string | string[] | undefined): Promise<Viewer | null | 'invalid'> {
    const raw = Array.isArray(header) ? header[0] : header;
    if (raw === undefined) return null;
    const secret = raw.trim();
    const kind = secretKind(secret);
    if (kind !== 'api_key') return 'invalid';
    const { rows } = await pool.query<KeyRow>(VERIFY_SQL, [keyPrefix(secret)]);
    const key = rows[0];
    if (!key || key.kind !== kind) return 'invalid';
    const presented = Buffer.from(hashSecret(secret), 'hex');
    const stored = Buffer.from(key.secretHash, 'hex');
    if (presented.length !== stored.length || !timingSafeEqual(presented, stored)) return 'invalid';
    const now = new Date();
    if (key.revokedAt || (key.expiresAt && key.expiresAt <= now)) return 'invalid';
    if (!key.lastUsedAt || now.getTime() - key.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
      await pool.query('UPDATE "ApiKey" SET "lastUsedAt" = $1 WHERE id = $2', [now, key.id]);
    }
    return { userId: key.userId, scopes: new Set(key.scopes.filter(isScope)), orgIds: key.orgIds };
  }

  async function viewerWith(req: http.IncomingMessage, scope: Scope): Promise<Viewer> {
    const viewer = await authenticate(req.headers['x-api-key']);
    if (viewer === null || viewer === 'invalid') throw new HttpError(401, MESSAGES.invalidApiKey);
    if (!grants(viewer.scopes, scope)) throw new HttpError(403, MESSAGES.insufficientPermissions);
    return viewer;
  }

  async function comparison(req: http.IncomingMessage, query: URLSearchParams): Promise<string> {
    const viewer = await viewerWith(req, 'read:returns');
    const limit = pageLimit(query, PAGE.comparison.first, PAGE.comparison.max);
    const status = query.get('status');
    if (status !== null && !(COMPARISON_STATUSES as readonly string[]).includes(status))
      throw new HttpError(400, `Invalid status: must be one of ${COMPARISON_STATUSES.join(', ')}`);
    const cursor = query.get('cursor');
    const statement = comparisonStatement({
      orgIds: viewer.orgIds,
      accountCode: query.get('account_code'),
      status: status as ComparisonStatus | null,
      after: cursor === null ? null : readComparisonCursor(cursor),
      limit,
    });
    const { rows } = await pool.query<RawComparison>(statement.text, statement.values);
    const hasMore = rows.length > limit;
    const page = hasMore ? rows.slice(0, limit) : rows;
    const data = page.map((raw) => {
      const classification = classifyDifference({
        custodian: raw.custodian,
        computed: raw.computed,
        matchThresholdBps: raw.matchBps,
        reviewThresholdBps: raw.reviewBps,
      });
      return {
        account_code: raw.accountCode,
        entity_name: raw.entityName,
        date: raw.date,
        currency: raw.currency,
        local_currency: raw.currency,
        custodian_return: raw.custodian,
        computed_return: raw.computed,
        local_custodian_return: raw.custodian,
        local_computed_return: raw.computed,
        difference_bps: classification.differenceBps,
        status: raw.status,
        reason: raw.computed === null && raw.computedNullReason ? `computed return undefined: ${raw.computedNullReason}` : classification.reason,
        match_threshold_bps: raw.matchBps,
        review_threshold_bps: raw.reviewBps,
      };
    });
    const last = page.at(-1);
    const nextCursor = hasMore && last ? cursorText({ date: last.date, accountCode: last.accountCode, entityId: last.entityId }) : null;
    return JSON.stringify({ data, pagination: { has_more: nextCursor !== null, next_cursor: nextCursor } });
  }

  async function stickies(req: http.IncomingMessage, query: URLSearchParams): Promise<string> {
    const viewer = await viewerWith(req, 'read:workspace');
    for (const name of ['cursor', 'tags', 'search', 'include_deleted', 'includeDeleted']) {
      if (query.has(name)) throw new HttpError(400, `The ceiling serves the first page of active stickies only (no ${name})`);
    }
    const limit = pageLimit(query, PAGE.stickies.first, PAGE.stickies.max);
    // the project's statement and parameters for the first page of active stickies (StickyService.list)
    const { rows } = await pool.query<StickyTuple>({
      text: STICKY_LIST_SQL,
      values: [viewer.userId, 'active', null, null, null, null, null, limit + 1],
      rowMode: 'array',
    });
    const hasMore = rows.length > limit;
    const page = hasMore ? rows.slice(0, limit) : rows;
    const data = page.map(([id, , content, tags, version, deletedAt, createdAt, updatedAt]) => ({
      id,
      content,
      tags,
      version,
      // timestamptz(3): pg reads a Date, printed as the GraphQL DateTime scalar prints it
      created_at: createdAt.toISOString(),
      updated_at: updatedAt.toISOString(),
      deleted_at: deletedAt === null ? null : deletedAt.toISOString(),
    }));
    const last = data.at(-1);
    const nextCursor = hasMore && last ? cursorText({ u: last.updated_at, id: last.id }) : null;
    return JSON.stringify({ data, pagination: { has_more: nextCursor !== null, next_cursor: nextCursor } });
  }

  // Daily returns: the project's own service (its statements and its Modified Dietz arithmetic) on
  // this pool; what the ceiling leaves out is everything around it (framework, pipeline, policies).
  const returns = new ReturnsService(pool);

  async function dietzDaily(req: http.IncomingMessage, query: URLSearchParams): Promise<string> {
    const viewer = await viewerWith(req, 'read:returns');
    if (query.has('currency')) throw new HttpError(400, 'The ceiling serves daily returns in the entity’s own currency only (no currency)');
    const [entityName, startDate, endDate] = ['entity_name', 'start_date', 'end_date'].map((name) => query.get(name));
    if (!entityName || !startDate || !endDate) throw new HttpError(400, 'entity_name, start_date and end_date are required');
    return JSON.stringify({ data: dailyBody(await returns.dietzDaily({ orgIds: new Set(viewer.orgIds), entityName, startDate, endDate })) });
  }

  async function health(req: http.IncomingMessage): Promise<string> {
    // The project builds the request context (and so checks a presented key) before any route.
    await authenticate(req.headers['x-api-key']);
    return HEALTHY;
  }

  function answer(req: http.IncomingMessage, url: string): Promise<string> {
    const mark = url.indexOf('?');
    const pathname = mark === -1 ? url : url.slice(0, mark);
    const query = new URLSearchParams(mark === -1 ? '' : url.slice(mark + 1));
    if (req.method !== 'GET') return Promise.reject(new HttpError(405, 'Method not allowed; use GET'));
    if (pathname === '/api/returns/comparison') return comparison(req, query);
    if (pathname === '/api/stickies') return stickies(req, query);
    if (pathname === '/api/returns/dietz-daily') return dietzDaily(req, query);
    if (pathname === '/health') return health(req);
    return Promise.reject(new HttpError(404, 'Not found'));
  }

  /**
   * The floor: what node:http alone costs to answer a request from memory, no credential read, no
   * statement, nothing checked. `/floor/<path>` answers the ceiling's body for <path> (worked out
   * on its first request, then kept), or 304 when the request has If-None-Match. No server that
   * answers over HTTP can do less, so a cached answer's or a 304's ratio to the ceiling can be no
   * better than the floor's on the same machine and load generator (docs/benchmarks.md).
   */
  const floorBodies = new Map<string, string>();
  function floor(req: http.IncomingMessage, res: http.ServerResponse, url: string): void {
    if (req.headers['if-none-match'] !== undefined) {
      res.writeHead(304, { etag: FLOOR_TAG });
      res.end();
      return;
    }
    const kept = floorBodies.get(url);
    if (kept !== undefined) return send(res, 200, kept, FLOOR_TAG);
    reply(
      res,
      answer(req, url).then((body) => {
        floorBodies.set(url, body);
        return body;
      }),
    );
  }

  /**
   * The exact floor: the least an exact cached answer or 304 can cost (docs/caching.md). Before
   * answering from memory it must ask the database whether the key still works and whether the
   * viewer's data changed (a write on another instance, an ingest, hand SQL): the project asks
   * both in one statement, VERIFY_SQL (key, user, memberships, data versions), and so does this,
   * with the key checked as the ceiling checks it. Then the floor's answer, nothing else: no cache
   * key from the versions, no budget, no log. `exact .../ceiling` is the best ratio an exact
   * cached answer or 304 can reach on this machine.
   */
  function exactFloor(req: http.IncomingMessage, res: http.ServerResponse, url: string): void {
    authenticate(req.headers['x-api-key']).then(
      (viewer) => (viewer === null || viewer === 'invalid' ? send(res, 401, JSON.stringify({ error: MESSAGES.invalidApiKey })) : floor(req, res, url)),
      (error: unknown) => send(res, 500, JSON.stringify({ error: String(error) })),
    );
  }

  const server = http.createServer((req, res) => {
    const url = req.url ?? '/';
    if (url.startsWith(FLOOR_PREFIX)) floor(req, res, url.slice(FLOOR_PREFIX.length - 1));
    else if (url.startsWith(EXACT_PREFIX)) exactFloor(req, res, url.slice(EXACT_PREFIX.length - 1));
    else reply(res, answer(req, url));
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('ceiling: no TCP address');
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${address.port}`,
    server,
    pool,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await pool.end();
    },
  };
}

const HEALTHY = JSON.stringify({ status: 'healthy' });

/** The floor's paths (`/floor/api/stickies?limit=20`) and the one tag its answers carry. */
const FLOOR_PREFIX = '/floor/';
const FLOOR_TAG = '"floor"';
/** The exact floor's paths (`/exact/api/stickies?limit=20`); its answers are the floor's. */
const EXACT_PREFIX = '/exact/';

function reply(res: http.ServerResponse, work: Promise<string>): void {
  work.then(
    (body) => send(res, 200, body),
    (error: unknown) => {
      if (error instanceof HttpError) send(res, error.status, JSON.stringify({ error: error.message }));
      else {
        console.error('ceiling: request failed', error);
        send(res, 500, JSON.stringify({ error: 'Internal server error' }));
      }
    },
  );
}

function send(res: http.ServerResponse, status: number, body: string, etag?: string): void {
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    ...(etag === undefined ? {} : { etag }),
  });
  res.end(body);
}

/** `limit` as the REST layer reads it: an integer between 1 and the list's maximum, the list's default when absent. */
function pageLimit(query: URLSearchParams, first: number, max: number): number {
  const text = query.get('limit');
  if (text === null) return first;
  const limit = Number(text);
  if (!/^\d+$/.test(text) || !Number.isInteger(limit) || limit < 1 || limit > max)
    throw new HttpError(400, `Invalid limit: must be an integer between 1 and ${max}`);
  return limit;
}

/** The project's cursor format (src/pagination.ts encodeCursor): base64url JSON. */
function cursorText(position: Record<string, string>): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function readComparisonCursor(cursor: string): { date: string; accountCode: string; entityId: string } {
  let fields: unknown;
  try {
    fields = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    fields = undefined;
  }
  if (fields === null || typeof fields !== 'object') throw new HttpError(400, 'Invalid cursor: is not a cursor this endpoint issued');
  const { date, accountCode, entityId } = fields as Record<string, unknown>;
  if (typeof date !== 'string' || typeof accountCode !== 'string') throw new HttpError(400, 'Invalid cursor: is not a cursor this endpoint issued');
  return { date, accountCode, entityId: typeof entityId === 'string' && UUID.test(entityId) ? entityId : '00000000-0000-0000-0000-000000000000' };
}

/**
 * The comparison statement: the project's own builder (src/returns/returns-service.ts), so the
 * ceiling sends exactly the text and parameters the project sends. Kept in one place in case the
 * builder's signature moves again.
 */
function comparisonStatement(scope: {
  orgIds: string[];
  accountCode: string | null;
  status: ComparisonStatus | null;
  after: { date: string; accountCode: string; entityId: string } | null;
  limit: number;
}): { text: string; values: unknown[] } {
  return comparisonQuery(scope);
}

/** The `data` of GET /api/returns/dietz-daily's REST body: the route's selection, in its order, in snake case. */
function dailyBody(result: DietzDailyResult) {
  const labelled = (value: DietzDailyResult['timeWeightedReturn']) => ({
    value: value.value,
    null_reason: value.nullReason,
    method: value.method,
    weighting: value.weighting,
  });
  return {
    entity_name: result.entityName,
    account_code: result.accountCode,
    currency: result.currency,
    local_currency: result.localCurrency,
    start_date: result.startDate,
    end_date: result.endDate,
    annualized: result.annualized,
    time_weighted_return: labelled(result.timeWeightedReturn),
    modified_dietz_return: labelled(result.modifiedDietzReturn),
    days: result.days.map((day) => ({
      date: day.date,
      start_date: day.startDate,
      begin_value: day.beginValue,
      end_value: day.endValue,
      net_flow: day.netFlow,
      weighted_flow: day.weightedFlow,
      return_value: day.returnValue,
      null_reason: day.nullReason,
      cumulative_return: day.cumulativeReturn,
      local_return_value: day.localReturnValue,
      currency_effect: day.currencyEffect,
      fees: day.fees,
      gross_return_value: day.grossReturnValue,
    })),
  };
}

/** id, userId, content, tags, version, deletedAt, createdAt, updatedAt (STICKY_LIST_SQL's column order). */
type StickyTuple = [string, string, string, string[], number, Date | null, Date, Date];

// ---- standalone / forked -------------------------------------------------------------------

const isMain = process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const databaseUrl = process.env.DATABASE_URL?.trim();
  if (!databaseUrl) {
    console.error('ceiling: DATABASE_URL is required (a PostgreSQL URL; ?schema= names the project schema)');
    process.exit(2);
  }
  const ceiling = await startCeiling({ databaseUrl, port: Number(process.env.PORT ?? 0) });
  const stop = () => {
    void ceiling.close().finally(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  if (process.send) {
    process.on('message', (message: { type?: string }) => {
      if (message.type === 'cpu') process.send?.({ type: 'cpu', usage: process.cpuUsage() });
      if (message.type === 'close') stop();
    });
    process.on('disconnect', stop);
    process.send({ type: 'listening', url: ceiling.url });
  } else {
    console.log(`ceiling listening on ${ceiling.url}`);
  }
}
