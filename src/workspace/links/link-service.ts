import { Prisma, type Link, type LinkFolder, type PrismaClient } from '../../generated/prisma/client.ts';
import { AppError } from '../../errors.ts';
import { decodeCursor, encodeCursor, instantAndId, keysetPage, type Page } from '../../pagination.ts';
import { LIMITS, boundedText, normalizeTags, normalizeUrl, optionalText, searchText } from '../validation.ts';

/** `GET /api/links` / `links`: default and maximum page size. */
/** Folders are listed whole (never paged), so their number per user is capped. */
export const MAX_FOLDERS_PER_USER = 500;
/**
 * Two-key advisory lock space for per-user folder name checks (a two-key lock never collides
 * with the one-key locks of the migrator and the scheduler).
 */
const FOLDER_LOCK_SPACE = 0x4c4e4b46; // "LNKF"

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type LinkFolderWithCount = LinkFolder & { linkCount: number };

export interface LinkListOptions {
  /** Only links in this folder (which must be the caller's: else 404 `Folder not found`). */
  folderId?: string | null;
  /** Only links in no folder (not with folderId). */
  unfiled?: boolean | null;
  /** true: starred only; false: not starred only; absent: all. */
  starred?: boolean | null;
  /** Case-insensitive text the URL, the title or one of the tags must contain. */
  search?: string | null;
  limit: number;
  cursor?: string | null;
}

export interface CreateLinkInput {
  url: string;
  title?: string | null;
  folderId?: string | null;
  tags?: readonly string[] | null;
  starred?: boolean | null;
}

/** Absent (undefined) fields are left alone; `folderId: null` moves the link out of its folder, `title: null` clears it. */
export interface UpdateLinkInput {
  url?: string | null;
  title?: string | null;
  folderId?: string | null;
  tags?: readonly string[] | null;
  starred?: boolean | null;
}

export type LinkPage = Page<Link>;

/** Where a page resumes after this link (newest first: createdAt, then id, both descending). */
export function linkCursor(link: Pick<Link, 'createdAt' | 'id'>): string {
  return encodeCursor({ createdAt: link.createdAt.toISOString(), id: link.id });
}

/**
 * Links and link folders, always confined to one user (`userId` is the caller's; another user's
 * record is indistinguishable from a missing one). Knows nothing about HTTP or GraphQL.
 * The service stores URLs; it never fetches them.
 */
export class LinkService {
  constructor(private readonly prisma: PrismaClient) {}

  async list(userId: string, options: LinkListOptions): Promise<LinkPage> {
    if (options.folderId && options.unfiled) throw AppError.badInput('unfiled', 'cannot be combined with folderId');
    if (options.folderId) await this.requireFolder(this.prisma, userId, options.folderId);
    const after = options.cursor ? decodeLinkCursor(options.cursor) : null;
    const search = searchText(options.search);
    const rows = await this.prisma.link.findMany({
      where: {
        userId,
        ...(search
          ? {
              AND: [
                {
                  OR: [
                    { url: { contains: search, mode: 'insensitive' } },
                    { title: { contains: search, mode: 'insensitive' } },
                    { tags: { has: search.toLowerCase() } },
                  ],
                },
              ],
            }
          : {}),
        ...(options.folderId ? { folderId: options.folderId } : options.unfiled ? { folderId: null } : {}),
        ...(options.starred === true || options.starred === false ? { starred: options.starred } : {}),
        ...(after ? { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] } : {}),
      },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: options.limit + 1,
    });
    return keysetPage(rows, options.limit, linkCursor);
  }

  /** How many links the user has: in all, in no folder, starred. */
  async counts(userId: string): Promise<{ total: number; unfiled: number; starred: number }> {
    const [total, unfiled, starred] = await Promise.all([
      this.prisma.link.count({ where: { userId } }),
      this.prisma.link.count({ where: { userId, folderId: null } }),
      this.prisma.link.count({ where: { userId, starred: true } }),
    ]);
    return { total, unfiled, starred };
  }

  async get(userId: string, id: string): Promise<Link> {
    const link = await this.prisma.link.findFirst({ where: { id, userId } });
    if (!link) throw AppError.notFound('Link');
    return link;
  }

  async create(userId: string, input: CreateLinkInput): Promise<Link> {
    const url = normalizeUrl(input.url, 'url');
    const title = optionalText(input.title, 'title', LIMITS.titleLength);
    const tags = normalizeTags(input.tags, 'tags');
    const starred = input.starred ?? false;
    const folderId = input.folderId ?? null;
    if (folderId) await this.requireFolder(this.prisma, userId, folderId);
    try {
      return await this.prisma.link.create({ data: { userId, url, title, tags, starred, folderId } });
    } catch (error) {
      throw folderGone(error) ?? error;
    }
  }

  async update(userId: string, id: string, input: UpdateLinkInput): Promise<Link> {
    const existing = await this.get(userId, id);
    const data: Prisma.LinkUncheckedUpdateInput = {};
    if (input.url !== undefined) {
      if (input.url === null) throw AppError.badInput('url', 'must not be null');
      const url = normalizeUrl(input.url, 'url');
      if (url !== existing.url) data.url = url;
    }
    if (input.title !== undefined) {
      const title = optionalText(input.title, 'title', LIMITS.titleLength);
      if (title !== existing.title) data.title = title;
    }
    if (input.tags !== undefined) {
      const tags = normalizeTags(input.tags, 'tags');
      if (tags.join('\n') !== existing.tags.join('\n')) data.tags = tags;
    }
    if (input.starred !== undefined) {
      if (input.starred === null) throw AppError.badInput('starred', 'must be true or false');
      if (input.starred !== existing.starred) data.starred = input.starred;
    }
    if (input.folderId !== undefined && input.folderId !== existing.folderId) {
      if (input.folderId !== null) await this.requireFolder(this.prisma, userId, input.folderId);
      data.folderId = input.folderId;
    }
    // Nothing changes: the record as it is (updatedAt untouched).
    if (Object.keys(data).length === 0) return existing;
    try {
      return await this.prisma.link.update({ where: { id: existing.id, userId }, data });
    } catch (error) {
      if (isPrismaError(error, 'P2025')) throw AppError.notFound('Link');
      throw folderGone(error) ?? error;
    }
  }

  /** A plain (hard) delete. */
  async delete(userId: string, id: string): Promise<void> {
    const { count } = await this.prisma.link.deleteMany({ where: { id, userId } });
    if (count === 0) throw AppError.notFound('Link');
  }

  /** All of the user's folders in case-insensitive name order, each with its number of links. */
  async listFolders(userId: string): Promise<LinkFolderWithCount[]> {
    const folders = await this.prisma.linkFolder.findMany({
      where: { userId },
      include: { _count: { select: { links: true } } },
    });
    return folders.map(({ _count, ...folder }) => ({ ...folder, linkCount: _count.links })).sort(compareFolders);
  }

  /** Names are unique per user, case-insensitively: 409 `A folder named "x" already exists`. */
  async createFolder(userId: string, name: string): Promise<LinkFolderWithCount> {
    const clean = folderName(name);
    return this.withFolderLock(userId, async (tx) => {
      const existing = await tx.linkFolder.findMany({ where: { userId }, select: { id: true, name: true } });
      if (existing.length >= MAX_FOLDERS_PER_USER) throw AppError.conflict(`A user may have at most ${MAX_FOLDERS_PER_USER} folders`);
      assertNameFree(existing, clean);
      const folder = await tx.linkFolder.create({ data: { userId, name: clean } });
      return { ...folder, linkCount: 0 };
    });
  }

  async renameFolder(userId: string, id: string, name: string): Promise<LinkFolderWithCount> {
    const clean = folderName(name);
    return this.withFolderLock(userId, async (tx) => {
      const folder = await this.requireFolder(tx, userId, id);
      const existing = await tx.linkFolder.findMany({ where: { userId, id: { not: id } }, select: { id: true, name: true } });
      assertNameFree(existing, clean);
      const renamed = folder.name === clean ? folder : await tx.linkFolder.update({ where: { id }, data: { name: clean } });
      const linkCount = await tx.link.count({ where: { userId, folderId: id } });
      return { ...renamed, linkCount };
    });
  }

  /**
   * Deletes the folder; its links stay and move out of it (`folderId` becomes null: the foreign
   * key's ON DELETE SET NULL). Returns how many links were moved out.
   */
  async deleteFolder(userId: string, id: string): Promise<{ movedLinks: number }> {
    return this.prisma.$transaction(async (tx) => {
      const movedLinks = await tx.link.count({ where: { userId, folderId: id } });
      const { count } = await tx.linkFolder.deleteMany({ where: { id, userId } });
      if (count === 0) throw AppError.notFound('Folder');
      return { movedLinks };
    });
  }

  private async requireFolder(client: Prisma.TransactionClient | PrismaClient, userId: string, folderId: string): Promise<LinkFolder> {
    const folder = await client.linkFolder.findFirst({ where: { id: folderId, userId } });
    if (!folder) throw AppError.notFound('Folder');
    return folder;
  }

  /**
   * Folder creates and renames of one user run one at a time (a transaction-scoped advisory
   * lock), so the case-insensitive name check cannot race; the database's exact unique index
   * (userId, name) backs it up.
   */
  private async withFolderLock<T>(userId: string, work: (tx: Prisma.TransactionClient) => Promise<T>): Promise<T> {
    try {
      return await this.prisma.$transaction(async (tx) => {
        await tx.$queryRaw`SELECT 1 FROM pg_advisory_xact_lock(${FOLDER_LOCK_SPACE}::int, hashtext(${userId}))`;
        return work(tx);
      });
    } catch (error) {
      if (isPrismaError(error, 'P2002')) throw AppError.conflict('A folder with this name already exists');
      throw error;
    }
  }
}

function folderName(name: string): string {
  const clean = boundedText(name, 'name', LIMITS.nameLength);
  if (/[\u0000-\u001f\u007f]/.test(clean)) throw AppError.badInput('name', 'must not contain control characters');
  return clean;
}

function assertNameFree(existing: { name: string }[], name: string): void {
  const lower = name.toLowerCase();
  if (existing.some((folder) => folder.name.toLowerCase() === lower)) throw AppError.conflict(`A folder named "${name}" already exists`);
}

function compareFolders(a: LinkFolder, b: LinkFolder): number {
  const byLower = compareText(a.name.toLowerCase(), b.name.toLowerCase());
  return byLower !== 0 ? byLower : compareText(a.name, b.name) || compareText(a.id, b.id);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function decodeLinkCursor(cursor: string): { createdAt: Date; id: string } {
  const { at, id } = decodeCursor(cursor, instantAndId('createdAt', 'id'), 'endpoint');
  return { createdAt: at, id };
}

function isPrismaError(error: unknown, code: string): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === code;
}

/** The folder was deleted between the ownership check and the write (foreign key violation). */
function folderGone(error: unknown): AppError | undefined {
  return isPrismaError(error, 'P2003') ? AppError.notFound('Folder') : undefined;
}
