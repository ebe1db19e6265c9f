/**
 * The audit log's writer: callers hand it events (record) and go on; it writes them in batches,
 * in the background, each batch in one transaction that extends the chains it touches
 * (hash-chain.ts). The queue is bounded (AUDIT_QUEUE_MAX): while it is full, a mutation waits for
 * room before it runs (whenRoom, the pipeline's back-pressure) rather than anything being dropped.
 * close() writes everything queued (a clean shutdown loses nothing); a crash loses what was queued
 * and not yet written: at most the last AUDIT_FLUSH_INTERVAL (250 ms) and the batch in flight.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { DatabaseKind } from '../db/database.ts';
import type { Logger } from '../log.ts';
import { canonicalJson, GENESIS_HASH, hashedTextOf, hashOfText, isoTime, type HashedFields } from './hash-chain.ts';
import { NO_ORGANIZATION_CHAIN, type AuditEventInput } from './types.ts';
import { NO_LABELS, type OperationLabels } from './operation-labels.ts';

/** What the writer needs of the database: a pool it checks connections out of (a COPY goes through one). */
export type AuditPool = Pick<pg.Pool, 'query' | 'connect'>;

export interface AuditRecorderOptions {
  pool: AuditPool;
  /**
   * The database behind the pool (Database.kind). PostgreSQL takes batches with COPY (its text
   * format costs the database half what a JSON parameter does: measured); the embedded database
   * has no COPY FROM STDIN over its socket, and takes each batch in one statement (audit_append).
   */
  database: DatabaseKind;
  /**
   * The embedded database's data directory on this machine (Database.embeddedDataDir). Given, the
   * writer leaves each batch there in COPY's text format and the database COPYs it
   * (audit_append_file: about half of what audit_append's INSERT costs PGlite, on the service's
   * own thread; measured). Without it (or when the database cannot read the file), audit_append.
   */
  embeddedDataDir?: string;
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
  private readonly copy: boolean;
  /** Where the embedded database reads this writer's batches (audit_append_file); undefined: audit_append. */
  private spool: Spool | undefined;
  /** Batches appended each way since start (the tests read it). */
  readonly appended = { file: 0, statement: 0, locked: 0 };
  /** Events written since start (the benchmark and tests read it). */
  written = 0;
  readonly labels: OperationLabels;

  constructor(private readonly options: AuditRecorderOptions) {
    this.batchSize = options.batchSize ?? 500;
    this.copy = options.database === 'postgresql';
    this.labels = options.labels ?? NO_LABELS;
    if (!this.copy && options.embeddedDataDir) {
      const name = `${randomUUID()}.tsv`;
      const dir = path.join(options.embeddedDataDir, SPOOL_FOLDER);
      this.spool = { dir, name, file: path.join(dir, name), ready: false };
    }
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
   * Appends a batch from the heads this writer left, when it wrote every chain of the batch last:
   * on PostgreSQL in a transaction that moves the heads only if they are still there and COPYs
   * the events; on the embedded database in one statement, which does the same (audit_append_file,
   * COPY from a file the writer leaves in the database's data directory; else audit_append).
   * For a chain it has not written, or whose head someone else moved, in a transaction that locks
   * and reads the heads first.
   */
  private async write(batch: Queued[]): Promise<void> {
    const resolved = await resolveReferences(this.options.pool, batch, this.prefixes);
    const rows = batch.map((queued) => toRow(queued, resolved));
    const chains = [...new Set(rows.map((row) => row.chain))].sort();
    const known = chains.every((chain) => this.heads.has(chain));
    if (known && !this.copy) {
      try {
        if (this.spool) {
          this.remember(await this.appendFromFile(this.spool, rows));
          this.appended.file++;
        } else {
          this.remember(await appendFromHeads(this.options.pool, rows, this.heads));
          this.appended.statement++;
        }
        return;
      } catch (error) {
        if (!headMoved(error)) throw error;
        for (const chain of chains) this.heads.delete(chain);
      }
    }
    const client = await this.options.pool.connect();
    try {
      await client.query('BEGIN');
      let heads = known && this.copy ? await copyFromHeads(client, rows, this.heads) : undefined;
      if (!heads) {
        if (known && this.copy) {
          // Another writer moved a head: nothing was written; start again from the locked heads.
          for (const chain of chains) this.heads.delete(chain);
          await client.query('ROLLBACK');
          await client.query('BEGIN');
        }
        heads = await appendToChains(client, rows, this.copy);
      }
      await client.query('COMMIT');
      client.release();
      this.remember(heads);
      if (!known || !this.copy) this.appended.locked++;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      client.release(error instanceof Error ? error : true);
      throw error;
    }
  }

  /**
   * The embedded database's append: the batch in COPY's text format in a file of the spool folder
   * (in the database's data directory), appended by audit_append_file from the heads this writer
   * left (40001 and nothing written when someone else moved one), the file removed. When the
   * database cannot read the file (its data directory is not this machine's, or not writable),
   * audit_append from then on.
   */
  private async appendFromFile(spool: Spool, rows: Row[]): Promise<Map<string, Head>> {
    const { data, moved } = hashBatch(rows, this.heads, true);
    const [names, seqs, hashes] = headColumns(moved);
    try {
      if (!spool.ready) await prepareSpool(spool.dir);
      spool.ready = true;
      await fs.writeFile(spool.file, data);
    } catch (error) {
      return this.withoutSpool(error, rows);
    }
    try {
      await this.options.pool.query('SELECT "audit_append_file"($1, $2::text[], $3::bigint[], $4::bigint[], $5::text[])', [
        spool.name,
        names,
        names.map((chain) => this.heads.get(chain)!.seq),
        seqs,
        hashes,
      ]);
      return moved;
    } catch (error) {
      if (!FILE_UNREADABLE.has((error as { code?: string }).code ?? '')) throw error;
      return this.withoutSpool(error, rows);
    } finally {
      await fs.rm(spool.file, { force: true }).catch(() => undefined);
    }
  }

  private withoutSpool(error: unknown, rows: Row[]): Promise<Map<string, Head>> {
    this.options.log.warn({ err: error }, 'the embedded database cannot read the audit batch files; appending with audit_append instead');
    this.spool = undefined;
    return appendFromHeads(this.options.pool, rows, this.heads);
  }

  private remember(heads: Map<string, Head>): void {
    if (this.heads.size + heads.size > REMEMBERED_HEADS) this.heads.clear();
    for (const [chain, head] of heads) this.heads.set(chain, head);
  }
}

/** A writer's batch file for the embedded database: `file` is `dir`/`name`, `name` a UUID (audit_append_file reads no other). */
interface Spool {
  dir: string;
  name: string;
  file: string;
  ready: boolean;
}

/** The folder of the embedded database's data directory that audit_append_file reads. */
const SPOOL_FOLDER = 'audit-spool';

/** What the database says when it cannot read the file: undefined_file, insufficient_privilege, undefined_function. */
const FILE_UNREADABLE = new Set(['58P01', '42501', '42883']);

/** A batch file older than this was left by a writer that stopped mid-write (its events were never appended). */
const STALE_SPOOL_MS = 10 * 60_000;

/** Makes the spool folder, and removes the files a crashed writer left in it. */
async function prepareSpool(dir: string): Promise<void> {
  await fs.mkdir(dir, { recursive: true });
  const now = Date.now();
  for (const name of await fs.readdir(dir)) {
    const file = path.join(dir, name);
    const stat = await fs.stat(file).catch(() => undefined);
    if (stat && now - stat.mtimeMs > STALE_SPOOL_MS) await fs.rm(file, { force: true }).catch(() => undefined);
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

/** An event on its way to the database: its seq is set when the batch is hashed (hashBatch). */
type Row = HashedFields;

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
    seq: 0,
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
 * An event is stored as exactly the canonical JSON its hash covers, so what PostgreSQL gives back
 * verifies. PostgreSQL's text and jsonb take neither NUL nor a lone UTF-16 surrogate, and one such
 * character would fail its whole batch again and again: JSON writes either as an escape (\u0000,
 * \ud800-\udfff), so when the hashed text has one (rare; a false alarm only costs the slow path)
 * each is replaced by U+FFFD (storable) and the text written again.
 */
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
type Client = Queryable & Pick<pg.PoolClient, 'query'>;

/**
 * Appends rows to their chains inside the caller's transaction: the heads of the chains are
 * locked (in chain order, so two writers never deadlock), each row gets the next seq and its hash,
 * the rows are inserted and the heads moved. Several instances can write the same chain. Returns
 * the chains' new heads.
 */
async function appendToChains(client: Client, rows: Row[], copy: boolean): Promise<Map<string, Head>> {
  if (rows.length === 0) return new Map();
  const chains = [...new Set(rows.map((row) => row.chain))].sort();
  const heads = new Map((await lockHeads(client, chains)).map((row) => [row.chain, { seq: Number(row.seq), hash: row.hash }]));
  const { data, moved } = hashBatch(rows, heads, copy);
  const [names, seqs, hashes] = headColumns(moved);
  if (copy) {
    await copyRows(client, data);
    await client.query(
      'UPDATE "AuditChain" AS c SET seq = h.seq, hash = h.hash FROM unnest($1::text[], $2::bigint[], $3::text[]) AS h(chain, seq, hash) WHERE c.chain = h.chain',
      [names, seqs, hashes],
    );
    return moved;
  }
  // The events and the chains' new heads in one statement: each statement is a round trip, and on
  // the embedded database a costly one.
  await client.query(
    `WITH events AS (
       INSERT INTO "AuditEvent" (${EVENT_COLUMNS}) SELECT ${EVENT_COLUMNS} FROM json_to_recordset($1::json) AS e(${EVENT_RECORD})
     )
     UPDATE "AuditChain" AS c SET seq = h.seq, hash = h.hash FROM unnest($2::text[], $3::bigint[], $4::text[]) AS h(chain, seq, hash) WHERE c.chain = h.chain`,
    [data, names, seqs, hashes],
  );
  return moved;
}

/**
 * Appends rows in one statement from heads the writer remembers (audit_append: the heads move only
 * if they are still there, else SQLSTATE 40001 and nothing changes). Returns the new heads.
 */
async function appendFromHeads(pool: Queryable, rows: Row[], expected: ReadonlyMap<string, Head>): Promise<Map<string, Head>> {
  const { data, moved } = hashBatch(rows, expected, false);
  const [names, seqs, hashes] = headColumns(moved);
  await pool.query('SELECT "audit_append"($1::json, $2::text[], $3::bigint[], $4::bigint[], $5::text[])', [
    data,
    names,
    names.map((chain) => expected.get(chain)!.seq),
    seqs,
    hashes,
  ]);
  return moved;
}

/**
 * The same on PostgreSQL, inside the caller's transaction: the heads move only if they are still
 * where this writer left them (one UPDATE, which locks them), then the rows are COPYed. Undefined,
 * with nothing written, when someone else moved a head (the caller rolls back and locks and reads
 * the heads instead).
 */
async function copyFromHeads(client: Client, rows: Row[], expected: ReadonlyMap<string, Head>): Promise<Map<string, Head> | undefined> {
  const { data, moved } = hashBatch(rows, expected, true);
  const [names, seqs, hashes] = headColumns(moved);
  const updated = await client.query(
    `UPDATE "AuditChain" AS c SET seq = h.seq, hash = h.hash
       FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::text[]) AS h(chain, expected_seq, seq, hash)
      WHERE c.chain = h.chain AND c.seq = h.expected_seq`,
    [names, names.map((chain) => expected.get(chain)!.seq), seqs, hashes],
  );
  if (updated.rowCount !== names.length) return undefined;
  await copyRows(client, data);
  return moved;
}

/** Sends the batch's COPY text (hashBatch) and waits until PostgreSQL has taken it. */
async function copyRows(client: Pick<pg.PoolClient, 'query'>, data: string): Promise<void> {
  const stream = client.query(copyFrom(`COPY "AuditEvent" (${EVENT_COLUMNS}) FROM STDIN`));
  stream.end(data);
  await finished(stream);
}

/** The chains' names, seqs and hashes as three arrays (the parameters of an unnest), in chain order. */
function headColumns(moved: Map<string, Head>): [string[], number[], string[]] {
  const names = [...moved.keys()].sort();
  return [names, names.map((chain) => moved.get(chain)!.seq), names.map((chain) => moved.get(chain)!.hash)];
}

function headMoved(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '40001';
}

/**
 * Each row's seq and hash from its chain's head, and the batch as the database takes it. Each event
 * is serialised once, as the text its hash covers, its time and variables written once for both:
 * - `copy`: a line of COPY's text format (tab-separated, backslash-escaped, \N for null), the
 *   variables as their canonical JSON (about half of what the database spends on a JSON batch;
 *   measured);
 * - else: the text its hash covers with its hash added, an element of one JSON array (read by
 *   json_to_recordset: a quarter cheaper for the database than jsonb_to_recordset, which first
 *   builds the whole batch as jsonb; measured).
 * Returns that text and the chains' new heads.
 */
function hashBatch(rows: Row[], heads: ReadonlyMap<string, Head>, copy: boolean): { data: string; moved: Map<string, Head> } {
  const moved = new Map<string, Head>();
  const parts = new Array<string>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    let event = rows[i];
    const chain = event.chain;
    let head = moved.get(chain);
    if (!head) moved.set(chain, (head = { ...heads.get(chain)! }));
    event.seq = head.seq + 1;
    const occurredAt = isoTime(event.occurredAt);
    let variables = canonicalJson(event.variables ?? null);
    let text = hashedTextOf(event, occurredAt, variables);
    // JSON writes a backslash for each backslash, tab, newline, carriage return, NUL and lone
    // surrogate: without one (most events) there is nothing to replace or escape.
    const plain = !text.includes('\\');
    if (!plain && UNSTORABLE_ESCAPE.test(text)) {
      event = storable(event);
      variables = canonicalJson(event.variables);
      text = hashedTextOf(event, occurredAt, variables);
    }
    const hash = hashOfText(head.hash, text);
    head.seq = event.seq;
    head.hash = hash;
    parts[i] = copy ? copyLine(event, occurredAt, variables, hash, plain ? plainText : copyText) : `${text.slice(0, -1)},"hash":"${hash}"}`;
  }
  return { data: copy ? parts.join('') : `[${parts.join(',')}]`, moved };
}

/**
 * An event as a line of COPY's text format, its columns in EVENT_COLUMNS order; `escape` writes
 * each text (plainText when the event's JSON showed there is nothing to escape).
 */
function copyLine(event: HashedFields, occurredAt: string, variables: string, hash: string, escape: (value: string | null) => string): string {
  return `${escape(event.id)}\t${escape(event.chain)}\t${event.seq}\t${occurredAt}\t${escape(event.organizationId)}\t${escape(event.actorId)}\t${escape(
    event.credentialKind,
  )}\t${escape(event.credentialId)}\t${escape(event.credentialPrefix)}\t${escape(event.front)}\t${escape(event.operation)}\t${escape(
    event.targetType,
  )}\t${escape(event.targetId)}\t${escape(event.outcome)}\t${escape(event.clientAddress)}\t${escape(event.userAgent)}\t${escape(
    event.requestId,
  )}\t${escape(event.traceId)}\t${variables === 'null' ? NULL_TEXT : escape(variables)}\t${hash}\n`;
}

/**
 * A value in COPY's text format: \N for null; backslash, tab, newline and carriage return escaped
 * (every other character stands for itself; NUL, which COPY cannot take, was replaced before).
 */
function copyText(value: string | null): string {
  if (value === null) return NULL_TEXT;
  return COPY_SPECIAL.test(value) ? value.replace(COPY_SPECIALS, (char) => COPY_ESCAPES[char]) : value;
}

/** A value with nothing to escape in COPY's text format. */
function plainText(value: string | null): string {
  return value ?? NULL_TEXT;
}

const NULL_TEXT = '\\N';
const COPY_SPECIAL = /[\\\t\n\r]/;
const COPY_SPECIALS = /[\\\t\n\r]/g;
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

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
