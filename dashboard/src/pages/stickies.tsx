import { useEffect, useMemo, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { Page, Panel } from '../components/page.tsx';
import { EmptyState, ErrorNotice, Loading } from '../components/notice.tsx';
import { Pager, useCursorPager } from '../components/pager.tsx';
import { useDebounced } from '../components/use-debounced.ts';
import { CreateSticky, RestoreSticky, SEARCH_MAX, StickiesQuery, StickyTagsQuery, excerpt, type Sticky } from './stickies/api.ts';
import { StickyEditor } from './stickies/sticky-editor.tsx';
import { StickyCard } from './stickies/sticky-card.tsx';
import './stickies.css';

type View = 'active' | 'trash';
type Notice = { kind: 'created' | 'trashed' | 'restored'; sticky: Sticky } | null;

const PAGE_SIZE = 30;
// Any sticky mutation changes the lists, also when they were empty (and so named no Sticky type).
const STICKY_CONTEXT = { additionalTypenames: ['Sticky'] };

export default function StickiesPage() {
  const [view, setView] = useState<View>('active');
  const [search, setSearch] = useState('');
  const [tags, setTags] = useState<string[]>([]);
  const [notice, setNotice] = useState<Notice>(null);
  const pager = useCursorPager();
  const debouncedSearch = useDebounced(search.trim(), 300);
  const tagKey = tags.join(',');
  const { reset } = pager;
  useEffect(() => reset(), [view, debouncedSearch, tagKey, reset]);

  const context = useMemo(() => STICKY_CONTEXT, []);
  const trash = view === 'trash';
  const variables = {
    trashedOnly: trash,
    first: PAGE_SIZE,
    after: pager.after,
    ...(debouncedSearch ? { search: debouncedSearch } : {}),
    ...(tags.length > 0 ? { tags } : {}),
  };
  const [{ data, error, fetching }] = useQuery({ query: StickiesQuery, variables, context });
  const [createState, create] = useMutation(CreateSticky);
  const [undoState, undo] = useMutation(RestoreSticky);
  const stickies = data?.stickies.edges.map((edge) => edge.node) ?? [];
  const filtered = debouncedSearch !== '' || tags.length > 0;

  async function onCreate(content: string, newTags: string[]): Promise<boolean> {
    const result = await create({ input: { content, tags: newTags } });
    if (!result.data) return false;
    setNotice({ kind: 'created', sticky: result.data.createSticky });
    return true;
  }

  async function onUndo(sticky: Sticky) {
    const result = await undo({ id: sticky.id });
    if (result.data) setNotice({ kind: 'restored', sticky: result.data.restoreSticky });
  }

  function addTag(tag: string) {
    setTags((current) => (current.includes(tag) ? current.filter((t) => t !== tag) : [...current, tag]));
  }

  return (
    <Page title="Stickies" intro="Short notes with tags. Every change is kept in the note's history; the trash gives deleted notes back.">
      {view === 'active' && (
        <Panel id="new-sticky" title="New sticky">
          <StickyEditor
            label="New sticky"
            submitLabel="Add sticky"
            busyLabel="Adding…"
            busy={createState.fetching}
            error={createState.error}
            errorTitle="Could not add the sticky"
            onSubmit={onCreate}
          />
        </Panel>
      )}
      <Panel
        id="stickies"
        title={trash ? 'Trash' : 'Your stickies'}
        actions={
          <ViewSwitch
            view={view}
            onChange={(v) => {
              setView(v);
              setNotice(null);
            }}
          />
        }
      >
        <div className="sticky-filters">
          <label className="search-field">
            Search
            <input type="search" value={search} onChange={(e) => setSearch(e.target.value)} maxLength={SEARCH_MAX} placeholder="Text or tag" />
          </label>
          <TagPicker selected={tags} onPick={addTag} />
        </div>
        {tags.length > 0 && (
          <div className="active-filters" role="group" aria-label="Tag filters">
            <span className="hint">Carrying all of:</span>
            {tags.map((tag) => (
              <button key={tag} type="button" className="chip chip-removable" onClick={() => addTag(tag)}>
                {tag} <span aria-hidden="true">×</span>
                <span className="visually-hidden"> (remove this filter)</span>
              </button>
            ))}
            <button type="button" className="link-button" onClick={() => setTags([])}>
              Clear tags
            </button>
          </div>
        )}
        {trash && <p className="hint">Stickies in the trash are deleted for good after the service's retention period. Restore one to edit it again.</p>}
        <StatusLine notice={notice} busy={undoState.fetching} onUndo={onUndo} onDismiss={() => setNotice(null)} />
        <ErrorNotice error={undoState.error} title="Could not undo" />
        <ErrorNotice error={error} title="Could not load the stickies" />
        {fetching && !data && <Loading label="Loading stickies…" />}
        {data && (
          <p className="visually-hidden" role="status" aria-live="polite">
            {fetching ? 'Loading…' : `${stickies.length} ${stickies.length === 1 ? 'sticky' : 'stickies'} shown`}
          </p>
        )}
        {data && !fetching && stickies.length === 0 && (
          <EmptyState>
            {filtered ? 'No stickies match the search and tags.' : trash ? 'The trash is empty.' : 'No stickies yet: write the first one above.'}
            {filtered && (
              <>
                {' '}
                <button
                  type="button"
                  className="link-button"
                  onClick={() => {
                    setSearch('');
                    setTags([]);
                  }}
                >
                  Clear the filters
                </button>
              </>
            )}
          </EmptyState>
        )}
        {stickies.length > 0 && (
          <div className={fetching ? 'sticky-grid refreshing' : 'sticky-grid'}>
            {stickies.map((sticky) => (
              <StickyCard
                key={sticky.id}
                sticky={sticky}
                activeTags={tags}
                onTagClick={addTag}
                onTrashed={(s) => setNotice({ kind: 'trashed', sticky: s })}
                onRestored={(s) => setNotice({ kind: 'restored', sticky: s })}
              />
            ))}
          </div>
        )}
        <Pager pager={pager} pageInfo={data?.stickies.pageInfo} label="Stickies" />
      </Panel>
    </Page>
  );
}

function ViewSwitch({ view, onChange }: { view: View; onChange: (view: View) => void }) {
  return (
    <div className="segmented" role="group" aria-label="Show">
      <button type="button" aria-pressed={view === 'active'} onClick={() => onChange('active')}>
        Notes
      </button>
      <button type="button" aria-pressed={view === 'trash'} onClick={() => onChange('trash')}>
        Trash
      </button>
    </div>
  );
}

/** The tags in use on active stickies (most used first, with their counts), to add one to the filter. */
function TagPicker({ selected, onPick }: { selected: string[]; onPick: (tag: string) => void }) {
  const context = useMemo(() => STICKY_CONTEXT, []);
  const [{ data, error }] = useQuery({ query: StickyTagsQuery, context });
  const options = useMemo(() => (data?.stickyTags ?? []).filter(({ tag }) => !selected.includes(tag)), [data, selected]);
  return (
    <label>
      Filter by tag
      <select
        value=""
        onChange={(e) => {
          if (e.target.value) onPick(e.target.value);
        }}
        disabled={options.length === 0}
        aria-describedby={error ? 'tag-picker-error' : undefined}
      >
        <option value="">{options.length === 0 ? 'No other tags' : 'Choose a tag…'}</option>
        {options.map(({ tag, count }) => (
          <option key={tag} value={tag}>
            {tag} ({count})
          </option>
        ))}
      </select>
      {error && (
        <span id="tag-picker-error" className="field-error">
          Could not load the tags.
        </span>
      )}
    </label>
  );
}

function StatusLine({ notice, busy, onUndo, onDismiss }: { notice: Notice; busy: boolean; onUndo: (sticky: Sticky) => void; onDismiss: () => void }) {
  // Always rendered, so screen readers hear each change of the live region.
  return (
    <div role="status" aria-live="polite" className="status-line">
      {notice && (
        <div className="notice notice-success">
          {notice.kind === 'created' && <>Added “{excerpt(notice.sticky.content)}”.</>}
          {notice.kind === 'restored' && <>Restored “{excerpt(notice.sticky.content)}”.</>}
          {notice.kind === 'trashed' && (
            <>
              Moved “{excerpt(notice.sticky.content)}” to the trash.{' '}
              <button type="button" className="link-button" onClick={() => onUndo(notice.sticky)} disabled={busy}>
                Undo
              </button>
            </>
          )}{' '}
          <button type="button" className="link-button dismiss" onClick={onDismiss} aria-label="Dismiss">
            ×
          </button>
        </div>
      )}
    </div>
  );
}
