/**
 * The audit log's writer: callers hand it events (record) and go on; it writes them in batches,
 * in the background, each batch in one transaction that extends the chains it touches
 * (hash-chain.ts). The queue is bounded (AUDIT_QUEUE_MAX): while it is full, a mutation waits for
 * room before it runs (whenRoom, the pipeline's back-pressure) rather than anything being dropped.
 * close() writes everything queued (a clean shutdown loses nothing); a crash loses what was queued
 * and not yet written: at most the last AUDIT_FLUSH_INTERVAL (250 ms) and the batch in flight.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../log.ts';
import { canonicalJson, GENESIS_HASH, hashedText, hashOfText, type HashedFields } from './hash-chain.ts';
import { NO_ORGANIZATION_CHAIN, type AuditEventInput } from './types.ts';
import { NO_LABELS, type OperationLabels } from './operation-labels.ts';

/** What the writer needs of the database: a pool (pg.Pool) it checks connections out of. */
export interface AuditPool {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: T[] }>;
  connect(): Promise<{ query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: T[] }>; release(err?: Error | boolean): void }>;
}

export interface AuditRecorderOptions {
  pool: AuditPool;
  log: Logger;
  /** AUDIT_QUEUE_MAX: events held in memory before mutations wait for room. */
  queueMax: number;
  /** AUDIT_FLUSH_INTERVAL: how long an event may wait before its batch is written. */
  flushMs: number;
  /** Events per transaction. */
  batchSize?: number;
  /** How REST routes and MCP tools name their operations (operation-labels.ts; the shell reads them from the tables). */
  labels?: OperationLabels;
}

interface Queued {
  id: string;
  occurredAt: Date;
  input: AuditEventInput;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const RETRY_AFTER_FAILURE_MS = 1_000;

export class AuditRecorder {
  private queue: Queued[] = [];
  private writing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private waiters: (() => void)[] = [];
  private closed = false;
  /** The heads of the chains as this writer left them (see write). */
  private readonly heads = new Map<string, Head>();
  /** Credentials' public prefixes: they never change, so each is read once. */
  private readonly prefixes = new Map<string, string>();
  private readonly batchSize: number;
  /** Events written since start (the benchmark and tests read it). */
  written = 0;
  readonly labels: OperationLabels;

  constructor(private readonly options: AuditRecorderOptions) {
    this.batchSize = options.batchSize ?? 500;
    this.labels = options.labels ?? NO_LABELS;
  }

  /** Queues an event; it is written within AUDIT_FLUSH_INTERVAL. Never throws, never waits. */
  record(input: AuditEventInput): void {
    if (this.closed) {
      this.options.log.error({ operation: input.operation, front: input.front }, 'audit event recorded after the log was closed: not written');
      return;
    }
    this.queue.push({ id: randomUUID(), occurredAt: input.occurredAt ?? new Date(), input });
    if (this.queue.length >= this.batchSize) this.startWriting();
    else this.schedule();
  }

  /** The next write, AUDIT_FLUSH_INTERVAL from now (not keeping a process alive: close() writes the rest). */
  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => this.startWriting(), this.options.flushMs);
    this.timer.unref();
  }

  get queued(): number {
    return this.queue.length;
  }

  /** Undefined when the queue has room; else a promise that resolves once it has. */
  whenRoom(): Promise<void> | undefined {
    if (this.queue.length < this.options.queueMax) return undefined;
    this.startWriting();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Writes everything queued so far (tests, the CLI, shutdown). */
  async flush(): Promise<void> {
    while (this.queue.length > 0 || this.writing) {
      this.startWriting();
      await this.writing;
    }
  }

  /**
   * Stops taking events and writes the queue (a clean shutdown: nothing is lost). With the
   * database gone for longer than `timeoutMs`, what is still queued is logged as lost.
   */
  async close(timeoutMs = 30_000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    const outcome = await Promise.race([this.flush().then(() => 'flushed' as const), gaveUp]);
    clearTimeout(timer);
    this.closed = true;
    clearTimeout(this.timer);
    if (outcome === 'timeout') this.options.log.error({ events: this.queue.length }, 'audit log closed with events it could not write');
  }

  private startWriting(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.writing || this.queue.length === 0) return;
    const batch = this.queue.splice(0, this.batchSize);
    this.writing = this.write(batch)
      .then(() => {
        this.written += batch.length;
      })
      .catch((error: unknown) => {
        // Kept, in order, at the front of the queue: the next attempt writes them first.
        this.queue.unshift(...batch);
        this.options.log.warn({ err: error, events: batch.length }, 'audit events not written yet; retrying');
        return new Promise<void>((resolve) => setTimeout(resolve, RETRY_AFTER_FAILURE_MS).unref());
      })
      .finally(() => {
        this.writing = undefined;
        this.releaseWaiters();
        if (this.queue.length >= this.batchSize || (this.queue.length > 0 && this.waiters.length > 0)) this.startWriting();
        else if (this.queue.length > 0) this.schedule();
      });
  }

  private releaseWaiters(): void {
    while (this.waiters.length > 0 && this.queue.length < this.options.queueMax) this.waiters.shift()!();
  }

  /**
   * Appends a batch: in one statement from the heads this writer left (audit_append), or, for a
   * chain it has not written or whose head someone else moved, in a transaction that locks and
   * reads the heads first.
   */
  private async write(batch: Queued[]): Promise<void> {
    const resolved = await resolveReferences(this.options.pool, batch, this.prefixes);
    const rows = batch.map((queued) => toRow(queued, resolved));
    const chains = [...new Set(rows.map((row) => row.chain))];
    if (chains.every((chain) => this.heads.has(chain))) {
      const expected = new Map(chains.map((chain) => [chain, this.heads.get(chain)!]));
      try {
        this.remember(await appendFromHeads(this.options.pool, rows, expected));
        return;
      } catch (error) {
        if (!headMoved(error)) throw error;
        for (const chain of chains) this.heads.delete(chain);
      }
    }
    const client = await this.options.pool.connect();
    try {
      await client.query('BEGIN');
      const heads = await appendToChains(client, rows);
      await client.query('COMMIT');
      client.release();
      this.remember(heads);
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      client.release(error instanceof Error ? error : true);
      throw error;
    }
  }

  private remember(heads: Map<string, Head>): void {
    if (this.heads.size + heads.size > REMEMBERED_HEADS) this.heads.clear();
    for (const [chain, head] of heads) this.heads.set(chain, head);
  }
}

/** A chain's last event: its seq and hash. */
interface Head {
  seq: number;
  hash: string;
}

/** Chains (organizations) whose heads a writer remembers; past it, it forgets them all and reads them again. */
const REMEMBERED_HEADS = 10_000;

const REMEMBERED_PREFIXES = 100_000;

/** The memberships and credential prefixes a batch needs, read once per batch (a prefix once per writer). */
interface References {
  organizationsOf: Map<string, string[]>;
  prefixOf: Map<string, string>;
}

async function resolveReferences(pool: AuditPool, batch: Queued[], knownPrefixes: Map<string, string>): Promise<References> {
  const users = new Set<string>();
  const keys = new Set<string>();
  const grants = new Set<string>();
  for (const { input } of batch) {
    const user = input.actorId ?? input.subjectUserId;
    if (input.organizationId === undefined && user && UUID.test(user)) users.add(user);
    const credential = input.credential;
    if (!credential || credential.prefix !== undefined || knownPrefixes.has(credential.id) || !UUID.test(credential.id)) continue;
    if (credential.kind === 'api_key' || credential.kind === 'access_token') keys.add(credential.id);
    if (credential.kind === 'oauth_app') grants.add(credential.id);
  }
  const [memberships, keyPrefixes, grantClients] = await Promise.all([
    users.size === 0
      ? { rows: [] }
      : pool.query<{ userId: string; orgId: string }>(
          'SELECT "userId", "orgId" FROM "Membership" WHERE "userId" = ANY($1::uuid[]) ORDER BY "userId", "createdAt", "orgId"',
          [[...users]],
        ),
    keys.size === 0 ? { rows: [] } : pool.query<{ id: string; prefix: string }>('SELECT id, prefix FROM "ApiKey" WHERE id = ANY($1::uuid[])', [[...keys]]),
    grants.size === 0
      ? { rows: [] }
      : pool.query<{ id: string; prefix: string }>('SELECT id, "clientId" AS prefix FROM "OAuthGrant" WHERE id = ANY($1::uuid[])', [[...grants]]),
  ]);
  const organizationsOf = new Map<string, string[]>();
  for (const row of memberships.rows) organizationsOf.set(row.userId, [...(organizationsOf.get(row.userId) ?? []), row.orgId]);
  if (knownPrefixes.size > REMEMBERED_PREFIXES) knownPrefixes.clear();
  for (const row of [...keyPrefixes.rows, ...grantClients.rows]) knownPrefixes.set(row.id, row.prefix);
  return { organizationsOf, prefixOf: knownPrefixes };
}

type Row = Omit<HashedFields, 'seq'>;

/**
 * The event's organization: the one the caller named; else the one its variables name, when the
 * user is a member of it; else the user's first organization; else none.
 */
function organizationOf(input: AuditEventInput, refs: References): string | null {
  if (input.organizationId !== undefined) return input.organizationId;
  const user = input.actorId ?? input.subjectUserId;
  const organizations = user ? (refs.organizationsOf.get(user) ?? []) : [];
  if (input.orgHint && organizations.includes(input.orgHint)) return input.orgHint;
  return organizations[0] ?? null;
}

function toRow({ id, occurredAt, input }: Queued, refs: References): Row {
  const organizationId = organizationOf(input, refs);
  const credential = input.credential ?? null;
  return {
    id,
    chain: organizationId ?? NO_ORGANIZATION_CHAIN,
    occurredAt,
    organizationId,
    actorId: input.actorId ?? null,
    credentialKind: credential?.kind ?? null,
    credentialId: credential?.id ?? null,
    credentialPrefix: credential ? (credential.prefix ?? refs.prefixOf.get(credential.id) ?? null) : null,
    front: input.front,
    operation: input.operation,
    targetType: input.target?.type ?? null,
    targetId: input.target?.id ?? null,
    outcome: input.outcome,
    clientAddress: input.clientAddress ?? null,
    userAgent: input.userAgent ?? null,
    requestId: input.requestId ?? null,
    traceId: input.traceId ?? null,
    variables: input.variables ?? null,
  };
}

/**
 * The text an event is hashed and stored as. The row is stored as exactly the canonical JSON its
 * hash covers, so what PostgreSQL gives back verifies. PostgreSQL's text and jsonb take neither NUL
 * nor a lone UTF-16 surrogate, and one such character would fail its whole batch again and again:
 * JSON writes either as an escape (\u0000, \ud800-\udfff), so when the text has one (rare; a
 * false alarm only costs the slow path) each is replaced by U+FFFD first and the text written again.
 */
function storedText(event: HashedFields): string {
  const text = hashedText(event);
  return UNSTORABLE_ESCAPE.test(text) ? hashedText(storable(event)) : text;
}

const UNSTORABLE_ESCAPE = /\\u(?:0000|d[89a-f])/i;

function storable(event: HashedFields): HashedFields {
  const fixed: Record<string, unknown> = { ...event };
  for (const [key, value] of Object.entries(event)) {
    if (typeof value === 'string') fixed[key] = storableText(value);
  }
  fixed.variables = storableValue(JSON.parse(canonicalJson(event.variables ?? null)) as unknown);
  return fixed as unknown as HashedFields;
}

function storableValue(value: unknown): unknown {
  if (typeof value === 'string') return storableText(value);
  if (Array.isArray(value)) return value.map(storableValue);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([key, item]) => [storableText(key), storableValue(item)]));
  return value;
}

/** NUL, or a high surrogate without its low one, or a low one without its high one. */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function storableText(text: string): string {
  UNSTORABLE.lastIndex = 0;
  return UNSTORABLE.test(text) ? text.replace(UNSTORABLE, '\uFFFD') : text;
}

type Queryable = Pick<AuditPool, 'query'>;

/**
 * Appends rows to their chains inside the caller's transaction: the heads of the chains are
 * locked (in chain order, so two writers never deadlock), each row gets the next seq and its hash,
 * the rows are inserted and the heads moved. Several instances can write the same chain. Returns
 * the chains' new heads.
 */
export async function appendToChains(client: Queryable, rows: Row[]): Promise<Map<string, Head>> {
  if (rows.length === 0) return new Map();
  const chains = [...new Set(rows.map((row) => row.chain))].sort();
  const heads = new Map((await lockHeads(client, chains)).map((row) => [row.chain, { seq: Number(row.seq), hash: row.hash }]));
  const { elements, moved } = hashBatch(rows, heads);
  // The events and the chains' new heads in one statement: each statement is a round trip, and on
  // the embedded database a costly one.
  await client.query(
    `WITH events AS (
       INSERT INTO "AuditEvent" (${EVENT_COLUMNS}) SELECT ${EVENT_COLUMNS} FROM json_to_recordset($1::json) AS e(${EVENT_RECORD})
     )
     UPDATE "AuditChain" AS c SET seq = h.seq, hash = h.hash FROM unnest($2::text[], $3::bigint[], $4::text[]) AS h(chain, seq, hash) WHERE c.chain = h.chain`,
    [`[${elements.join(',')}]`, [...moved.keys()], [...moved.values()].map((h) => h.seq), [...moved.values()].map((h) => h.hash)],
  );
  return moved;
}

/**
 * Appends rows in one statement from heads the writer remembers (audit_append: the heads move only
 * if they are still there, else SQLSTATE 40001 and nothing changes). Returns the new heads.
 */
async function appendFromHeads(pool: Queryable, rows: Row[], expected: Map<string, Head>): Promise<Map<string, Head>> {
  const { elements, moved } = hashBatch(rows, expected);
  const chains = [...moved.keys()];
  await pool.query('SELECT "audit_append"($1::json, $2::text[], $3::bigint[], $4::bigint[], $5::text[])', [
    `[${elements.join(',')}]`,
    chains,
    chains.map((chain) => expected.get(chain)!.seq),
    chains.map((chain) => moved.get(chain)!.seq),
    chains.map((chain) => moved.get(chain)!.hash),
  ]);
  return moved;
}

function headMoved(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '40001';
}

/**
 * Each row's seq and hash from its chain's head, and the batch's JSON elements: each event is
 * serialised once, as the text its hash covers, which with the hash added is its element (read by
 * json_to_recordset: a quarter cheaper for the database than jsonb_to_recordset, which first builds
 * the whole batch as jsonb; measured). Returns the elements and the chains' new heads.
 */
function hashBatch(rows: Row[], heads: ReadonlyMap<string, Head>): { elements: string[]; moved: Map<string, Head> } {
  const moved = new Map<string, Head>();
  const elements = rows.map((row) => {
    const last = moved.get(row.chain) ?? heads.get(row.chain)!;
    const seq = last.seq + 1;
    const text = storedText({ ...row, seq });
    const hash = hashOfText(last.hash, text);
    moved.set(row.chain, { seq, hash });
    return `${text.slice(0, -1)},"hash":"${hash}"}`;
  });
  return { elements, moved };
}

const EVENT_COLUMNS = `id, chain, seq, "occurredAt", "organizationId", "actorId", "credentialKind", "credentialId", "credentialPrefix",
  front, operation, "targetType", "targetId", outcome, "clientAddress", "userAgent", "requestId", "traceId", variables, hash`;

const EVENT_RECORD = `id uuid, chain text, seq bigint, "occurredAt" timestamptz, "organizationId" uuid, "actorId" uuid,
  "credentialKind" text, "credentialId" text, "credentialPrefix" text, front text, operation text, "targetType" text, "targetId" text,
  outcome text, "clientAddress" text, "userAgent" text, "requestId" text, "traceId" text, variables jsonb, hash text`;

/**
 * Locks the heads of the chains (in chain order, so two writers never deadlock) and reads them.
 * A chain seen for the first time gets its head (the genesis) first; most batches extend chains
 * that exist, and skip that statement.
 */
async function lockHeads(client: Queryable, chains: string[]): Promise<{ chain: string; seq: string; hash: string }[]> {
  const select = () =>
    client.query<{ chain: string; seq: string; hash: string }>(
      'SELECT chain, seq::text AS seq, hash FROM "AuditChain" WHERE chain = ANY($1::text[]) ORDER BY chain FOR UPDATE',
      [chains],
    );
  const heads = await select();
  if (heads.rows.length === chains.length) return heads.rows;
  await client.query(
    'INSERT INTO "AuditChain" (chain, seq, hash, "purgedSeq", "purgedHash") SELECT unnest($1::text[]), 0, $2::text, 0, $2::text ORDER BY 1 ON CONFLICT (chain) DO NOTHING',
    [chains, GENESIS_HASH],
  );
  return (await select()).rows;
}
