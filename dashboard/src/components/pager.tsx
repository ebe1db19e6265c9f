import { useCallback, useState } from 'react';

export interface PageInfo {
  hasNextPage: boolean;
  endCursor: string | null;
}

export interface CursorPager {
  /** Pass as the `after` variable of the connection query. */
  after: string | null;
  page: number;
  next(endCursor: string | null): void;
  previous(): void;
  reset(): void;
}

/** Page-by-page navigation of a relay connection: a stack of the cursors that led here. */
export function useCursorPager(): CursorPager {
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const next = useCallback((endCursor: string | null) => {
    if (endCursor) setCursors((stack) => [...stack, endCursor]);
  }, []);
  const previous = useCallback(() => setCursors((stack) => (stack.length > 1 ? stack.slice(0, -1) : stack)), []);
  const reset = useCallback(() => setCursors([null]), []);
  return { after: cursors[cursors.length - 1] ?? null, page: cursors.length, next, previous, reset };
}

/** Previous / next buttons under a paged list. */
export function Pager({ pager, pageInfo, label }: { pager: CursorPager; pageInfo: PageInfo | undefined; label: string }) {
  if (!pageInfo || (pager.page === 1 && !pageInfo.hasNextPage)) return null;
  return (
    <nav className="pager" aria-label={`${label} pages`}>
      <button type="button" className="button-secondary button-small" onClick={pager.previous} disabled={pager.page === 1}>
        Previous
      </button>
      <span className="hint">Page {pager.page}</span>
      <button type="button" className="button-secondary button-small" onClick={() => pager.next(pageInfo.endCursor)} disabled={!pageInfo.hasNextPage}>
        Next
      </button>
    </nav>
  );
}
