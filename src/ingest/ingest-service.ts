/**
 * Ingest of an uploaded file: parse, validate every row, load idempotently, recompute returns.
 * Four file types (FILE_TYPES): `pnl` and `performance` are per account (entity) and date; `fx`
 * (exchange rates) and `benchmark` (index levels) are series of the organization, per currency
 * pair or benchmark and date, and recompute nothing.
 *
 * File statuses
 *   uploaded   -> the upload stored the blob, created the row and queued an `ingest` job
 *   processing -> a worker is ingesting it (also while a failed attempt waits for its retry)
 *   processed  -> every row was loaded and the affected daily returns recomputed (rowCount, processedAt;
 *                 statusDetail "Loaded N rows for M entities" / "currency pairs" / "benchmarks")
 *   failed     -> nothing was loaded; statusDetail says why and FileRowError holds the row errors
 *
 * Warnings (a processed file only): rows that loaded but count in no return. A cash flow dated on
 *   or before its entity's earliest valuation (over every file of the organization, as stored once
 *   this file is loaded) has no begin value to apply it to: no sub-period (d0, d1] contains it. Same
 *   for a flow of an entity that has no valuation at all. Such flows are still stored (they are in
 *   the file and cash-transactions lists them), but each is recorded as a warning with its line,
 *   column `cash_flow` and a message, in the same transaction: `warningCount` counts them all, the
 *   first 1000 (by line) are stored in FileRowWarning. Every ingest of a file replaces its warnings.
 *   A flow after the entity's last valuation is not a warning: the next valuation makes it count.
 *   The check is as of this ingest: a later file that adds an earlier valuation makes the flow count
 *   (its recompute covers it) but does not revise this file's warnings; ingesting again does.
 *
 * Failure policy: all or nothing per file.
 *   A file with any row error, or a FileFormatError (bad header, broken quoting, empty file), is
 *   `failed` as a whole and NOTHING of it is loaded. Every error is counted (`errorCount`) and the
 *   first 1000 are stored in FileRowError with line, column (null for a whole-row or whole-file
 *   problem; line 0 when a whole-file problem has no line) and message, ordered by line.
 *   Besides the parser's checks (csv-formats/) a row error is raised when an entity_name is
 *   already used by another account_code of the organization (entities are unique by name and by
 *   code per organization; to swap names between accounts, rename in two uploads), and when a pnl
 *   file gives an existing entity another `currency` than the stored one (reported on the first
 *   row that gives it: changing it would silently reinterpret every stored value of the entity).
 *   Infrastructure errors (database, storage) are not the file's fault: ingestFile throws, the
 *   worker retries the job with backoff, and only when the attempts are used up is the file marked
 *   failed (`markFailed`). A missing blob fails the file at once.
 *
 * Idempotency: a file is authoritative for the (account, date) pairs it contains.
 *   - Entity: upserted by (orgId, accountCode); the file's entity_name replaces the stored one. A
 *     new entity takes the file's currency (pnl `currency`; USD when none is given); an existing
 *     one keeps its own (a different one is a row error, above).
 *   - pnl, valuations: upserted by (entity, date) (INSERT .. ON CONFLICT DO UPDATE).
 *   - pnl, cash flows: for every (entity, date) present in the file, on any row, the stored
 *     CashTransaction rows of that (entity, date) are deleted and the file's flows inserted. So
 *     re-uploading the same file changes nothing, and a corrected file replaces the flows of the
 *     dates it contains (a flow removed from a date the file still has is removed); dates the file
 *     does not mention are left alone. A stored flow records its effective timing (the default
 *     convention resolved at load: inflows start of day, outflows end of day) and its flowType
 *     (external unless the file says fee or income).
 *   - performance: custodian returns upserted by (entity, date).
 *   - fx: FxRate upserted by (orgId, base, quote, date); benchmark: BenchmarkLevel upserted by
 *     (orgId, benchmark, date); both with sourceFileId and sourceLine of the row that wrote them.
 *   Valuations are never deleted by a file.
 *
 * Atomicity and speed: one pool client, one transaction (BEGIN .. COMMIT) for the whole load,
 *   the recompute and the `processed` status, so a crash at any point leaves no half-imported
 *   data and no returns that disagree with their inputs (the job is retried and starts afresh).
 *   Rows are parsed as a stream and written in multi-row statements of `batchSize` rows
 *   (unnest of arrays: a fixed handful of parameters per statement), so memory holds one batch
 *   plus small per-file indexes, never the file. The transaction starts before parsing; at the
 *   first row error it is rolled back at once and the rest of the file is only validated (no
 *   transaction held). A per-organization advisory transaction lock serialises two ingests of the
 *   same organization (several workers on PostgreSQL), so recomputed returns always see every
 *   committed input.
 *   Daily returns are recomputed inside the same transaction, per affected entity, from the last
 *   valuation before the earliest date the file touched (src/returns/recompute.ts).
 *
 *   On the embedded PGlite database every connection shares one session: while the load
 *   transaction is open, other connections wait. This service therefore uses nothing but its own
 *   client while the transaction is open (never Prisma or the pool).
 */
import type pg from 'pg';
import type { Logger } from '../log.ts';
import { DEFAULT_MATCH_THRESHOLD_BPS, DEFAULT_REVIEW_THRESHOLD_BPS, defaultTiming } from '../returns/dietz.ts';
import { recomputeDailyReturns } from '../returns/recompute.ts';
import { lockOrganizationReturns } from '../returns/returns-lock.ts';
import { bumpDeferredVersion, deferVersionBump, organizationScope } from '../cache/data-versions.ts';
import { inSpan } from '../tracing/jobs.ts';
import { recordedThresholds, refreshReconciliation, type InvestigateChange, type Thresholds } from '../returns/reconciliation.ts';
import { refreshLatestValuations } from '../returns/latest-valuation.ts';
import { pgArray } from '../db/sql-client.ts';
import {
  FileFormatError,
  parseBenchmarkLevels,
  parseFx,
  parsePerformance,
  parsePnl,
  type BenchmarkRow,
  type FileType,
  type FxRow,
  type ParseItem,
  type PerformanceRow,
  type PnlRow,
  type RowError,
} from './csv-formats/index.ts';

export const MAX_STORED_ROW_ERRORS = 1000;
export const MAX_STORED_ROW_WARNINGS = 1000;

export type IngestStatus = 'processed' | 'failed' | 'skipped';

export interface IngestResult {
  fileId: string;
  status: IngestStatus;
  /** data rows read (valid and invalid) */
  rowCount: number;
  errorCount: number;
  /** rows loaded that count in no return (processed files only) */
  warningCount: number;
  entities: number;
  /** daily return rows written by the recompute */
  dailyReturns: number;
  detail: string | null;
  timings: { loadMs: number; recomputeMs: number; totalMs: number };
  /** Per account, the comparison rows this load made `investigate` (new or changed); processed files only. */
  investigate?: InvestigateChange[];
}

export interface BatchInfo {
  fileId: string;
  /** 1-based */
  batch: number;
  rows: number;
}

export interface IngestServiceDeps {
  pool: Pick<pg.Pool, 'connect' | 'query'>;
  blobs: IngestBlobs;
  log: Logger;
  /** rows per multi-row statement (default 1000) */
  batchSize?: number;
  /** valuations per daily-return computation window (default: recompute.ts's default) */
  recomputeWindowSize?: number;
  /** called after each batch is written, inside the load transaction (tests simulate crashes here) */
  onBatch?: (info: BatchInfo) => void | Promise<void>;
  /**
   * Refresh planner statistics after a file of at least this many rows is loaded (0: after every
   * load; undefined: never). Right after a large load the planner still has the old row estimates
   * (or none) until autovacuum gets to the tables, and picks plans that are orders of magnitude
   * slower; the embedded database has no autovacuum at all. ANALYZE samples a fixed number of rows
   * per table, so it costs about the same whatever the table's size.
   */
  analyzeAfterRows?: number;
  /** the service-wide comparison thresholds, for an organization's first reconciliation (default 1 and 10 bps) */
  comparisonThresholds?: Thresholds;
}

/** What the ingest worker needs. */
/** What the ingest reads from the blob store (src/storage/blob-store.ts's BlobStore has it; ingest does not import storage). */
export interface IngestBlobs {
  exists(key: string): Promise<boolean>;
  get(key: string): NodeJS.ReadableStream;
}

export interface FileIngester {
  ingestFile(fileId: string): Promise<IngestResult>;
  markFailed(fileId: string, detail: string): Promise<void>;
  /** Records why an attempt failed while the file waits for its retry (status stays `processing`). */
  markRetrying?(fileId: string, detail: string): Promise<void>;
}

interface FileRecord {
  id: string;
  orgId: string;
  fileType: FileType;
  blobKey: string;
  status: string;
}

export class IngestService implements FileIngester {
  private readonly pool: IngestServiceDeps['pool'];
  private readonly blobs: IngestBlobs;
  private readonly log: Logger;
  private readonly batchSize: number;
  private readonly onBatch: IngestServiceDeps['onBatch'];
  private readonly recomputeWindowSize: number | undefined;

  private readonly analyzeAfterRows: number | undefined;
  private readonly comparisonThresholds: Thresholds;

  constructor(deps: IngestServiceDeps) {
    this.pool = deps.pool;
    this.blobs = deps.blobs;
    this.log = deps.log;
    this.batchSize = deps.batchSize ?? 1000;
    this.onBatch = deps.onBatch;
    this.recomputeWindowSize = deps.recomputeWindowSize;
    this.analyzeAfterRows = deps.analyzeAfterRows;
    this.comparisonThresholds = deps.comparisonThresholds ?? { matchBps: DEFAULT_MATCH_THRESHOLD_BPS, reviewBps: DEFAULT_REVIEW_THRESHOLD_BPS };
  }

  async ingestFile(fileId: string): Promise<IngestResult> {
    const started = Date.now();
    const { rows } = await this.pool.query<FileRecord>(
      `SELECT id, "orgId", "fileType"::text AS "fileType", "blobKey", status::text AS status FROM "UploadedFile" WHERE id = $1`,
      [fileId],
    );
    const file = rows[0];
    const skipped = (detail: string): IngestResult => ({
      fileId,
      status: 'skipped',
      rowCount: 0,
      errorCount: 0,
      warningCount: 0,
      entities: 0,
      dailyReturns: 0,
      detail,
      timings: { loadMs: 0, recomputeMs: 0, totalMs: Date.now() - started },
    });
    if (!file) return skipped('file not found (deleted?)');
    // A job delivered again after the load committed (crash between COMMIT and job completion).
    if (file.status === 'processed') return skipped('already processed');

    await this.pool.query(
      `UPDATE "UploadedFile" SET status = 'processing', "statusDetail" = NULL, "rowCount" = NULL, "errorCount" = 0,
              "warningCount" = 0, "processedAt" = NULL, "updatedAt" = now() WHERE id = $1`,
      [fileId],
    );
    await this.pool.query(`DELETE FROM "FileRowError" WHERE "fileId" = $1`, [fileId]);
    await this.pool.query(`DELETE FROM "FileRowWarning" WHERE "fileId" = $1`, [fileId]);

    if (!(await this.blobs.exists(file.blobKey))) {
      const detail = 'The stored file is missing from blob storage; upload it again';
      await this.markFailed(fileId, detail);
      this.log.error({ fileId, blobKey: file.blobKey }, 'ingest: blob missing');
      return { ...skipped(detail), status: 'failed' };
    }

    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      const run = new IngestRun(
        client,
        file,
        { batchSize: this.batchSize, onBatch: this.onBatch, windowSize: this.recomputeWindowSize, thresholds: this.comparisonThresholds },
        started,
      );
      const result = await run.execute(this.blobs.get(file.blobKey));
      this.log.info(result, `ingest: file ${result.status}`);
      if (result.status === 'processed' && this.analyzeAfterRows !== undefined && result.rowCount >= this.analyzeAfterRows) {
        await this.refreshStatistics(client, fileId, file.fileType);
      }
      return result;
    } catch (error) {
      broken = error instanceof Error ? error : new Error(String(error));
      throw error;
    } finally {
      // a client that failed mid-transaction is destroyed rather than reused
      client.release(broken);
    }
  }

  /**
   * The load has committed by now, so a failure here must not fail the job (a retry would find the
   * file processed and skip it anyway): it is logged and autovacuum catches up later.
   */
  private async refreshStatistics(client: pg.PoolClient, fileId: string, fileType: FileType): Promise<void> {
    try {
      await client.query(`ANALYZE ${ANALYZED_TABLES[fileType]}`);
    } catch (error) {
      this.log.warn({ fileId, err: error instanceof Error ? error.message : String(error) }, 'ingest: ANALYZE after the load failed');
    }
  }

  /** Marks a file failed without loading anything (retries used up, blob missing). Never touches a processed file. */
  async markFailed(fileId: string, detail: string): Promise<void> {
    await this.pool.query(
      `UPDATE "UploadedFile" SET status = 'failed', "statusDetail" = $2, "processedAt" = now(), "updatedAt" = now()
        WHERE id = $1 AND status <> 'processed'`,
      [fileId, detail.slice(0, 2000)],
    );
  }

  async markRetrying(fileId: string, detail: string): Promise<void> {
    await this.pool.query(`UPDATE "UploadedFile" SET "statusDetail" = $2, "updatedAt" = now() WHERE id = $1 AND status = 'processing'`, [
      fileId,
      detail.slice(0, 2000),
    ]);
  }
}

/** The tables a file type writes (or whose statistics its recompute changes), for ANALYZE after a large load. */
const ANALYZED_TABLES: Record<FileType, string> = {
  pnl: '"Entity", "Valuation", "CashTransaction", "CustodianReturn", "DailyReturn", "Reconciliation"',
  performance: '"Entity", "Valuation", "CashTransaction", "CustodianReturn", "DailyReturn", "Reconciliation"',
  fx: '"FxRate"',
  benchmark: '"BenchmarkLevel"',
};

interface AccountState {
  entityName: string;
  /** first line of the account in the file (entity errors are reported there) */
  line: number;
  /** the currency the file gives the account (pnl `currency`), null while no row has given one */
  currency: string | null;
  /** first line that gave `currency` (a currency error is reported there) */
  currencyLine: number;
  /** set once upserted in the current transaction */
  entityId?: string;
  /** checked against the organization's other entities */
  checked: boolean;
  /**
   * The entity's currency as stored before this file, read when the account is checked:
   * null when the organization had no entity of this account (the file creates it); undefined
   * while not read yet.
   */
  storedCurrency?: string | null;
}

type AccountRow = PnlRow | PerformanceRow;
type AnyRow = AccountRow | FxRow | BenchmarkRow;

function isAccountRow(row: AnyRow): row is AccountRow {
  return 'accountCode' in row;
}

/** The error of an account whose stored entity is in another currency than the file gives. */
function currencyConflict(code: string, account: AccountState): RowError | null {
  const stored = account.storedCurrency;
  if (account.currency === null || stored === undefined || stored === null || stored === account.currency) return null;
  return {
    line: account.currencyLine,
    column: 'currency',
    message: `entity ${JSON.stringify(account.entityName)} (account ${code}) is in ${stored}: a file cannot change its currency (this file gives ${account.currency})`,
  };
}

/** A validated YYYY-MM-DD as the number yyyymmdd (a small set key). */
function dayKey(date: string): number {
  return Number(date.slice(0, 4)) * 10_000 + Number(date.slice(5, 7)) * 100 + Number(date.slice(8, 10));
}

/** One ingest attempt of one file on one client. */
class IngestRun {
  private inTransaction = false;
  private loading = true;
  private batch: AnyRow[] = [];
  private batchNumber = 0;
  private readonly errors: RowError[] = [];
  private errorCount = 0;
  private validRows = 0;
  private invalidRows = 0;
  private lastInvalidLine = -1;
  private formatError: FileFormatError | null = null;
  private readonly accounts = new Map<string, AccountState>();
  /** currency pairs (fx) or benchmarks (benchmark) of the file's valid rows, for the status detail */
  private readonly series = new Set<string>();
  /** entityId -> earliest date the file touched */
  private readonly touched = new Map<string, string>();
  /** entityId -> earliest custodian return date the file wrote */
  private readonly custodianFrom = new Map<string, string>();
  /** entityId -> days (yyyymmdd numbers) whose stored flows were already replaced in this load */
  private replacedFlowDays = new Map<string, Set<number>>();

  constructor(
    private readonly client: pg.PoolClient,
    private readonly file: FileRecord,
    private readonly options: { batchSize: number; onBatch: IngestServiceDeps['onBatch']; windowSize: number | undefined; thresholds: Thresholds },
    private readonly started: number,
  ) {}

  async execute(source: NodeJS.ReadableStream): Promise<IngestResult> {
    try {
      await this.begin();
      await this.parseAndLoad(source);
      if (this.loading && this.batch.length > 0) await this.flush();
      this.replacedFlowDays = new Map(); // not needed any more: free it before the recompute
      const loadMs = Date.now() - this.started;

      if (this.loading) return await this.commitProcessed(loadMs);
      return await this.recordFailure(loadMs);
    } catch (error) {
      if (this.inTransaction) await this.client.query('ROLLBACK').catch(() => {});
      this.inTransaction = false;
      throw error;
    } finally {
      // stop reading the blob if we left early
      (source as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
    }
  }

  /** Streams the file through its parser, validating every row and loading batches while there is no error. */
  private async parseAndLoad(source: NodeJS.ReadableStream): Promise<void> {
    const items = parserOf(this.file.fileType)(source);
    try {
      for await (const item of items) {
        if ('error' in item) {
          if (item.error.line !== this.lastInvalidLine) {
            this.invalidRows++;
            this.lastInvalidLine = item.error.line;
          }
          await this.addError(item.error);
          continue;
        }
        const row = item.row;
        this.validRows++;
        if (isAccountRow(row)) {
          const conflict = this.noteAccount(row);
          if (conflict) await this.addError(conflict);
        } else this.series.add('benchmark' in row ? row.benchmark : `${row.base}/${row.quote}`);
        if (!this.loading) continue;
        this.batch.push(row);
        if (this.batch.length >= this.options.batchSize) await this.flush();
      }
    } catch (error) {
      if (!(error instanceof FileFormatError)) throw error;
      this.formatError = error;
      await this.addError({ line: error.line ?? 0, column: null, message: error.message });
    }
  }

  /**
   * Records a valid row's account, and the currency its rows give; the currency error when the
   * account was checked already and its stored entity is in another currency.
   */
  private noteAccount(row: AccountRow): RowError | null {
    const currency = 'currency' in row ? row.currency : null;
    const account = this.accounts.get(row.accountCode);
    if (!account) {
      this.accounts.set(row.accountCode, { entityName: row.entityName, line: row.line, currency, currencyLine: row.line, checked: false });
      return null;
    }
    // the parser makes every row of an account that gives a currency give the same one: the first is enough
    if (currency === null || account.currency !== null) return null;
    account.currency = currency;
    account.currencyLine = row.line;
    return currencyConflict(row.accountCode, account);
  }

  /** The load's transaction, under the organization's returns lock. */
  private async begin(): Promise<void> {
    await this.openTransaction();
    await lockOrganizationReturns(this.client, this.file.orgId);
  }

  /**
   * Each transaction of a load bumps its organization's data version as its last statement
   * instead of with its first write (deferVersionBump): the version's row is then held for a
   * moment, not for the whole load, so other writers of the organization (an upload, new
   * thresholds) do not wait for the load, and one that locked the file's row first (a second load
   * of the same file) cannot deadlock with it.
   */
  private async openTransaction(): Promise<void> {
    await this.client.query('BEGIN');
    this.inTransaction = true;
    await deferVersionBump(this.client, organizationScope(this.file.orgId));
  }

  private async commit(): Promise<void> {
    await bumpDeferredVersion(this.client, organizationScope(this.file.orgId));
    await this.client.query('COMMIT');
    this.inTransaction = false;
  }

  /** Counts an error, stores the first 1000, and abandons the load at the first one. */
  private async addError(error: RowError): Promise<void> {
    this.errorCount++;
    if (this.errors.length < MAX_STORED_ROW_ERRORS) this.errors.push(error);
    if (this.loading) {
      this.loading = false;
      this.batch = [];
      if (this.inTransaction) {
        this.inTransaction = false;
        await this.client.query('ROLLBACK');
      }
      for (const account of this.accounts.values()) delete account.entityId; // rolled back
    }
  }

  private async flush(): Promise<void> {
    const rows = this.batch;
    this.batch = [];
    switch (this.file.fileType) {
      case 'pnl':
        if (!(await this.resolveEntities(rows as PnlRow[]))) return;
        await this.writePnl(rows as PnlRow[]);
        break;
      case 'performance':
        if (!(await this.resolveEntities(rows as PerformanceRow[]))) return;
        await this.writePerformance(rows as PerformanceRow[]);
        break;
      case 'fx':
        await this.writeFx(rows as FxRow[]);
        break;
      case 'benchmark':
        await this.writeBenchmarkLevels(rows as BenchmarkRow[]);
        break;
    }
    this.batchNumber++;
    await this.options.onBatch?.({ fileId: this.file.id, batch: this.batchNumber, rows: rows.length });
  }

  private entityIdOf(row: AccountRow): string {
    return this.accounts.get(row.accountCode)!.entityId!;
  }

  /**
   * Upserts the batch's new accounts as entities (one statement), after checking that no other
   * account of the organization already has their entity_name and that an existing entity is not
   * given another currency. False when a check failed (the errors are recorded and loading has
   * stopped). A new entity gets the file's currency, USD when the file gives none (yet: a later
   * row that gives one sets it at commit, `setCreatedCurrencies`); an existing one keeps its own.
   */
  private async resolveEntities(rows: readonly AccountRow[]): Promise<boolean> {
    const pending = new Map<string, AccountState>();
    for (const row of rows) {
      const account = this.accounts.get(row.accountCode)!;
      if (account.entityId === undefined) pending.set(row.accountCode, account);
    }
    if (pending.size === 0) return true;
    const codes = [...pending.keys()];
    const names = codes.map((code) => pending.get(code)!.entityName);
    if (!(await this.checkEntities(codes))) return false;
    const currencies = codes.map((code) => pending.get(code)!.currency);
    const { rows: upserted } = await this.client.query<{ id: string; accountCode: string }>(
      `INSERT INTO "Entity" (id, "orgId", "accountCode", "entityName", currency, "createdAt")
       SELECT gen_random_uuid(), $1::uuid, t.code, t.name, coalesce(t.currency, 'USD'), now()
         FROM unnest($2::text[], $3::text[], $4::text[]) AS t(code, name, currency)
       ON CONFLICT ("orgId", "accountCode") DO UPDATE SET "entityName" = EXCLUDED."entityName"
       RETURNING id, "accountCode"`,
      [this.file.orgId, pgArray(codes), pgArray(names), pgArray(currencies)],
    );
    for (const { id, accountCode } of upserted) this.accounts.get(accountCode)!.entityId = id;
    return true;
  }

  /**
   * Checks accounts against the organization's stored entities: row errors for entity names held
   * by another account, and for an existing entity the file gives another currency (its stored
   * currency is remembered: a currency a later row gives is checked against it at once).
   */
  private async checkEntities(codes: string[]): Promise<boolean> {
    const names = codes.map((code) => this.accounts.get(code)!.entityName);
    const { rows: conflicts } = await this.client.query<{ code: string; otherCode: string; name: string }>(
      `SELECT t.code, e."accountCode" AS "otherCode", e."entityName" AS name
         FROM "Entity" e JOIN unnest($2::text[], $3::text[]) AS t(code, name)
           ON e."entityName" = t.name AND e."accountCode" <> t.code
        WHERE e."orgId" = $1::uuid`,
      [this.file.orgId, pgArray(codes), pgArray(names)],
    );
    const { rows: stored } = await this.client.query<{ code: string; currency: string }>(
      `SELECT "accountCode" AS code, currency FROM "Entity" WHERE "orgId" = $1::uuid AND "accountCode" = ANY($2::text[])`,
      [this.file.orgId, pgArray(codes)],
    );
    const storedCurrency = new Map(stored.map((row) => [row.code, row.currency]));
    const errors: RowError[] = [];
    for (const code of codes) {
      const account = this.accounts.get(code)!;
      account.checked = true;
      account.storedCurrency = storedCurrency.get(code) ?? null;
      const conflict = currencyConflict(code, account);
      if (conflict) errors.push(conflict);
    }
    for (const c of conflicts) {
      errors.push({
        line: this.accounts.get(c.code)!.line,
        column: 'entity_name',
        message: `entity_name ${JSON.stringify(c.name)} is already used by account ${c.otherCode} in this organization`,
      });
    }
    if (errors.length === 0) return true;
    errors.sort((a, b) => a.line - b.line);
    for (const error of errors) await this.addError(error);
    return false;
  }

  /**
   * Entities this load created before any row of theirs gave a currency (so with USD) take the
   * currency a later row gave. One statement; only entities that did not exist before the file.
   */
  private async setCreatedCurrencies(): Promise<void> {
    const ids: string[] = [];
    const currencies: string[] = [];
    for (const account of this.accounts.values()) {
      if (account.storedCurrency === null && account.currency !== null && account.entityId !== undefined) {
        ids.push(account.entityId);
        currencies.push(account.currency);
      }
    }
    if (ids.length === 0) return;
    await this.client.query(`UPDATE "Entity" e SET currency = t.c FROM unnest($1::uuid[], $2::text[]) AS t(id, c) WHERE e.id = t.id AND e.currency <> t.c`, [
      pgArray(ids),
      pgArray(currencies),
    ]);
  }

  private touch(entityId: string, date: string): void {
    const earliest = this.touched.get(entityId);
    if (earliest === undefined || date < earliest) this.touched.set(entityId, date);
  }

  private async writePnl(rows: readonly PnlRow[]): Promise<void> {
    const valuation = { entity: [] as string[], date: [] as string[], value: [] as string[] };
    const replace = { entity: [] as string[], date: [] as string[] };
    const flow = {
      entity: [] as string[],
      date: [] as string[],
      amount: [] as string[],
      timing: [] as string[],
      type: [] as string[],
      description: [] as (string | null)[],
      line: [] as number[],
    };
    for (const row of rows) {
      const entityId = this.entityIdOf(row);
      this.touch(entityId, row.date);
      if (row.marketValue !== null) {
        valuation.entity.push(entityId);
        valuation.date.push(row.date);
        valuation.value.push(row.marketValue);
      }
      let days = this.replacedFlowDays.get(entityId);
      if (!days) this.replacedFlowDays.set(entityId, (days = new Set()));
      const day = dayKey(row.date);
      if (!days.has(day)) {
        days.add(day);
        replace.entity.push(entityId);
        replace.date.push(row.date);
      }
      if (row.cashFlow !== null) {
        flow.entity.push(entityId);
        flow.date.push(row.date);
        flow.amount.push(row.cashFlow);
        flow.timing.push(row.flowTiming ?? defaultTiming(row.cashFlow));
        flow.type.push(row.flowType ?? 'external');
        flow.description.push(row.description);
        flow.line.push(row.line);
      }
    }
    const fileId = this.file.id;
    if (valuation.entity.length > 0) {
      await this.client.query(
        `INSERT INTO "Valuation" (id, "entityId", date, "marketValue", "sourceFileId")
         SELECT gen_random_uuid(), t.e, t.d, t.v, $1::uuid FROM unnest($2::uuid[], $3::date[], $4::numeric[]) AS t(e, d, v)
         ON CONFLICT ("entityId", date) DO UPDATE SET "marketValue" = EXCLUDED."marketValue", "sourceFileId" = EXCLUDED."sourceFileId"`,
        [fileId, pgArray(valuation.entity), pgArray(valuation.date), pgArray(valuation.value)],
      );
    }
    if (replace.entity.length > 0) {
      await this.client.query(
        `DELETE FROM "CashTransaction" c USING unnest($1::uuid[], $2::date[]) AS t(e, d)
          WHERE c."entityId" = t.e AND c.date = t.d`,
        [pgArray(replace.entity), pgArray(replace.date)],
      );
    }
    if (flow.entity.length > 0) {
      await this.client.query(
        `INSERT INTO "CashTransaction" (id, "entityId", date, amount, timing, "flowType", description, "sourceFileId", "sourceLine")
         SELECT gen_random_uuid(), t.e, t.d, t.a, t.tm, t.ft, t.ds, $1::uuid, t.l
           FROM unnest($2::uuid[], $3::date[], $4::numeric[], $5::"FlowTiming"[], $6::"FlowType"[], $7::text[], $8::int[]) AS t(e, d, a, tm, ft, ds, l)`,
        [
          fileId,
          pgArray(flow.entity),
          pgArray(flow.date),
          pgArray(flow.amount),
          pgArray(flow.timing),
          pgArray(flow.type),
          pgArray(flow.description),
          pgArray(flow.line),
        ],
      );
    }
  }

  private async writePerformance(rows: readonly PerformanceRow[]): Promise<void> {
    const entity: string[] = [];
    const date: string[] = [];
    const value: string[] = [];
    for (const row of rows) {
      const entityId = this.entityIdOf(row);
      entity.push(entityId);
      date.push(row.date);
      value.push(row.returnFraction);
      const earliest = this.custodianFrom.get(entityId);
      if (earliest === undefined || row.date < earliest) this.custodianFrom.set(entityId, row.date);
    }
    await this.client.query(
      `INSERT INTO "CustodianReturn" (id, "entityId", date, "returnValue", "sourceFileId")
       SELECT gen_random_uuid(), t.e, t.d, t.r, $1::uuid FROM unnest($2::uuid[], $3::date[], $4::numeric[]) AS t(e, d, r)
       ON CONFLICT ("entityId", date) DO UPDATE SET "returnValue" = EXCLUDED."returnValue", "sourceFileId" = EXCLUDED."sourceFileId"`,
      [this.file.id, pgArray(entity), pgArray(date), pgArray(value)],
    );
  }

  /** Exchange rates, upserted by (organization, base, quote, date); the parser allows one row per key in a file. */
  private async writeFx(rows: readonly FxRow[]): Promise<void> {
    await this.client.query(
      `INSERT INTO "FxRate" ("orgId", base, quote, date, rate, "sourceFileId", "sourceLine")
       SELECT $1::uuid, t.b, t.q, t.d, t.r, $2::uuid, t.l FROM unnest($3::text[], $4::text[], $5::date[], $6::numeric[], $7::int[]) AS t(b, q, d, r, l)
       ON CONFLICT ("orgId", base, quote, date)
       DO UPDATE SET rate = EXCLUDED.rate, "sourceFileId" = EXCLUDED."sourceFileId", "sourceLine" = EXCLUDED."sourceLine"`,
      [
        this.file.orgId,
        this.file.id,
        pgArray(rows.map((r) => r.base)),
        pgArray(rows.map((r) => r.quote)),
        pgArray(rows.map((r) => r.date)),
        pgArray(rows.map((r) => r.rate)),
        pgArray(rows.map((r) => r.line)),
      ],
    );
  }

  /** Benchmark levels, upserted by (organization, benchmark, date); the parser allows one row per key in a file. */
  private async writeBenchmarkLevels(rows: readonly BenchmarkRow[]): Promise<void> {
    await this.client.query(
      `INSERT INTO "BenchmarkLevel" ("orgId", benchmark, date, level, "sourceFileId", "sourceLine")
       SELECT $1::uuid, t.b, t.d, t.v, $2::uuid, t.l FROM unnest($3::text[], $4::date[], $5::numeric[], $6::int[]) AS t(b, d, v, l)
       ON CONFLICT ("orgId", benchmark, date)
       DO UPDATE SET level = EXCLUDED.level, "sourceFileId" = EXCLUDED."sourceFileId", "sourceLine" = EXCLUDED."sourceLine"`,
      [
        this.file.orgId,
        this.file.id,
        pgArray(rows.map((r) => r.benchmark)),
        pgArray(rows.map((r) => r.date)),
        pgArray(rows.map((r) => r.level)),
        pgArray(rows.map((r) => r.line)),
      ],
    );
  }

  /** "Loaded 33 rows for 2 entities", "Loaded 4 rows for 2 currency pairs", "Loaded 20 rows for 1 benchmark". */
  private loadedDetail(): string {
    const rows = `Loaded ${this.validRows} row${this.validRows === 1 ? '' : 's'}`;
    const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
    switch (this.file.fileType) {
      case 'fx':
        return `${rows} for ${count(this.series.size, 'currency pair', 'currency pairs')}`;
      case 'benchmark':
        return `${rows} for ${count(this.series.size, 'benchmark', 'benchmarks')}`;
      default:
        return `${rows} for ${count(this.accounts.size, 'entity', 'entities')}`;
    }
  }

  private async commitProcessed(loadMs: number): Promise<IngestResult> {
    // An empty file (header only) still gets its entities checked: there are none.
    await this.setCreatedCurrencies();
    let dailyReturns = 0;
    const recomputeStarted = Date.now();
    // entityId -> earliest date whose comparison may have changed (null: all of them)
    const reconcileFrom = new Map<string, string | null>(this.custodianFrom);
    const investigate: InvestigateChange[] = [];
    // A span of its own in the job's trace (upload -> ingest -> recompute) while tracing is on.
    await inSpan('ingest.recompute', { 'ingest.file_id': this.file.id, 'ingest.entities': this.touched.size }, async () => {
      for (const [entityId, fromDate] of this.touched) {
        const result = await recomputeDailyReturns(this.client, entityId, fromDate, { windowSize: this.options.windowSize });
        dailyReturns += result.periods;
        reconcileFrom.set(entityId, earlierOf(result.anchorDate, reconcileFrom.get(entityId)));
      }
    });
    await refreshLatestValuations(this.client, [...this.touched.keys()]);
    if (reconcileFrom.size > 0) {
      const thresholds = await recordedThresholds(this.client, this.file.orgId, this.options.thresholds);
      for (const [entityId, fromDate] of reconcileFrom) {
        const change = await refreshReconciliation(this.client, entityId, fromDate, thresholds);
        if (change) investigate.push(change);
      }
    }
    const recomputeMs = Date.now() - recomputeStarted;
    const warningCount = this.file.fileType === 'pnl' ? await this.recordUncountedFlows() : 0;
    const entities = this.accounts.size;
    const detail =
      this.loadedDetail() +
      (this.file.fileType === 'pnl' ? `; ${dailyReturns} daily return${dailyReturns === 1 ? '' : 's'} recomputed` : '') +
      (warningCount > 0
        ? `; ${warningCount} warning${warningCount === 1 ? '' : 's'}: ${warningCount === 1 ? 'a cash flow that counts' : 'cash flows that count'} in no return`
        : '');
    await this.client.query(
      `UPDATE "UploadedFile" SET status = 'processed', "rowCount" = $2, "errorCount" = 0, "warningCount" = $4, "statusDetail" = $3,
              "processedAt" = now(), "updatedAt" = now() WHERE id = $1`,
      [this.file.id, this.validRows, detail, warningCount],
    );
    await this.commit();
    return {
      fileId: this.file.id,
      status: 'processed',
      rowCount: this.validRows,
      errorCount: 0,
      warningCount,
      entities,
      dailyReturns,
      detail,
      timings: { loadMs, recomputeMs, totalMs: Date.now() - this.started },
      investigate,
    };
  }

  /**
   * Warnings for this file's cash flows that count in no return: dated on or before the entity's
   * earliest stored valuation (no begin value to apply them to), or of an entity without any
   * valuation. Runs inside the load transaction, after the load, so "earliest" covers every file
   * of the organization including this one. Stores the first MAX_STORED_ROW_WARNINGS by line and
   * returns how many there are.
   */
  private async recordUncountedFlows(): Promise<number> {
    const entityIds = [...this.touched.keys()];
    if (entityIds.length === 0) return 0;
    const { rows } = await this.client.query<{ line: number; date: string; first: string | null; accountCode: string; total: string }>(
      `WITH firsts AS (
         SELECT e.id AS "entityId", e."accountCode", (SELECT min(v.date) FROM "Valuation" v WHERE v."entityId" = e.id) AS first
           FROM "Entity" e WHERE e.id = ANY($2::uuid[])
       )
       SELECT c."sourceLine" AS line, c.date::text AS date, f.first::text AS first, f."accountCode", count(*) OVER () AS total
         FROM "CashTransaction" c JOIN firsts f ON f."entityId" = c."entityId"
        WHERE c."sourceFileId" = $1::uuid AND (f.first IS NULL OR c.date <= f.first)
        ORDER BY c."sourceLine", c.date
        LIMIT ${MAX_STORED_ROW_WARNINGS}`,
      [this.file.id, pgArray(entityIds)],
    );
    if (rows.length === 0) return 0;
    const messages = rows.map(({ date, first, accountCode }) =>
      first === null
        ? `cash flow on ${date} counts in no return: account ${accountCode} has no valuation to apply it to`
        : date === first
          ? `cash flow on ${date}, the first valuation date of account ${accountCode}, counts in no return: there is no earlier valuation to apply it to`
          : `cash flow on ${date}, before the first valuation (${first}) of account ${accountCode}, counts in no return`,
    );
    await this.client.query(
      `INSERT INTO "FileRowWarning" (id, "fileId", line, "column", message)
       SELECT gen_random_uuid(), $1::uuid, t.l, 'cash_flow', t.m FROM unnest($2::int[], $3::text[]) AS t(l, m)`,
      [this.file.id, pgArray(rows.map((r) => r.line)), pgArray(messages)],
    );
    return Number(rows[0]!.total);
  }

  private async recordFailure(loadMs: number): Promise<IngestResult> {
    // Accounts never checked (seen after loading stopped) are checked now, so the error list is complete.
    const unchecked = [...this.accounts].filter(([, account]) => !account.checked).map(([code]) => code);
    if (unchecked.length > 0 && this.formatError === null) await this.checkEntities(unchecked);
    const stored = [...this.errors].sort((a, b) => a.line - b.line);
    const rowCount = this.validRows + this.invalidRows;
    const first = stored[0];
    const detail = this.formatError
      ? `File rejected, nothing was loaded: ${this.formatError.message}`
      : `File rejected, nothing was loaded: ${this.errorCount} error${this.errorCount === 1 ? '' : 's'} in ${this.file.fileType} rows` +
        (first ? `; first on line ${first.line}${first.column ? ` (${first.column})` : ''}: ${first.message}` : '');
    await this.openTransaction();
    if (stored.length > 0) {
      await this.client.query(
        `INSERT INTO "FileRowError" (id, "fileId", line, "column", message)
         SELECT gen_random_uuid(), $1::uuid, t.l, t.c, t.m FROM unnest($2::int[], $3::text[], $4::text[]) AS t(l, c, m)`,
        [this.file.id, pgArray(stored.map((e) => e.line)), pgArray(stored.map((e) => e.column)), pgArray(stored.map((e) => e.message))],
      );
    }
    await this.client.query(
      `UPDATE "UploadedFile" SET status = 'failed', "rowCount" = $2, "errorCount" = $3, "statusDetail" = $4,
              "processedAt" = now(), "updatedAt" = now() WHERE id = $1`,
      [this.file.id, rowCount, this.errorCount, detail.slice(0, 2000)],
    );
    await this.commit();
    return {
      fileId: this.file.id,
      status: 'failed',
      rowCount,
      errorCount: this.errorCount,
      warningCount: 0,
      entities: this.accounts.size,
      dailyReturns: 0,
      detail,
      timings: { loadMs, recomputeMs: 0, totalMs: Date.now() - this.started },
    };
  }
}

/** The earlier of two dates where null means "from the beginning" and undefined "nothing yet". */
function earlierOf(a: string | null, b: string | null | undefined): string | null {
  if (b === undefined) return a;
  if (a === null || b === null) return null;
  return a < b ? a : b;
}

/** The parser of a file type. */
function parserOf(fileType: FileType): (source: NodeJS.ReadableStream) => AsyncIterable<ParseItem<AnyRow>> {
  switch (fileType) {
    case 'pnl':
      return parsePnl;
    case 'performance':
      return parsePerformance;
    case 'fx':
      return parseFx;
    case 'benchmark':
      return parseBenchmarkLevels;
  }
}
