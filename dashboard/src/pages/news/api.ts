import { gql } from 'urql';
import { PAGE_INFO_FIELDS, type PageInfo } from '../../components/pager.tsx';

export interface NewsArticle {
  id: string;
  title: string;
  url: string;
  source: string;
  summary: string | null;
  tags: string[];
  publishedAt: string;
}

export interface DigestGroupArticle {
  id: string;
  title: string;
  url: string;
  source: string;
  publishedAt: string;
}

export interface NewsDigest {
  week: string | null;
  periodStart: string;
  periodEnd: string;
  totalArticles: number;
  topArticles: NewsArticle[];
  byTag: { tag: string; count: number; top: DigestGroupArticle[] }[];
  bySource: { source: string; count: number; top: DigestGroupArticle[] }[];
}

export interface CreateArticleInput {
  url: string;
  title: string;
  source: string;
  summary?: string;
  body?: string;
  tags?: string[];
  publishedAt?: string;
}

const articleFields = 'id title url source summary tags publishedAt';
const groupFields = 'id title url source publishedAt';

export const ARTICLES_PAGE_SIZE = 20;

export const ArticlesQuery = gql<
  { newsArticles: { edges: { node: NewsArticle }[]; pageInfo: PageInfo } },
  { first: number; after: string | null; source: string | null; tag: string | null }
>(`
  query NewsArticles($first: Int, $after: String, $source: String, $tag: String) {
    newsArticles(first: $first, after: $after, source: $source, tag: $tag) { edges { node { ${articleFields} } } ${PAGE_INFO_FIELDS} }
  }
`);

export const DigestQuery = gql<{ newsDigest: NewsDigest }, { week: string | null }>(`
  query NewsDigest($week: String) {
    newsDigest(week: $week) {
      week periodStart periodEnd totalArticles
      topArticles { ${articleFields} }
      byTag { tag count top { ${groupFields} } }
      bySource { source count top { ${groupFields} } }
    }
  }
`);

export const CreateArticle = gql<{ createNewsArticle: NewsArticle }, { input: CreateArticleInput }>(`
  mutation CreateNewsArticle($input: CreateNewsArticleInput!) { createNewsArticle(input: $input) { ${articleFields} } }
`);

/** A new article changes the list and the digest, even when they were empty (no NewsArticle to match). */
export const NEWS_LISTS = { additionalTypenames: ['QueryNewsArticlesConnection', 'NewsDigest'] };

const DAY_MS = 86_400_000;

/** Monday 00:00 UTC of ISO week 1 of `year` (the week holding 4 January). */
function week1Monday(year: number): number {
  const jan4 = Date.UTC(year, 0, 4);
  return jan4 - ((new Date(jan4).getUTCDay() + 6) % 7) * DAY_MS;
}

/** The ISO week (`2026-W47`, what <input type="week"> gives) an instant falls in, in UTC. */
export function isoWeekOf(date: Date): string {
  const day = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
  const thursday = day + (3 - ((new Date(day).getUTCDay() + 6) % 7)) * DAY_MS;
  const year = new Date(thursday).getUTCFullYear();
  const week = Math.floor((thursday - week1Monday(year)) / (7 * DAY_MS)) + 1;
  return `${year}-W${String(week).padStart(2, '0')}`;
}

/** The ISO week `weeks` weeks before (negative) or after `week`; null for a malformed week. */
export function shiftWeek(week: string, weeks: number): string | null {
  const match = /^(\d{4})-W(\d{2})$/.exec(week);
  if (!match) return null;
  const monday = week1Monday(Number(match[1])) + (Number(match[2]) - 1 + weeks) * 7 * DAY_MS;
  return isoWeekOf(new Date(monday));
}
