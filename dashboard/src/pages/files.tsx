import { useCallback, useEffect, useMemo, useState } from 'react';
import { useQuery, type CombinedError } from 'urql';
import { Page, Panel } from '../components/page.tsx';
import { EmptyState, ErrorNotice, Loading } from '../components/notice.tsx';
import { Pager, useCursorPager } from '../components/pager.tsx';
import { usePolling } from '../api/use-polling.ts';
import { useViewer, type Organization } from '../viewer.tsx';
import { FILE_STATUSES, FilesQuery, IN_PROGRESS, UploadLimitsQuery, type FileStatus, type UploadLimits } from './files/queries.ts';
import { UploadPanel } from './files/upload-panel.tsx';
import { FileTable } from './files/file-list.tsx';
import './files.css';

const PAGE_SIZE = 20;
const ORG_STORAGE_KEY = 'dashboard.files.orgId';

export default function FilesPage() {
  const viewer = useViewer();
  const organizations = viewer.user.organizations;
  const [org, chooseOrg] = useRememberedOrganization(organizations);
  const canUpload = viewer.scopes.includes('write:upload') || viewer.scopes.includes('admin');
  const [limits] = useQuery({ query: UploadLimitsQuery, requestPolicy: 'cache-first' });

  return (
    <Page title="Files" intro="Upload pnl and performance CSV files for an organization and follow their ingest.">
      {organizations.length === 0 ? (
        <EmptyState>You are not a member of any organization, so there is nowhere to upload files. Ask an administrator to add you to one.</EmptyState>
      ) : (
        org && (
          <>
            <div className="toolbar org-picker">
              <label>
                Organization
                <select value={org.id} onChange={(event) => chooseOrg(event.target.value)}>
                  {organizations.map((o) => (
                    <option key={o.id} value={o.id}>
                      {o.name}
                    </option>
                  ))}
                </select>
              </label>
            </div>
            <OrganizationFiles key={org.id} org={org} canUpload={canUpload} limits={limits.data?.uploadLimits} limitsError={limits.error} />
          </>
        )
      )}
    </Page>
  );
}

/** Uploads and the file list of one organization (remounted when the organization changes). */
function OrganizationFiles(props: { org: Organization; canUpload: boolean; limits: UploadLimits | undefined; limitsError: CombinedError | undefined }) {
  const [status, setStatus] = useState<FileStatus | ''>('');
  const pager = useCursorPager();
  const [{ data, error, fetching }, refresh] = useQuery({
    query: FilesQuery,
    variables: { orgId: props.org.id, status: status || null, first: PAGE_SIZE, after: pager.after },
  });
  const reload = useCallback(() => refresh({ requestPolicy: 'network-only' }), [refresh]);
  const files = useMemo(() => data?.files.edges.map((edge) => edge.node) ?? [], [data]);
  const listed = useMemo(() => new Map(files.map((file) => [file.id, file])), [files]);
  // No subscription exists for files: while ingest runs, ask again every second.
  usePolling(
    reload,
    1000,
    files.some((file) => IN_PROGRESS.has(file.status)),
  );

  const onSent = useCallback(() => {
    // The new file is the newest: show the first page, where it is listed.
    if (pager.page > 1) pager.reset();
    else reload();
  }, [pager, reload]);

  return (
    <>
      <UploadPanel org={props.org} limits={props.limits} limitsError={props.limitsError} canUpload={props.canUpload} listed={listed} onSent={onSent} />
      <Panel
        id="files"
        title="Files"
        actions={
          <label className="inline-label">
            Status
            <select
              value={status}
              onChange={(event) => {
                setStatus(event.target.value as FileStatus | '');
                pager.reset();
              }}
            >
              <option value="">All statuses</option>
              {FILE_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </label>
        }
      >
        <ErrorNotice error={error} title="The files could not be loaded" />
        {fetching && !data && <Loading label="Loading the files…" />}
        {data && <FileTable files={files} filtered={status !== ''} />}
        <Pager pager={pager} pageInfo={data?.files.pageInfo} label="Files" />
      </Panel>
    </>
  );
}

/** The chosen organization, remembered in this browser; the first one until a choice is made. */
function useRememberedOrganization(organizations: Organization[]): [Organization | undefined, (id: string) => void] {
  const [chosen, setChosen] = useState<string | null>(() => readStored());
  const org = organizations.find((o) => o.id === chosen) ?? organizations[0];
  useEffect(() => {
    if (org) writeStored(org.id);
  }, [org]);
  return [org, setChosen];
}

function readStored(): string | null {
  try {
    return window.localStorage.getItem(ORG_STORAGE_KEY);
  } catch {
    return null; // storage can be disabled; the first organization is then the default
  }
}

function writeStored(id: string): void {
  try {
    window.localStorage.setItem(ORG_STORAGE_KEY, id);
  } catch {
    /* not remembered: harmless */
  }
}
