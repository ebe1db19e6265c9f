import { useState } from 'react';
import { useQuery } from 'urql';
import { Panel } from '../../components/page.tsx';
import { EmptyState, ErrorNotice, Loading } from '../../components/notice.tsx';
import { formatDateTime } from '../../components/format.ts';
import { DigestQuery, isoWeekOf, shiftWeek, type DigestGroupArticle, type NewsDigest } from './api.ts';

const dayFormat = new Intl.DateTimeFormat(undefined, { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });

/** The weekly digest: the last seven days by default, or an ISO week picked with <input type="week">. */
export function Digest({ onTag, onSource }: { onTag: (tag: string) => void; onSource: (source: string) => void }) {
  const [week, setWeek] = useState<string | null>(null);
  const [{ data, error, fetching }] = useQuery({ query: DigestQuery, variables: { week } });
  const digest = data?.newsDigest;
  const currentWeek = isoWeekOf(new Date());
  const base = week ?? currentWeek;
  const previous = shiftWeek(base, -1);
  const next = shiftWeek(base, 1);

  return (
    <Panel id="digest" title="Weekly digest">
      <div className="toolbar digest-toolbar">
        <button type="button" className="button-secondary button-small" disabled={!previous} onClick={() => setWeek(previous)}>
          ← Previous week
        </button>
        <label className="week-field">
          Week
          <input type="week" value={week ?? ''} max={currentWeek} onChange={(e) => setWeek(e.target.value || null)} />
        </label>
        <button type="button" className="button-secondary button-small" disabled={!next || base >= currentWeek} onClick={() => setWeek(next)}>
          Next week →
        </button>
        <button type="button" className="button-secondary button-small" aria-pressed={week === null} onClick={() => setWeek(null)}>
          Last seven days
        </button>
      </div>
      <ErrorNotice error={error} title="Could not load the digest" />
      {fetching && !digest && <Loading label="Loading the digest…" />}
      {digest && <DigestBody digest={digest} onTag={onTag} onSource={onSource} stale={fetching} />}
    </Panel>
  );
}

function DigestBody({
  digest,
  onTag,
  onSource,
  stale,
}: {
  digest: NewsDigest;
  onTag: (tag: string) => void;
  onSource: (source: string) => void;
  stale: boolean;
}) {
  const lastDay = new Date(new Date(digest.periodEnd).getTime() - 1);
  const period = digest.week
    ? `Week ${digest.week}: ${dayFormat.format(new Date(digest.periodStart))} to ${dayFormat.format(lastDay)} (UTC)`
    : `The last seven days: ${formatDateTime(digest.periodStart)} to now`;
  return (
    <div className="digest" aria-busy={stale}>
      <p className="digest-period" role="status">
        {period} · <strong>{digest.totalArticles === 1 ? '1 article' : `${digest.totalArticles} articles`}</strong>
      </p>
      {digest.totalArticles === 0 ? (
        <EmptyState>No article was published in this period.</EmptyState>
      ) : (
        <div className="digest-grid">
          <section aria-labelledby="digest-top">
            <h3 id="digest-top">Latest</h3>
            <ol className="digest-top">
              {digest.topArticles.map((a) => (
                <li key={a.id}>
                  <ArticleLink article={a} />
                  <span className="hint">
                    {' '}
                    {a.source} · {formatDateTime(a.publishedAt)}
                  </span>
                </li>
              ))}
            </ol>
          </section>
          <Groups
            title="By tag"
            id="digest-tags"
            groups={digest.byTag.map((g) => ({ name: g.tag, count: g.count, top: g.top }))}
            onPick={onTag}
            noun="tagged"
          />
          <Groups
            title="By source"
            id="digest-sources"
            groups={digest.bySource.map((g) => ({ name: g.source, count: g.count, top: g.top }))}
            onPick={onSource}
            noun="from"
          />
        </div>
      )}
    </div>
  );
}

/** Tag or source groups: a bar per group (its share of the largest), its newest articles on demand. */
function Groups(props: {
  title: string;
  id: string;
  groups: { name: string; count: number; top: DigestGroupArticle[] }[];
  onPick: (name: string) => void;
  noun: string;
}) {
  const largest = Math.max(1, ...props.groups.map((g) => g.count));
  return (
    <section aria-labelledby={props.id}>
      <h3 id={props.id}>{props.title}</h3>
      {props.groups.length === 0 ? (
        <p className="empty">None in this period.</p>
      ) : (
        <ul className="digest-groups">
          {props.groups.map((g) => (
            <li key={g.name}>
              <details>
                <summary>
                  <span className="group-name">{g.name}</span>
                  <span className="group-bar" aria-hidden="true">
                    <span style={{ width: `${(g.count / largest) * 100}%` }} />
                  </span>
                  <span className="group-count">{g.count}</span>
                </summary>
                <ul className="group-articles">
                  {g.top.map((a) => (
                    <li key={a.id}>
                      <ArticleLink article={a} />
                    </li>
                  ))}
                </ul>
                <button type="button" className="link-button" onClick={() => props.onPick(g.name)}>
                  List every article {props.noun} {g.name}
                </button>
              </details>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export function ArticleLink({ article }: { article: { title: string; url: string } }) {
  return (
    <a href={article.url} target="_blank" rel="noopener noreferrer">
      {article.title}
      <span className="visually-hidden"> (opens in a new tab)</span>
    </a>
  );
}
