import { Fragment, useEffect, useRef, useState } from 'react';
import { useQuery } from 'urql';
import { Badge, toneOf } from '../../components/badge.tsx';
import { EmptyState, ErrorNotice, Loading } from '../../components/notice.tsx';
import { formatBytes, formatDateTime } from '../../components/format.ts';
import { finishedAnnouncement } from './status-words.ts';
import { IN_PROGRESS, ROW_ERRORS_SHOWN, RowErrorsQuery, RowWarningsQuery, type RowError, type UploadedFile } from './queries.ts';

const COLUMNS = 7;
const count = new Intl.NumberFormat();

type Panel = 'errors' | 'warnings';

/** The organization's files; a file with row errors (or warnings) opens them in a row beneath it. */
export function FileTable({ files, filtered }: { files: UploadedFile[]; filtered: boolean }) {
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const announcement = useStatusAnnouncements(files);
  const toggle = (id: string, panel: Panel) =>
    setOpen((current) => {
      const next = new Set(current);
      const key = `${id}:${panel}`;
      if (!next.delete(key)) next.add(key);
      return next;
    });

  return (
    <>
      <div role="status" aria-live="polite" className="visually-hidden">
        {announcement}
      </div>
      {files.length === 0 ? (
        <EmptyState>{filtered ? 'No files with this status.' : 'No files uploaded to this organization yet. Upload one above.'}</EmptyState>
      ) : (
        <div className="table-wrap" tabIndex={0}>
          <table className="data files-table stack" aria-label="Uploaded files">
            <thead>
              <tr>
                <th scope="col">File</th>
                <th scope="col">Type</th>
                <th scope="col">Status</th>
                <th scope="col" className="num">
                  Rows
                </th>
                <th scope="col" className="num">
                  Size
                </th>
                <th scope="col">Uploaded</th>
                <th scope="col">
                  <span className="visually-hidden">Row errors and warnings</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {files.map((file) => {
                const expanded = open.has(`${file.id}:errors`);
                const panelId = `row-errors-${file.id}`;
                const warningsExpanded = open.has(`${file.id}:warnings`);
                const warningsPanelId = `row-warnings-${file.id}`;
                return (
                  <Fragment key={file.id}>
                    <tr data-file-id={file.id}>
                      <th scope="row" className="file-name">
                        {file.fileName}
                      </th>
                      <td data-label="Type">{file.fileType}</td>
                      <td data-label="Status">
                        <Badge tone={toneOf(file.status)}>{file.status}</Badge>
                        {IN_PROGRESS.has(file.status) && <span className="spinner inline-spinner" aria-hidden="true" />}
                        {file.statusDetail && <div className="hint status-detail">{file.statusDetail}</div>}
                      </td>
                      <td data-label="Rows" className="num">
                        {file.rowCount === null ? '—' : count.format(file.rowCount)}
                      </td>
                      <td data-label="Size" className="num">
                        {formatBytes(file.sizeBytes)}
                      </td>
                      <td data-label="Uploaded">
                        <time dateTime={file.createdAt}>{formatDateTime(file.createdAt)}</time>
                      </td>
                      <td>
                        {file.errorCount > 0 && (
                          <button
                            type="button"
                            className="button-secondary button-small"
                            aria-expanded={expanded}
                            aria-controls={panelId}
                            onClick={() => toggle(file.id, 'errors')}
                          >
                            {expanded ? 'Hide' : 'Show'} {count.format(file.errorCount)} row {file.errorCount === 1 ? 'error' : 'errors'}
                            <span className="visually-hidden"> of {file.fileName}</span>
                          </button>
                        )}
                        {file.warningCount > 0 && (
                          <button
                            type="button"
                            className="button-secondary button-small file-warnings-button"
                            aria-expanded={warningsExpanded}
                            aria-controls={warningsPanelId}
                            onClick={() => toggle(file.id, 'warnings')}
                          >
                            {warningsExpanded ? 'Hide' : 'Show'} {count.format(file.warningCount)} {file.warningCount === 1 ? 'warning' : 'warnings'}
                            <span className="visually-hidden"> of {file.fileName}</span>
                          </button>
                        )}
                      </td>
                    </tr>
                    {expanded && (
                      <tr className="row-errors-row" id={panelId}>
                        <td colSpan={COLUMNS}>
                          <RowErrors file={file} />
                        </td>
                      </tr>
                    )}
                    {warningsExpanded && (
                      <tr className="row-errors-row row-warnings-row" id={warningsPanelId}>
                        <td colSpan={COLUMNS}>
                          <RowWarnings file={file} />
                        </td>
                      </tr>
                    )}
                  </Fragment>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

function RowErrors({ file }: { file: UploadedFile }) {
  const [{ data, error, fetching }] = useQuery({ query: RowErrorsQuery, variables: { id: file.id, first: ROW_ERRORS_SHOWN } });
  if (error) return <ErrorNotice error={error} title="The row errors could not be loaded" />;
  if (fetching && !data) return <Loading label="Loading the row errors…" />;
  const errors = data?.file?.rowErrors ?? [];
  if (errors.length === 0) return <EmptyState>No row errors are stored for this file.</EmptyState>;
  const total = data?.file?.errorCount ?? errors.length;
  return <RowProblemTable caption={`Row errors of ${file.fileName}`} rows={errors} total={total} />;
}

/** Rows of a processed file that loaded but count in no return (e.g. a cash flow on the entity's first valuation date). */
function RowWarnings({ file }: { file: UploadedFile }) {
  const [{ data, error, fetching }] = useQuery({ query: RowWarningsQuery, variables: { id: file.id, first: ROW_ERRORS_SHOWN } });
  if (error) return <ErrorNotice error={error} title="The warnings could not be loaded" />;
  if (fetching && !data) return <Loading label="Loading the warnings…" />;
  const warnings = data?.file?.rowWarnings ?? [];
  if (warnings.length === 0) return <EmptyState>No warnings are stored for this file.</EmptyState>;
  const total = data?.file?.warningCount ?? warnings.length;
  return <RowProblemTable caption={`Warnings of ${file.fileName}: rows loaded that count in no return`} rows={warnings} total={total} />;
}

function RowProblemTable({ caption, rows, total }: { caption: string; rows: RowError[]; total: number }) {
  const errors = rows;
  return (
    <div className="row-errors">
      <table className="data">
        <caption>
          {caption}{' '}
          <span className="hint">
            (line 1 is the header row{total > errors.length ? `; the first ${count.format(errors.length)} of ${count.format(total)}` : ''})
          </span>
        </caption>
        <thead>
          <tr>
            <th scope="col" className="num">
              Line
            </th>
            <th scope="col">Column</th>
            <th scope="col">Problem</th>
          </tr>
        </thead>
        <tbody>
          {errors.map((rowError, index) => (
            <tr key={`${rowError.line}-${rowError.column ?? ''}-${index}`}>
              <td className="num">{rowError.line}</td>
              <td>{rowError.column ? <code>{rowError.column}</code> : <span className="hint">whole row</span>}</td>
              <td>{rowError.message}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Says when a listed file finishes ingest, for people who cannot see the badge change. */
function useStatusAnnouncements(files: UploadedFile[]): string {
  const previous = useRef(new Map<string, string>());
  const [message, setMessage] = useState('');
  useEffect(() => {
    const finished: string[] = [];
    for (const file of files) {
      const before = previous.current.get(file.id);
      if (before && before !== file.status && !IN_PROGRESS.has(file.status)) {
        finished.push(finishedAnnouncement(file));
      }
      previous.current.set(file.id, file.status);
    }
    if (finished.length > 0) setMessage(finished.join(' '));
  }, [files]);
  return message;
}
