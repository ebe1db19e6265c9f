import type pg from 'pg';
import type { NewsService } from '../../news/news-service.ts';
import type { Intent } from '../intent.ts';
import { DASHBOARD, isWebUrl, mdLink } from '../links.ts';
import { cite, oneLine, quoteTitle } from '../citations.ts';
import { OFFLINE_LIMITS, type Answerer, type Asker } from './types.ts';
import { plural } from '../../../util/plural.ts';

type NewsIntent = Extract<Intent, { kind: 'news' }>;

const SHOWN = 5;

interface ArticleRow {
  id: string;
  title: string;
  url: string;
  source: string;
  publishedAt: Date;
}

/** "Latest news", "This week's digest": the caller's saved articles; the digest is NewsService.digest, as on the News page. */
export class NewsAnswerer implements Answerer<'news'> {
  readonly kind = 'news' as const;

  constructor(private readonly deps: { pool: pg.Pool; news: NewsService }) {}

  async answer(intent: NewsIntent, asker: Asker): Promise<string> {
    const lines: string[] = [];
    if (intent.filter === 'digest') {
      const digest = await this.deps.news.digest(asker.userId);
      const from = digest.periodStart.toISOString().slice(0, 10);
      const to = digest.periodEnd.toISOString().slice(0, 10);
      if (digest.totalArticles === 0) lines.push(`You saved no articles published in the last seven days (${from} to ${to}).`);
      else {
        lines.push(`Your news digest for the last seven days (${from} to ${to}): ${plural(digest.totalArticles, 'article')}.`);
        if (digest.bySource.length > 0) lines.push(`- By source: ${digest.bySource.map((g) => `${g.source} (${g.count})`).join(', ')}`);
        if (digest.byTag.length > 0) lines.push(`- By tag: ${digest.byTag.map((g) => `${g.tag} (${g.count})`).join(', ')}`);
        lines.push('', 'The newest:');
        for (const article of digest.topArticles.slice(0, SHOWN)) lines.push(articleLine(article));
      }
    } else {
      const { rows } = await this.deps.pool.query<ArticleRow & { total: number }>(
        `SELECT id, title, url, source, "publishedAt", count(*) OVER ()::int AS total FROM "NewsArticle" WHERE "userId" = $1
          ORDER BY "publishedAt" DESC, id DESC LIMIT $2`,
        [asker.userId, SHOWN],
      );
      if (rows.length === 0) lines.push('You have saved no news articles yet.');
      else {
        lines.push(`Your latest news (${rows.length} of ${plural(rows[0].total, 'article')}), newest first:`);
        for (const article of rows) lines.push(articleLine(article));
      }
    }
    lines.push('', `The ${mdLink('News', DASHBOARD.news)} page has every article and the weekly digest by tag and source.`, '', OFFLINE_LIMITS);
    return lines.join('\n');
  }
}

function articleLine(article: ArticleRow): string {
  const title = oneLine(article.title);
  const shown = isWebUrl(article.url) ? mdLink(title, article.url) : title;
  return `- ${shown} (${article.source}, ${new Date(article.publishedAt).toISOString().slice(0, 10)}) ${cite('news', quoteTitle(title), DASHBOARD.news)}`;
}
