import { graphql, type ResultOf, type VariablesOf } from '../../api/graphql.ts';

const ArticleFields = graphql(`fragment NewsArticleFields on NewsArticle { id title url source summary tags publishedAt }`);
const GroupArticleFields = graphql(`fragment DigestGroupArticleFields on NewsArticle { id title url source publishedAt }`);

export type DigestGroupArticle = ResultOf<typeof GroupArticleFields>;
export type NewsDigest = ResultOf<typeof DigestQuery>['newsDigest'];
export type CreateArticleInput = VariablesOf<typeof CreateArticle>['input'];

export const ARTICLES_PAGE_SIZE = 20;

export const ArticlesQuery = graphql(
  `
  query NewsArticles($first: Int, $after: String, $source: String, $tag: String) {
    newsArticles(first: $first, after: $after, source: $source, tag: $tag) { edges { node { ...NewsArticleFields } } pageInfo { hasNextPage endCursor } }
  }
`,
  [ArticleFields],
);

export const DigestQuery = graphql(
  `
  query NewsDigest($week: String) {
    newsDigest(week: $week) {
      week periodStart periodEnd totalArticles
      topArticles { ...NewsArticleFields }
      byTag { tag count top { ...DigestGroupArticleFields } }
      bySource { source count top { ...DigestGroupArticleFields } }
    }
  }
`,
  [ArticleFields, GroupArticleFields],
);

export const CreateArticle = graphql(
  `mutation CreateNewsArticle($input: CreateNewsArticleInput!) { createNewsArticle(input: $input) { ...NewsArticleFields } }`,
  [ArticleFields],
);

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
