// GraphQL surface of the news resource (docs/spec/workspace-service.md).
import type { NewsArticle as NewsArticleModel } from '../src/generated/prisma/client.ts';
import { builder } from './builder.ts';
import { forwardPage, toConnection } from './pagination.ts';
import { PAGE_SIZES } from '../src/pagination.ts';
import {
  DIGEST_MAX_GROUPS,
  DIGEST_TOP_ARTICLES,
  DIGEST_TOP_PER_GROUP,
  newsCursor,
  type DigestSourceGroup,
  type DigestTagGroup,
  type NewsDigest as NewsDigestResult,
} from '../src/workspace/news/news-service.ts';

const NewsArticle = builder.objectRef<NewsArticleModel>('NewsArticle').implement({
  description: "A news article of the caller's. The url is unique per user (normalised, without #fragment); the service never fetches it.",
  fields: (t) => ({
    id: t.expose('id', { type: 'UUID' }),
    title: t.exposeString('title'),
    url: t.exposeString('url'),
    source: t.exposeString('source'),
    summary: t.exposeString('summary', { nullable: true }),
    body: t.exposeString('body', { nullable: true }),
    tags: t.exposeStringList('tags', { description: 'Trimmed, lower-case, de-duplicated.' }),
    publishedAt: t.expose('publishedAt', { type: 'DateTime' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const topDescription = `The group's ${DIGEST_TOP_PER_GROUP} most recently published articles (ties: id), newest first.`;

const NewsDigestTagGroup = builder.objectRef<DigestTagGroup>('NewsDigestTagGroup').implement({
  fields: (t) => ({
    tag: t.exposeString('tag'),
    count: t.exposeInt('count', { description: 'Articles of the period carrying the tag.' }),
    top: t.field({
      type: [NewsArticle],
      description: topDescription,
      complexity: { field: 1, multiplier: DIGEST_TOP_PER_GROUP },
      resolve: (group) => group.top,
    }),
  }),
});

const NewsDigestSourceGroup = builder.objectRef<DigestSourceGroup>('NewsDigestSourceGroup').implement({
  fields: (t) => ({
    source: t.exposeString('source', { description: 'Sources are grouped case-insensitively; this is the spelling of the newest article.' }),
    count: t.exposeInt('count'),
    top: t.field({
      type: [NewsArticle],
      description: topDescription,
      complexity: { field: 1, multiplier: DIGEST_TOP_PER_GROUP },
      resolve: (group) => group.top,
    }),
  }),
});

const NewsDigest = builder.objectRef<NewsDigestResult>('NewsDigest').implement({
  description: 'Articles published in [periodStart, periodEnd), grouped by tag and by source.',
  fields: (t) => ({
    periodStart: t.expose('periodStart', { type: 'DateTime' }),
    periodEnd: t.expose('periodEnd', { type: 'DateTime', description: 'Exclusive.' }),
    week: t.exposeString('week', { nullable: true, description: 'The ISO week asked for; null for the default period (the seven days ending now).' }),
    totalArticles: t.exposeInt('totalArticles'),
    byTag: t.field({
      type: [NewsDigestTagGroup],
      description: `The ${DIGEST_MAX_GROUPS} largest tags of the period (count descending, then tag). Untagged articles appear in no tag group.`,
      resolve: (digest) => digest.byTag,
    }),
    bySource: t.field({
      type: [NewsDigestSourceGroup],
      description: `The ${DIGEST_MAX_GROUPS} largest sources of the period (count descending, then name).`,
      resolve: (digest) => digest.bySource,
    }),
    topArticles: t.field({
      type: [NewsArticle],
      description: `The period's ${DIGEST_TOP_ARTICLES} most recently published articles.`,
      resolve: (digest) => digest.topArticles,
    }),
  }),
});

const CreateNewsArticleInput = builder.inputType('CreateNewsArticleInput', {
  fields: (t) => ({
    title: t.string({ required: true, description: '1 to 500 characters.' }),
    url: t.string({ required: true, description: 'http or https; unique per user after normalisation (CONFLICT otherwise).' }),
    source: t.string({ required: true, description: '1 to 100 characters, e.g. the publication.' }),
    summary: t.string({ description: 'At most 2,000 characters.' }),
    body: t.string({ description: 'At most 100,000 characters.' }),
    tags: t.stringList({ description: 'At most 20 tags of at most 50 characters.' }),
    publishedAt: t.field({ type: 'DateTime', description: 'Default: now. At most one day in the future.' }),
  }),
});

builder.queryFields((t) => ({
  newsArticles: t.withAuth({ scope: 'read:workspace' }).connection({
    type: NewsArticle,
    pageSize: PAGE_SIZES.news,
    description: `The caller's articles, most recently published first.`,
    args: {
      tag: t.arg.string({ required: false, description: 'Only articles with this tag (case-insensitive).' }),
      source: t.arg.string({ required: false, description: 'Only articles from this source (case-insensitive, exact).' }),
    },
    resolve: async (_parent, args, ctx, info) => {
      const { limit, cursor } = forwardPage(args, info);
      const page = await ctx.services.news.list(ctx.viewer.user.id, { tag: args.tag, source: args.source, limit, cursor });
      return toConnection(page, newsCursor);
    },
  }),
  newsArticle: t.withAuth({ scope: 'read:workspace' }).field({
    type: NewsArticle,
    nullable: true,
    description: "One of the caller's articles (NOT_FOUND otherwise).",
    args: { id: t.arg({ type: 'UUID', required: true }) },
    resolve: (_parent, args, ctx) => ctx.services.news.get(ctx.viewer.user.id, args.id),
  }),
  newsDigest: t.withAuth({ scope: 'read:workspace' }).field({
    type: NewsDigest,
    description: 'The weekly digest: by default the seven days ending now; `week` (ISO week, e.g. `2026-W47`) picks Monday 00:00 UTC to the next Monday.',
    args: { week: t.arg.string({ required: false }) },
    resolve: (_parent, args, ctx) => ctx.services.news.digest(ctx.viewer.user.id, { week: args.week }),
  }),
}));

builder.mutationField('createNewsArticle', (t) =>
  t.withAuth({ scope: 'write:workspace' }).field({
    type: NewsArticle,
    description: 'Adds an article. A url already stored (after normalisation) is CONFLICT `An article with this url already exists`.',
    args: { input: t.arg({ type: CreateNewsArticleInput, required: true }) },
    resolve: (_parent, { input }, ctx) => ctx.services.news.create(ctx.viewer.user.id, input),
  }),
);
