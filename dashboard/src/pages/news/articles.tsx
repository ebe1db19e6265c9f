import { useEffect } from 'react';
import { useQuery } from 'urql';
import { Panel } from '../../components/page.tsx';
import { EmptyState, ErrorNotice, Loading } from '../../components/notice.tsx';
import { Pager, useCursorPager } from '../../components/pager.tsx';
import { formatDateTime } from '../../components/format.ts';
import { useDebounced } from '../../components/use-debounced.ts';
import { ArticleLink } from './digest.tsx';
import { ARTICLES_PAGE_SIZE, ArticlesQuery } from './api.ts';

export interface ArticleFilters {
  source: string;
  tag: string;
}

/** The articles, newest first, filtered by source and tag (both exact, any case). */
export function Articles({ filters, onFilters }: { filters: ArticleFilters; onFilters: (filters: ArticleFilters) => void }) {
  const pager = useCursorPager();
  const source = useDebounced(filters.source.trim());
  const tag = useDebounced(filters.tag.trim());
  const { reset } = pager;
  useEffect(reset, [source, tag, reset]);
  const [{ data, error, fetching }] = useQuery({
    query: ArticlesQuery,
    variables: { first: ARTICLES_PAGE_SIZE, after: pager.after, source: source || null, tag: tag || null },
  });
  const articles = data?.newsArticles.edges.map((e) => e.node) ?? [];
  const filtered = !!source || !!tag;

  return (
    <Panel id="articles" title="Articles">
      <form className="form-row filters" role="search" aria-label="Filter articles" onSubmit={(e) => e.preventDefault()}>
        <label>
          Source
          <input
            type="search"
            value={filters.source}
            onChange={(e) => onFilters({ ...filters, source: e.target.value })}
            placeholder="e.g. Reuters"
            maxLength={100}
          />
        </label>
        <label>
          Tag
          <input type="search" value={filters.tag} onChange={(e) => onFilters({ ...filters, tag: e.target.value })} placeholder="e.g. macro" maxLength={50} />
        </label>
        {(filters.source || filters.tag) && (
          <button type="button" className="button-secondary" onClick={() => onFilters({ source: '', tag: '' })}>
            Show all articles
          </button>
        )}
      </form>
      <ErrorNotice error={error} title="Could not load your articles" />
      {fetching && !data && <Loading label="Loading articles…" />}
      {data && articles.length === 0 && (
        <EmptyState>
          {filtered
            ? 'No article matches these filters (source and tag must match exactly, in any case).'
            : pager.page === 1
              ? 'You have no articles yet. Add one with “Add an article”.'
              : 'No more articles.'}
        </EmptyState>
      )}
      {articles.length > 0 && (
        <ul className="article-list" aria-label="Articles">
          {articles.map((a) => (
            <li key={a.id} className="article">
              <h3 className="article-title">
                <ArticleLink article={a} />
              </h3>
              <p className="article-meta">
                <button type="button" className="link-button" onClick={() => onFilters({ ...filters, source: a.source })}>
                  {a.source}
                  <span className="visually-hidden"> (show only articles from this source)</span>
                </button>
                <span className="hint"> · {formatDateTime(a.publishedAt)}</span>
              </p>
              {a.summary && <p className="article-summary">{a.summary}</p>}
              {a.tags.length > 0 && (
                <p className="article-tags">
                  {a.tags.map((t) => (
                    <button key={t} type="button" className="tag tag-button" onClick={() => onFilters({ ...filters, tag: t })}>
                      {t}
                      <span className="visually-hidden"> (show only articles with this tag)</span>
                    </button>
                  ))}
                </p>
              )}
            </li>
          ))}
        </ul>
      )}
      <Pager pager={pager} pageInfo={data?.newsArticles.pageInfo} label="Articles" />
    </Panel>
  );
}
