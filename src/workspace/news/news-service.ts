import { Prisma, type NewsArticle, type PrismaClient } from '../../generated/prisma/client.ts';
import { AppError } from '../../errors.ts';
import { decodeCursor, encodeCursor, instantAndId, keysetPage, type Page } from '../../pagination.ts';
import { LIMITS, boundedText, normalizeTags, normalizeUrl, optionalText } from '../validation.ts';
import { parseIsoWeek } from './iso-week.ts';
import { escapeLike } from '../../util/like.ts';

/** `GET /api/news` / `newsArticles`: default and maximum page size. */
/** How far in the future `publishedAt` may lie (clock skew, embargoed items). */
export const MAX_FUTURE_MS = 24 * 60 * 60 * 1000;
const EARLIEST_PUBLISHED = Date.UTC(1970, 0, 1);
/** The digest: newest articles kept per tag / source group, groups per list, and overall top list. */
export const DIGEST_TOP_PER_GROUP = 5;
export const DIGEST_MAX_GROUPS = 50;
export const DIGEST_TOP_ARTICLES = 10;
const DEFAULT_DIGEST_DAYS = 7;

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const DUPLICATE_URL_MESSAGE = 'An article with this url already exists';

export interface CreateNewsArticleInput {
  title: string;
  url: string;
  source: string;
  summary?: string | null;
  body?: string | null;
  tags?: readonly string[] | null;
  /** Default: now. At most one day in the future. */
  publishedAt?: Date | null;
}

export interface NewsListOptions {
  /** Articles carrying this tag (normalised like stored tags); blank = no filter. */
  tag?: string | null;
  /** Articles from this source, case-insensitively; blank = no filter. */
  source?: string | null;
  limit: number;
  cursor?: string | null;
}

export type NewsPage = Page<NewsArticle>;

export interface DigestTagGroup {
  tag: string;
  count: number;
  top: NewsArticle[];
}

export interface DigestSourceGroup {
  /** The spelling of the group's newest article (sources are grouped case-insensitively). */
  source: string;
  count: number;
  top: NewsArticle[];
}

export interface NewsDigest {
  periodStart: Date;
  /** Exclusive. */
  periodEnd: Date;
  /** The ISO week asked for, or null for the default (the last seven days). */
  week: string | null;
  totalArticles: number;
  byTag: DigestTagGroup[];
  bySource: DigestSourceGroup[];
  topArticles: NewsArticle[];
}

/** Where a page resumes after this article (newest published first: publishedAt, then id, descending). */
export function newsCursor(article: Pick<NewsArticle, 'publishedAt' | 'id'>): string {
  return encodeCursor({ publishedAt: article.publishedAt.toISOString(), id: article.id });
}

/**
 * The URL an article is stored and de-duplicated under: normalizeUrl (lower-case scheme and host,
 * default port dropped, path percent-encoded) without the `#fragment`, which never names a
 * different article.
 */
export function articleUrl(value: string): string {
  const url = new URL(normalizeUrl(value, 'url'));
  url.hash = '';
  return url.toString();
}

/** News articles of one user; knows nothing about HTTP or GraphQL and never fetches a URL. */
export class NewsService {
  constructor(private readonly prisma: PrismaClient) {}

  async create(userId: string, input: CreateNewsArticleInput, now: Date = new Date()): Promise<NewsArticle> {
    const data = {
      userId,
      title: boundedText(input.title, 'title', LIMITS.titleLength),
      url: articleUrl(input.url),
      source: sourceName(input.source),
      summary: optionalText(input.summary, 'summary', LIMITS.summaryLength),
      body: optionalText(input.body, 'body', LIMITS.articleBodyLength),
      tags: normalizeTags(input.tags, 'tags'),
      publishedAt: publishedAt(input.publishedAt, now),
    };
    try {
      return await this.prisma.newsArticle.create({ data });
    } catch (error) {
      // The unique index (userId, url) decides, so two concurrent posts of one URL cannot both win.
      if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') throw AppError.conflict(DUPLICATE_URL_MESSAGE);
      throw error;
    }
  }

  async get(userId: string, id: string): Promise<NewsArticle> {
    const article = await this.prisma.newsArticle.findFirst({ where: { id, userId } });
    if (!article) throw AppError.notFound('News article');
    return article;
  }

  async list(userId: string, options: NewsListOptions): Promise<NewsPage> {
    const tag = options.tag?.trim() ? normalizeTags([options.tag], 'tag')[0] : undefined;
    const source = options.source?.trim() ? sourceName(options.source) : undefined;
    const after = options.cursor ? decodeNewsCursor(options.cursor) : null;
    const rows = await this.prisma.newsArticle.findMany({
      where: {
        userId,
        ...(tag ? { tags: { has: tag } } : {}),
        // Prisma renders an insensitive `equals` as ILIKE: escape its wildcards.
        ...(source ? { source: { equals: escapeLike(source), mode: 'insensitive' as const } } : {}),
        ...(after ? { OR: [{ publishedAt: { lt: after.publishedAt } }, { publishedAt: after.publishedAt, id: { lt: after.id } }] } : {}),
      },
      orderBy: [{ publishedAt: 'desc' }, { id: 'desc' }],
      take: options.limit + 1,
    });
    return keysetPage(rows, options.limit, newsCursor);
  }

  /**
   * The weekly digest, computed in SQL over the period's articles (by `publishedAt`, start
   * inclusive, end exclusive): the exact count of articles, per tag and per source (sources
   * case-insensitively) the exact count and the newest DIGEST_TOP_PER_GROUP articles, the
   * DIGEST_MAX_GROUPS largest groups of each kind (ties by name), and the newest
   * DIGEST_TOP_ARTICLES articles overall. "Top" means most recently published (ties: id).
   * Default period: the seven days ending now; `week` (`2026-W47`) picks that ISO week in UTC.
   */
  async digest(userId: string, options: { week?: string | null } = {}, now: Date = new Date()): Promise<NewsDigest> {
    const period =
      options.week != null
        ? parseIsoWeek(options.week, 'week')
        : { week: null, start: new Date(now.getTime() - DEFAULT_DIGEST_DAYS * 24 * 60 * 60 * 1000), end: now };
    const { start, end } = period;
    const inPeriod = Prisma.sql`a."userId" = ${userId}::uuid AND a."publishedAt" >= ${start}::timestamptz AND a."publishedAt" < ${end}::timestamptz`;

    return this.prisma.$transaction(
      async (tx) => {
        const [{ total }] = await tx.$queryRaw<{ total: number }[]>`SELECT count(*)::int AS total FROM "NewsArticle" a WHERE ${inPeriod}`;

        const tagGroups = await tx.$queryRaw<{ tag: string; count: number }[]>`
          SELECT t.tag, count(*)::int AS count
            FROM "NewsArticle" a CROSS JOIN LATERAL unnest(a.tags) AS t(tag)
           WHERE ${inPeriod}
           GROUP BY t.tag
           ORDER BY count DESC, t.tag COLLATE "C"
           LIMIT ${DIGEST_MAX_GROUPS}`;
        const tagTop =
          tagGroups.length === 0
            ? []
            : await tx.$queryRaw<{ key: string; id: string }[]>`
          SELECT key, id FROM (
            SELECT t.tag AS key, a.id, row_number() OVER (PARTITION BY t.tag ORDER BY a."publishedAt" DESC, a.id DESC) AS rank
              FROM "NewsArticle" a CROSS JOIN LATERAL unnest(a.tags) AS t(tag)
             WHERE ${inPeriod} AND t.tag = ANY(${tagGroups.map((group) => group.tag)}::text[])
          ) ranked
          WHERE rank <= ${DIGEST_TOP_PER_GROUP}
          ORDER BY key, rank`;

        const sourceGroups = await tx.$queryRaw<{ key: string; source: string; count: number }[]>`
          SELECT lower(a.source) AS key, count(*)::int AS count,
                 (array_agg(a.source ORDER BY a."publishedAt" DESC, a.id DESC))[1] AS source
            FROM "NewsArticle" a
           WHERE ${inPeriod}
           GROUP BY lower(a.source)
           ORDER BY count DESC, lower(a.source) COLLATE "C"
           LIMIT ${DIGEST_MAX_GROUPS}`;
        const sourceTop =
          sourceGroups.length === 0
            ? []
            : await tx.$queryRaw<{ key: string; id: string }[]>`
          SELECT key, id FROM (
            SELECT lower(a.source) AS key, a.id, row_number() OVER (PARTITION BY lower(a.source) ORDER BY a."publishedAt" DESC, a.id DESC) AS rank
              FROM "NewsArticle" a
             WHERE ${inPeriod} AND lower(a.source) = ANY(${sourceGroups.map((group) => group.key)}::text[])
          ) ranked
          WHERE rank <= ${DIGEST_TOP_PER_GROUP}
          ORDER BY key, rank`;

        const topArticles = await tx.newsArticle.findMany({
          where: { userId, publishedAt: { gte: start, lt: end } },
          orderBy: [{ publishedAt: 'desc' }, { id: 'desc' }],
          take: DIGEST_TOP_ARTICLES,
        });

        const ids = [...new Set([...tagTop, ...sourceTop].map((row) => row.id))];
        const articles = new Map((ids.length ? await tx.newsArticle.findMany({ where: { userId, id: { in: ids } } }) : []).map((a) => [a.id, a]));
        const topOf = (ranked: { key: string; id: string }[], key: string) =>
          ranked
            .filter((row) => row.key === key)
            .map((row) => articles.get(row.id))
            .filter((a): a is NewsArticle => a !== undefined);

        return {
          periodStart: start,
          periodEnd: end,
          week: period.week,
          totalArticles: total,
          byTag: tagGroups.map((group) => ({ tag: group.tag, count: group.count, top: topOf(tagTop, group.tag) })),
          bySource: sourceGroups.map((group) => ({ source: group.source, count: group.count, top: topOf(sourceTop, group.key) })),
          topArticles,
        };
      },
      // One snapshot: the counts and the top lists describe the same set of articles.
      { isolationLevel: Prisma.TransactionIsolationLevel.RepeatableRead },
    );
  }
}

function sourceName(value: string): string {
  const source = boundedText(value, 'source', LIMITS.nameLength);
  if (/[\u0000-\u001f\u007f]/.test(source)) throw AppError.badInput('source', 'must not contain control characters');
  return source;
}

function publishedAt(value: Date | null | undefined, now: Date): Date {
  if (value === null || value === undefined) return now;
  if (Number.isNaN(value.getTime())) throw AppError.badInput('publishedAt', 'must be an ISO 8601 timestamp');
  if (value.getTime() > now.getTime() + MAX_FUTURE_MS) throw AppError.badInput('publishedAt', 'must not be more than 1 day in the future');
  if (value.getTime() < EARLIEST_PUBLISHED) throw AppError.badInput('publishedAt', 'must be 1970 or later');
  return value;
}

function decodeNewsCursor(cursor: string): { publishedAt: Date; id: string } {
  const { at, id } = decodeCursor(cursor, instantAndId('publishedAt', 'id'), 'endpoint');
  return { publishedAt: at, id };
}
