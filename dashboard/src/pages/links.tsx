import { useEffect, useMemo, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { Page, Panel } from '../components/page.tsx';
import { EmptyState, ErrorNotice, Loading } from '../components/notice.tsx';
import { Pager, useCursorPager } from '../components/pager.tsx';
import { useDebounced } from '../components/use-debounced.ts';
import { CreateLink, FoldersQuery, LIMITS, LinksQuery, NO_FOLDER, linkName, type LinkInput } from './links/api.ts';
import { FolderActions, FolderList } from './links/folders.tsx';
import { LinkForm } from './links/link-form.tsx';
import { LinkRow } from './links/link-row.tsx';
import './links.css';

const PAGE_SIZE = 50;
// Link mutations change folder counts too, and an empty list names no Link type to invalidate.
const LINK_CONTEXT = { additionalTypenames: ['Link', 'LinkFolder'] };

export default function LinksPage() {
  const [folderId, setFolderId] = useState<string | null>(null);
  const [starredOnly, setStarredOnly] = useState(false);
  const [search, setSearch] = useState('');
  const [message, setMessage] = useState<string | null>(null);
  const debouncedSearch = useDebounced(search.trim(), 300);
  const pager = useCursorPager();
  const { reset } = pager;
  useEffect(() => reset(), [folderId, starredOnly, debouncedSearch, reset]);

  const context = useMemo(() => LINK_CONTEXT, []);
  const [folders, refreshFolders] = useQuery({ query: FoldersQuery, context });
  const variables = {
    first: PAGE_SIZE,
    after: pager.after,
    ...(folderId === NO_FOLDER ? { unfiled: true } : folderId ? { folderId } : {}),
    ...(starredOnly ? { starred: true } : {}),
    ...(debouncedSearch ? { search: debouncedSearch } : {}),
  };
  const [links, refreshLinks] = useQuery({ query: LinksQuery, variables, context });
  const [createState, create] = useMutation(CreateLink);
  const folderList = folders.data?.linkFolders ?? [];
  const selectedFolder = folderList.find((f) => f.id === folderId) ?? null;
  const items = links.data?.links.edges.map((edge) => edge.node) ?? [];
  const filtered = folderId !== null || starredOnly || debouncedSearch !== '';

  function refreshAll() {
    refreshFolders({ requestPolicy: 'network-only' });
    refreshLinks({ requestPolicy: 'network-only' });
  }

  async function onCreate(input: LinkInput): Promise<boolean> {
    const result = await create({ input });
    if (!result.data) return false;
    const link = result.data.createLink;
    const where = folderList.find((f) => f.id === link.folderId);
    setMessage(`Saved “${linkName(link)}”${where ? ` in ${where.name}` : ''}.`);
    return true;
  }

  return (
    <Page title="Links" intro="Saved links with tags, folders and stars. The service stores the address only; it never opens it.">
      <Panel id="add-link" title="Add a link">
        <LinkForm
          label="Add a link"
          folders={folderList}
          defaultFolderId={folderId === NO_FOLDER ? null : folderId}
          submitLabel="Add link"
          busyLabel="Adding…"
          busy={createState.fetching}
          error={createState.error}
          errorTitle="Could not add the link"
          onSubmit={onCreate}
        />
      </Panel>
      <div role="status" aria-live="polite" className="status-line">
        {message && (
          <div className="notice notice-success">
            {message}{' '}
            <button type="button" className="link-button dismiss" onClick={() => setMessage(null)} aria-label="Dismiss">
              ×
            </button>
          </div>
        )}
      </div>
      <div className="links-layout">
        <FolderList
          folders={folders.data?.linkFolders}
          counts={folders.data?.linkCounts}
          error={folders.error}
          selected={folderId}
          onSelect={setFolderId}
          onCreated={(folder) => {
            setMessage(`Created the folder “${folder.name}”.`);
            refreshFolders({ requestPolicy: 'network-only' });
          }}
        />
        <Panel
          id="links"
          title={selectedFolder ? selectedFolder.name : folderId === NO_FOLDER ? 'Links in no folder' : 'All links'}
          actions={
            selectedFolder && (
              <FolderActions
                key={selectedFolder.id}
                folder={selectedFolder}
                onRenamed={(folder) => setMessage(`Renamed the folder to “${folder.name}”.`)}
                onDeleted={(folder, moved) => {
                  setFolderId(null);
                  setMessage(`Deleted the folder “${folder.name}”. ${moved === 1 ? 'Its link was' : `Its ${moved} links were`} kept, now in no folder.`);
                  refreshAll();
                }}
              />
            )
          }
        >
          <div className="toolbar link-filters">
            <label className="search-field">
              Search
              <input type="search" value={search} onChange={(e) => setSearch(e.target.value)} maxLength={LIMITS.search} placeholder="URL, title or tag" />
            </label>
            <label className="checkbox">
              <input type="checkbox" checked={starredOnly} onChange={(e) => setStarredOnly(e.target.checked)} />
              Starred only
            </label>
          </div>
          <ErrorNotice error={links.error} title="Could not load the links" />
          {links.fetching && !links.data && <Loading label="Loading links…" />}
          {links.data && (
            <p className="visually-hidden" role="status" aria-live="polite">
              {links.fetching ? 'Loading…' : `${items.length} ${items.length === 1 ? 'link' : 'links'} shown`}
            </p>
          )}
          {links.data && !links.fetching && items.length === 0 && (
            <EmptyState>
              {filtered ? 'No links match.' : 'No links yet: add the first one above.'}
              {(starredOnly || debouncedSearch) && (
                <>
                  {' '}
                  <button
                    type="button"
                    className="link-button"
                    onClick={() => {
                      setStarredOnly(false);
                      setSearch('');
                    }}
                  >
                    Clear the search and star filter
                  </button>
                </>
              )}
            </EmptyState>
          )}
          {items.length > 0 && (
            <ul className={links.fetching ? 'link-list refreshing' : 'link-list'} aria-label="Links">
              {items.map((link) => (
                <LinkRow
                  key={link.id}
                  link={link}
                  folders={folderList}
                  onTagClick={setSearch}
                  onDeleted={(deleted) => {
                    setMessage(`Deleted “${linkName(deleted)}”.`);
                    refreshAll();
                  }}
                />
              ))}
            </ul>
          )}
          <Pager pager={pager} pageInfo={links.data?.links.pageInfo} label="Links" />
        </Panel>
      </div>
    </Page>
  );
}
