import { list, single, type RestRoute } from '../route.ts';

/** Lists and the digest leave out `body` (up to 100,000 characters each); GET /api/news/{id} has it. */
const ARTICLE_LIST_FIELDS = 'id title url source summary tags publishedAt createdAt';
const ARTICLE_FIELDS = `${ARTICLE_LIST_FIELDS} body`;

/**
 * docs/spec/workspace-service.md: news. `/api/news/digest` comes before `/api/news/:id` (express
 * matches in registration order).
 */
export const newsRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/api/news/digest',
    summary: 'The weekly digest: the last seven days, or the ISO week `week=2026-W47`; counts and newest articles by tag and by source.',
    operation: `query NewsDigest($week: String) {
      newsDigest(week: $week) {
        periodStart periodEnd week totalArticles
        byTag { tag count top { ...DigestArticle } }
        bySource { source count top { ...DigestArticle } }
        topArticles { ...DigestArticle }
      } }
      fragment DigestArticle on NewsArticle { ${ARTICLE_LIST_FIELDS} }`,
    respond: single('newsDigest'),
  },
  {
    method: 'GET',
    path: '/api/news',
    summary: "The caller's articles, most recently published first (tag, source).",
    params: { limit: 'first', cursor: 'after' },
    operation: `query NewsArticles($tag: String, $source: String, $first: Int, $after: String) {
      newsArticles(tag: $tag, source: $source, first: $first, after: $after) {
        edges { node { ${ARTICLE_LIST_FIELDS} } }
        pageInfo { hasNextPage endCursor }
      } }`,
    respond: list('newsArticles'),
  },
  {
    method: 'POST',
    path: '/api/news',
    summary: 'Add an article (title, url, source required; summary, body, tags, published_at). 409 when the url is already stored.',
    body: 'json',
    status: 201,
    operation: `mutation CreateNewsArticle($title: String!, $url: String!, $source: String!, $summary: String, $body: String, $tags: [String!], $publishedAt: DateTime) {
      createNewsArticle(input: { title: $title, url: $url, source: $source, summary: $summary, body: $body, tags: $tags, publishedAt: $publishedAt }) { ${ARTICLE_FIELDS} } }`,
    respond: single('createNewsArticle'),
  },
  {
    method: 'GET',
    path: '/api/news/:id',
    summary: 'One article, with its body.',
    operation: `query NewsArticle($id: UUID!) { newsArticle(id: $id) { ${ARTICLE_FIELDS} } }`,
    respond: single('newsArticle'),
  },
];
