import type pg from 'pg';
import type { Source } from './query.ts';

/**
 * The offline assistant's searches: plain SQL over the caller's own records (every query is
 * filtered by `userId`; sentences and comments through their parent's owner). A record's score is
 * the number of distinct keywords its text contains (ILIKE on `%stem%`); best first, then newest.
 * With no keywords, the same queries list the newest records (tasks: the open ones).
 */

export interface StickyHit {
  id: string;
  content: string;
  tags: string[];
}

export interface LinkHit {
  id: string;
  title: string | null;
  url: string;
  tags: string[];
}

export interface SentenceHit {
  transcriptId: string;
  title: string;
  occurredAt: Date;
  speaker: string;
  text: string;
  startSeconds: number;
}

export interface TranscriptHit {
  id: string;
  title: string;
  occurredAt: Date;
  participants: string[];
}

export interface TaskHit {
  id: string;
  title: string;
  status: string;
  priority: string;
  dueDate: string | null;
  assignee: string | null;
  description: string | null;
  comments: string;
}

export interface NewsHit {
  id: string;
  title: string;
  url: string;
  source: string;
  publishedAt: Date;
  summary: string | null;
}

/** Up to `limit` hits and whether more matched. */
export interface Hits<T> {
  rows: T[];
  more: boolean;
}

export interface WorkspaceFindings {
  stickies?: Hits<StickyHit>;
  links?: Hits<LinkHit>;
  /** Matching sentences (keyword search) ... */
  sentences?: Hits<SentenceHit>;
  /** ... or the newest transcripts (no keywords). */
  transcripts?: Hits<TranscriptHit>;
  tasks?: Hits<TaskHit>;
  news?: Hits<NewsHit>;
}

const SCORE = `(SELECT count(*)::int FROM unnest($2::text[]) AS k(p) WHERE d.doc ILIKE k.p)`;
const MATCHES = `(cardinality($2::text[]) = 0 OR ${SCORE} > 0)`;

const STICKIES_SQL = `
  SELECT d.id, d.content, d.tags FROM (
    SELECT s.id, s.content, s.tags, s."updatedAt", s.content || ' ' || array_to_string(s.tags, ' ') AS doc
      FROM "Sticky" s WHERE s."userId" = $1 AND s."deletedAt" IS NULL) d
   WHERE ${MATCHES}
   ORDER BY ${SCORE} DESC, d."updatedAt" DESC, d.id LIMIT $3`;

const LINKS_SQL = `
  SELECT d.id, d.title, d.url, d.tags FROM (
    SELECT l.id, l.title, l.url, l.tags, l."createdAt", coalesce(l.title, '') || ' ' || l.url || ' ' || array_to_string(l.tags, ' ') AS doc
      FROM "Link" l WHERE l."userId" = $1) d
   WHERE ${MATCHES}
   ORDER BY ${SCORE} DESC, d."createdAt" DESC, d.id LIMIT $3`;

const SENTENCES_SQL = `
  SELECT d."transcriptId", d.title, d."occurredAt", d.speaker, d.text, d."startSeconds" FROM (
    SELECT t.id AS "transcriptId", t.title, t."occurredAt", s.speaker, s.text, s.position, s."startSeconds"::float8 AS "startSeconds",
           s.speaker || ': ' || s.text AS doc
      FROM "TranscriptSentence" s JOIN "Transcript" t ON t.id = s."transcriptId"
     WHERE t."userId" = $1) d
   WHERE ${SCORE} > 0
   ORDER BY ${SCORE} DESC, d."occurredAt" DESC, d."transcriptId", d.position LIMIT $3`;

const TRANSCRIPTS_SQL = `
  SELECT t.id, t.title, t."occurredAt", t.participants FROM "Transcript" t
   WHERE t."userId" = $1 ORDER BY t."occurredAt" DESC, t.id LIMIT $2`;

const TASKS_SQL = `
  SELECT d.id, d.title, d.status, d.priority, d."dueDate", d.assignee, d.description, d.comments FROM (
    SELECT t.id, t.title, t.status::text AS status, t.priority::text AS priority, t."dueDate"::text AS "dueDate", t.assignee,
           t.description, t."updatedAt", c.comments,
           t.title || ' ' || coalesce(t.description, '') || ' ' || array_to_string(t.labels, ' ') || ' ' || c.comments AS doc
      FROM "Task" t
      CROSS JOIN LATERAL (SELECT coalesce(string_agg(tc.body, ' ' ORDER BY tc."createdAt"), '') AS comments
                            FROM "TaskComment" tc WHERE tc."taskId" = t.id) c
     WHERE t."userId" = $1) d
   WHERE (cardinality($2::text[]) > 0 AND ${SCORE} > 0) OR (cardinality($2::text[]) = 0 AND d.status NOT IN ('done', 'cancelled'))
   ORDER BY ${SCORE} DESC, d."updatedAt" DESC, d.id LIMIT $3`;

const NEWS_SQL = `
  SELECT d.id, d.title, d.url, d.source, d."publishedAt", d.summary FROM (
    SELECT n.id, n.title, n.url, n.source, n."publishedAt", n.summary,
           n.title || ' ' || coalesce(n.summary, '') || ' ' || array_to_string(n.tags, ' ') AS doc
      FROM "NewsArticle" n WHERE n."userId" = $1) d
   WHERE ${MATCHES}
   ORDER BY ${SCORE} DESC, d."publishedAt" DESC, d.id LIMIT $3`;

const TOP_TAGS_SQL = `
  SELECT tag FROM (
    SELECT unnest(tags) AS tag FROM "Sticky" WHERE "userId" = $1 AND "deletedAt" IS NULL
    UNION ALL SELECT unnest(tags) FROM "Link" WHERE "userId" = $1
    UNION ALL SELECT unnest(labels) FROM "Task" WHERE "userId" = $1
    UNION ALL SELECT unnest(tags) FROM "NewsArticle" WHERE "userId" = $1) t
   GROUP BY tag ORDER BY count(*) DESC, tag LIMIT $2`;

export class WorkspaceSearch {
  constructor(private readonly pool: pg.Pool) {}

  /** Searches the given sources for the patterns (`%stem%`); no patterns: the newest records. */
  async find(userId: string, sources: readonly Source[], patterns: readonly string[], limit: number): Promise<WorkspaceFindings> {
    const findings: WorkspaceFindings = {};
    const args = [userId, [...patterns], limit + 1];
    const want = new Set(sources);
    await Promise.all([
      want.has('stickies') && this.query<StickyHit>(STICKIES_SQL, args, limit).then((hits) => (findings.stickies = hits)),
      want.has('links') && this.query<LinkHit>(LINKS_SQL, args, limit).then((hits) => (findings.links = hits)),
      want.has('transcripts') &&
        (patterns.length > 0
          ? this.query<SentenceHit>(SENTENCES_SQL, args, limit).then((hits) => (findings.sentences = hits))
          : this.query<TranscriptHit>(TRANSCRIPTS_SQL, [userId, limit + 1], limit).then((hits) => (findings.transcripts = hits))),
      want.has('tasks') && this.query<TaskHit>(TASKS_SQL, args, limit).then((hits) => (findings.tasks = hits)),
      want.has('news') && this.query<NewsHit>(NEWS_SQL, args, limit).then((hits) => (findings.news = hits)),
    ]);
    return findings;
  }

  /** The caller's most used tags and labels, to suggest what to search for. */
  async topTags(userId: string, limit = 5): Promise<string[]> {
    const { rows } = await this.pool.query<{ tag: string }>(TOP_TAGS_SQL, [userId, limit]);
    return rows.map((row) => row.tag);
  }

  private async query<T extends pg.QueryResultRow>(sql: string, args: unknown[], limit: number): Promise<Hits<T>> {
    const { rows } = await this.pool.query<T>(sql, args);
    return { rows: rows.slice(0, limit), more: rows.length > limit };
  }
}
