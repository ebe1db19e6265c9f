import { Prisma, type PrismaClient, type Sticky, type StickyVersion } from '../../generated/prisma/client.ts';
import type { SqlClient } from '../../db/sql-client.ts';
import type { Logger } from '../../log.ts';
import { AppError } from '../../errors.ts';
import { boundedText, LIMITS, normalizeTags, searchText } from '../validation.ts';
import { decodeCursor, encodeCursor, instantAndId, keysetPage, type Page } from '../../pagination.ts';

export type { Sticky, StickyVersion };

/** Trashed stickies older than this are purged, unless STICKY_TRASH_RETENTION_DAYS says otherwise. */
export const DEFAULT_TRASH_RETENTION_DAYS = 30;
/** How often the app runs `purgeExpired` (also once at start). */
export const PURGE_INTERVAL_MS = 3_600_000;

const DAY_MS = 86_400_000;
/** A write whose precondition keeps flipping under concurrent writers gives up after this many tries. */
const MAX_ATTEMPTS = 5;

export interface ListStickiesOptions {
  /** A sticky matches when it carries EVERY one of these tags (normalised like stored tags). */
  tags?: readonly string[] | null;
  /** Include stickies in the trash (default false: active ones only). */
  includeDeleted?: boolean | null;
  /** Only stickies in the trash (wins over includeDeleted). */
  trashedOnly?: boolean | null;
  /** Case-insensitive text the content or one of the tags must contain. */
  search?: string | null;
  limit: number;
  cursor?: string | null;
}

export interface CreateStickyInput {
  content: string;
  tags?: readonly string[] | null;
}

export interface UpdateStickyInput {
  content?: string | null;
  tags?: readonly string[] | null;
}

export interface StickyServiceOptions {
  prisma: PrismaClient;
  /** the pg pool, for the list (the hottest read: one statement through the driver, not Prisma) */
  sql: SqlClient;
  trashRetentionDays?: number;
  log?: Logger;
}

/**
 * Per-user sticky notes with a trash (`deletedAt`) and an immutable version history.
 *
 * Every create, update, delete and restore appends a StickyVersion in the same transaction as the
 * change, numbered by `Sticky.version`. Each write is ONE SQL statement: an
 * `UPDATE "Sticky" SET version = version + 1 ... WHERE <the change applies> RETURNING *` whose
 * result a data-modifying CTE inserts as the version. The UPDATE takes the row lock; a concurrent
 * writer of the same sticky waits for it and then re-checks its WHERE against the newest row
 * (PostgreSQL, READ COMMITTED), so every change builds on the latest version and gets the next
 * number: none is lost, skipped or shared. (On the embedded database statements are serialised
 * anyway.) A single statement also holds PGlite's one session for one round trip only, where an
 * interactive transaction would hold it across several.
 *
 * An update that changes nothing (same content, same set of normalised tags) writes nothing: no
 * version, `updatedAt` unchanged.
 *
 * Every method takes the owner's `userId`; another user's sticky is indistinguishable from a
 * missing one (`Sticky not found`).
 */
export class StickyService {
  private readonly prisma: PrismaClient;
  private readonly sql: SqlClient;
  readonly trashRetentionDays: number;
  private readonly log?: Logger;

  constructor(options: StickyServiceOptions) {
    this.prisma = options.prisma;
    this.sql = options.sql;
    this.trashRetentionDays = options.trashRetentionDays ?? DEFAULT_TRASH_RETENTION_DAYS;
    this.log = options.log;
  }

  /** The user's stickies, most recently updated first (ties: id descending). */
  async list(userId: string, options: ListStickiesOptions): Promise<Page<Sticky>> {
    const tags = filterTags(options.tags);
    const search = searchText(options.search);
    const after = options.cursor ? decodeStickyCursor(options.cursor) : null;
    const deleted = options.trashedOnly ? 'trashed' : options.includeDeleted ? 'any' : 'active';
    const { rows } = await this.sql.query<Sticky>(STICKY_LIST_SQL, [
      userId,
      deleted,
      search ? `%${escapeLike(search)}%` : null,
      search ? search.toLowerCase() : null,
      tags.length > 0 ? tags : null,
      after?.updatedAt ?? null,
      after?.id ?? null,
      options.limit + 1,
    ]);
    return keysetPage(rows, options.limit, stickyCursor);
  }

  /** The tags on the user's active stickies with how many carry each, most used first (then by name). */
  async tagsInUse(userId: string, limit: number): Promise<{ tag: string; count: number }[]> {
    return this.prisma.$queryRaw<{ tag: string; count: number }[]>`
      SELECT tag, count(*)::int AS count FROM "Sticky", unnest(tags) AS tag
      WHERE "userId" = ${userId}::uuid AND "deletedAt" IS NULL
      GROUP BY tag ORDER BY count DESC, tag LIMIT ${limit}`;
  }

  /** One sticky, whether active or in the trash. */
  async get(userId: string, id: string): Promise<Sticky> {
    const sticky = await this.prisma.sticky.findFirst({ where: { id, userId } });
    if (!sticky) throw AppError.notFound('Sticky');
    return sticky;
  }

  async create(userId: string, input: CreateStickyInput): Promise<Sticky> {
    const content = validContent(input.content);
    const tags = normalizeTags(input.tags ?? []);
    const rows = await this.prisma.$queryRaw<Sticky[]>`
      WITH created AS (
        INSERT INTO "Sticky" (id, "userId", content, tags, version, "createdAt", "updatedAt")
        VALUES (gen_random_uuid(), ${userId}::uuid, ${content}, ${tags}::text[], 1, statement_timestamp(), statement_timestamp())
        RETURNING *
      ), recorded AS (
        INSERT INTO "StickyVersion" (id, "stickyId", version, action, content, tags, "createdAt")
        SELECT gen_random_uuid(), id, version, 'create'::"StickyAction", content, tags, "updatedAt" FROM created
      )
      SELECT ${STICKY_COLUMNS} FROM created`;
    return rows[0]!;
  }

  /** Changes content and/or tags. A sticky in the trash must be restored first (409). */
  async update(userId: string, id: string, input: UpdateStickyInput): Promise<Sticky> {
    if (input.content === undefined && input.tags === undefined) {
      throw new AppError('BAD_USER_INPUT', 'Nothing to update: give content, tags or both', { field: 'content' });
    }
    if (input.content === null) throw AppError.badInput('content', 'must not be null; leave it out to keep the current content');
    if (input.tags === null) throw AppError.badInput('tags', 'must not be null; send [] to remove every tag');
    const content = input.content === undefined ? null : validContent(input.content);
    const tags = input.tags === undefined ? null : normalizeTags(input.tags);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
      const rows = await this.prisma.$queryRaw<Sticky[]>`
        WITH changed AS (
          UPDATE "Sticky"
             SET content = COALESCE(${content}, content), tags = COALESCE(${tags}::text[], tags),
                 version = version + 1, "updatedAt" = ${NOW}
           WHERE id = ${id}::uuid AND "userId" = ${userId}::uuid AND "deletedAt" IS NULL
             AND (content <> COALESCE(${content}, content)
                  OR NOT (COALESCE(tags, '{}') @> COALESCE(${tags}::text[], tags, '{}') AND COALESCE(tags, '{}') <@ COALESCE(${tags}::text[], tags, '{}')))
          RETURNING *
        ), recorded AS (
          INSERT INTO "StickyVersion" (id, "stickyId", version, action, content, tags, "createdAt")
          SELECT gen_random_uuid(), id, version, 'update'::"StickyAction", content, tags, "updatedAt" FROM changed
        )
        SELECT ${STICKY_COLUMNS} FROM changed`;
      if (rows[0]) return rows[0];
      // Nothing was written: say why, from the sticky as it is now.
      const current = await this.get(userId, id);
      if (current.deletedAt) throw AppError.conflict('Sticky is in the trash; restore it first');
      if ((content ?? current.content) === current.content && sameTags(tags ?? current.tags, current.tags)) return current;
      // Restored by someone else since the UPDATE looked: apply the change to the restored sticky.
    }
    throw changedConcurrently();
  }

  /** Moves the sticky to the trash (sets `deletedAt`); 409 when it is already there. */
  async delete(userId: string, id: string): Promise<Sticky> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
      const rows = await this.prisma.$queryRaw<Sticky[]>`
        WITH changed AS (
          UPDATE "Sticky" SET "deletedAt" = ${NOW}, "updatedAt" = ${NOW}, version = version + 1
           WHERE id = ${id}::uuid AND "userId" = ${userId}::uuid AND "deletedAt" IS NULL
          RETURNING *
        ), recorded AS (
          INSERT INTO "StickyVersion" (id, "stickyId", version, action, content, tags, "createdAt")
          SELECT gen_random_uuid(), id, version, 'delete'::"StickyAction", content, tags, "updatedAt" FROM changed
        )
        SELECT ${STICKY_COLUMNS} FROM changed`;
      if (rows[0]) return rows[0];
      if ((await this.get(userId, id)).deletedAt) throw AppError.conflict('Sticky is already in the trash');
    }
    throw changedConcurrently();
  }

  /** Takes the sticky out of the trash; 409 when it is not in the trash. */
  async restore(userId: string, id: string): Promise<Sticky> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
      const rows = await this.prisma.$queryRaw<Sticky[]>`
        WITH changed AS (
          UPDATE "Sticky" SET "deletedAt" = NULL, "updatedAt" = ${NOW}, version = version + 1
           WHERE id = ${id}::uuid AND "userId" = ${userId}::uuid AND "deletedAt" IS NOT NULL
          RETURNING *
        ), recorded AS (
          INSERT INTO "StickyVersion" (id, "stickyId", version, action, content, tags, "createdAt")
          SELECT gen_random_uuid(), id, version, 'restore'::"StickyAction", content, tags, "updatedAt" FROM changed
        )
        SELECT ${STICKY_COLUMNS} FROM changed`;
      if (rows[0]) return rows[0];
      if (!(await this.get(userId, id)).deletedAt) throw AppError.conflict('Sticky is not in the trash');
    }
    throw changedConcurrently();
  }

  /** The sticky's history, newest version first. */
  async versions(userId: string, id: string, options: { limit: number; cursor?: string | null }): Promise<Page<StickyVersion>> {
    const before = options.cursor ? decodeVersionCursor(options.cursor) : null;
    const owned = await this.prisma.sticky.findFirst({ where: { id, userId }, select: { id: true } });
    if (!owned) throw AppError.notFound('Sticky');
    const rows = await this.prisma.stickyVersion.findMany({
      where: { stickyId: id, ...(before !== null ? { version: { lt: before } } : {}) },
      orderBy: { version: 'desc' },
      take: options.limit + 1,
    });
    return keysetPage(rows, options.limit, versionCursor);
  }

  /** When a sticky trashed at `deletedAt` is purged. */
  purgeAt(deletedAt: Date): Date {
    return new Date(deletedAt.getTime() + this.trashRetentionDays * DAY_MS);
  }

  /**
   * Deletes (for every user) the stickies that have been in the trash for longer than the
   * retention period at `now`, with their versions. Returns how many were purged.
   */
  async purgeExpired(now: Date = new Date()): Promise<number> {
    const cutoff = new Date(now.getTime() - this.trashRetentionDays * DAY_MS);
    const { count } = await this.prisma.sticky.deleteMany({ where: { deletedAt: { lte: cutoff } } });
    if (count > 0) this.log?.info({ count, retentionDays: this.trashRetentionDays }, 'purged expired stickies from the trash');
    return count;
  }

  /** Runs `purgeExpired` now and then every `intervalMs`; call the returned function to stop. */
  startPurging(intervalMs: number = PURGE_INTERVAL_MS): () => void {
    let stopped = false;
    const run = async () => {
      if (stopped) return;
      try {
        await this.purgeExpired();
      } catch (error) {
        if (!stopped) this.log?.warn({ err: error }, 'sticky trash purge failed; will retry');
      }
    };
    void run();
    const timer = setInterval(() => void run(), intervalMs);
    timer.unref();
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }
}

/**
 * The time of a change: the database's statement time (one value for the whole statement), but
 * never before the sticky's previous `updatedAt`, so that `updatedAt` and the versions' times
 * never go backwards when a writer that started earlier got the row lock later.
 */
const NOW = Prisma.raw('GREATEST(statement_timestamp(), "updatedAt")');

/** The columns of a Sticky row, in the model's order (raw statements return them). */
const STICKY_COLUMNS = Prisma.raw('id, "userId", content, tags, version, "deletedAt", "createdAt", "updatedAt"');

function changedConcurrently(): AppError {
  return AppError.conflict('Sticky was changed concurrently; try again');
}

function validContent(content: string): string {
  return boundedText(content, 'content', LIMITS.stickyContentLength);
}

/** Tags are a set: the same tags in another order are no change. */
function sameTags(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const set = new Set(b);
  return a.every((tag) => set.has(tag));
}

/** A filter's tags, normalised like stored tags; empty entries (`tags=a,,b`, `tags=`) are ignored. */
function filterTags(tags: readonly string[] | null | undefined): string[] {
  return normalizeTags((tags ?? []).filter((tag) => tag.trim() !== ''));
}

export function stickyCursor(sticky: Pick<Sticky, 'id' | 'updatedAt'>): string {
  return encodeCursor({ u: sticky.updatedAt.toISOString(), id: sticky.id });
}

export function versionCursor(version: Pick<StickyVersion, 'version'>): string {
  return encodeCursor({ v: version.version });
}

function decodeStickyCursor(cursor: string): { updatedAt: Date; id: string } {
  const { at, id } = decodeCursor(cursor, instantAndId('u', 'id'), 'list');
  return { updatedAt: at, id };
}

function decodeVersionCursor(cursor: string): number {
  return decodeCursor(cursor, ({ v }) => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 1 ? v : undefined), 'list');
}

/**
 * A page of a user's stickies, newest change first. Search: the content contains the text (case-
 * insensitive, LIKE wildcards escaped) or a tag equals it lowercased; tags: every one of them.
 */
export const STICKY_LIST_SQL = `
SELECT id, "userId", content, tags, version, "deletedAt", "createdAt", "updatedAt"
  FROM "Sticky"
 WHERE "userId" = $1::uuid
   AND CASE $2::text WHEN 'trashed' THEN "deletedAt" IS NOT NULL WHEN 'active' THEN "deletedAt" IS NULL ELSE true END
   AND ($3::text IS NULL OR content ILIKE $3::text ESCAPE '\\' OR $4::text = ANY(tags))
   AND ($5::text[] IS NULL OR tags @> $5::text[])
   AND ($6::timestamptz IS NULL OR ("updatedAt", id) < ($6::timestamptz, $7::uuid))
 ORDER BY "updatedAt" DESC, id DESC
 LIMIT $8`;

/** `text` as a LIKE pattern matching itself (no wildcards). */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}
