import { useMemo, useState } from 'react';
import { useQuery } from 'urql';
import { Badge, type Tone } from '../../components/badge.tsx';
import { ErrorNotice, Loading } from '../../components/notice.tsx';
import { Pager, useCursorPager } from '../../components/pager.tsx';
import { formatDateTime } from '../../components/format.ts';
import { StickyVersionsQuery, type StickyAction } from './api.ts';

const ACTIONS: Record<StickyAction, { label: string; tone: Tone }> = {
  create: { label: 'Created', tone: 'success' },
  update: { label: 'Edited', tone: 'info' },
  delete: { label: 'Moved to trash', tone: 'danger' },
  restore: { label: 'Restored', tone: 'warning' },
};

/** The history of a sticky in a <details>; versions load only when it is opened. */
export function StickyHistory({ id, version }: { id: string; version: number }) {
  const [open, setOpen] = useState(false);
  return (
    <details className="sticky-history" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>
        History{' '}
        <span className="hint">
          ({version} {version === 1 ? 'version' : 'versions'})
        </span>
      </summary>
      {open && <Versions id={id} />}
    </details>
  );
}

function Versions({ id }: { id: string }) {
  const pager = useCursorPager();
  // Any sticky mutation may add a version, and it returns a Sticky rather than a StickyVersion.
  const context = useMemo(() => ({ additionalTypenames: ['Sticky'] }), []);
  const [{ data, error, fetching }] = useQuery({ query: StickyVersionsQuery, variables: { id, first: 20, after: pager.after }, context });
  const versions = data?.stickyVersions.edges.map((edge) => edge.node) ?? [];
  return (
    <div className="history-body">
      <ErrorNotice error={error} title="Could not load the history" />
      {fetching && !data && <Loading label="Loading the history…" />}
      {data && (
        <ol className="version-list" aria-label="Versions, newest first">
          {versions.map((v) => (
            <li key={v.version}>
              <div className="version-head">
                <Badge tone={ACTIONS[v.action].tone}>{ACTIONS[v.action].label}</Badge>
                <span>v{v.version}</span>
                <time className="hint" dateTime={v.createdAt}>
                  {formatDateTime(v.createdAt)}
                </time>
              </div>
              <p className="version-content">{v.content}</p>
              {v.tags.length > 0 && (
                <div>
                  {v.tags.map((tag) => (
                    <span key={tag} className="tag">
                      {tag}
                    </span>
                  ))}
                </div>
              )}
            </li>
          ))}
        </ol>
      )}
      <Pager pager={pager} pageInfo={data?.stickyVersions.pageInfo} label="History" />
    </div>
  );
}
