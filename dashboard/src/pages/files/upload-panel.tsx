import { useEffect, useId, useState, type ChangeEvent, type DragEvent } from 'react';
import { Panel } from '../../components/page.tsx';
import { Badge, toneOf } from '../../components/badge.tsx';
import { ErrorNotice } from '../../components/notice.tsx';
import { formatBytes } from '../../components/format.ts';
import { signInAgain } from '../../api/errors.ts';
import type { CombinedError } from 'urql';
import type { FileType, UploadedFile, UploadLimits } from './queries.ts';
import { useUploadQueue, type UploadItem } from './use-upload-queue.ts';

const TYPE_LABELS: Record<FileType, string> = {
  pnl: 'pnl: valuations and cash flows',
  performance: 'performance: custodian returns',
  fx: 'fx: exchange rates',
  benchmark: 'benchmark: index levels',
};

const bytes = new Intl.NumberFormat();

export function UploadPanel(props: {
  org: { id: string; name: string };
  limits: UploadLimits | undefined;
  limitsError: CombinedError | undefined;
  canUpload: boolean;
  /** The latest listed state of each file, so a sent file shows its ingest progress here too. */
  listed: ReadonlyMap<string, UploadedFile>;
  onSent: (file: UploadedFile) => void;
}) {
  const { limits } = props;
  const [fileType, setFileType] = useState<FileType | ''>('');
  const [dragging, setDragging] = useState(false);
  const [announcement, setAnnouncement] = useState('');
  const queue = useUploadQueue((item) => {
    if (item.file) {
      setAnnouncement(`${item.name} was uploaded and is queued for ingest.`);
      props.onSent(item.file);
    } else {
      setAnnouncement(`${item.name}: ${item.state === 'cancelled' ? 'upload cancelled' : `upload failed. ${item.message ?? ''}`}`);
    }
  });
  const inputId = useId();
  const hintId = useId();
  const disabled = !props.canUpload || (!limits && !props.limitsError);

  // A file dropped beside the drop zone would make the browser leave the dashboard to show it.
  useEffect(() => {
    const keep = (event: globalThis.DragEvent) => {
      if (event.dataTransfer?.types.includes('Files')) event.preventDefault();
    };
    window.addEventListener('dragover', keep);
    window.addEventListener('drop', keep);
    return () => {
      window.removeEventListener('dragover', keep);
      window.removeEventListener('drop', keep);
    };
  }, []);

  function add(files: FileList | null) {
    if (!files || files.length === 0 || disabled) return;
    const added = queue.enqueue([...files], {
      orgId: props.org.id,
      orgName: props.org.name,
      fileType: fileType || null,
      maxBytes: limits?.maxBytes,
      uploadsPerMinute: limits?.uploadsPerMinute,
    });
    const refused = added.filter((item) => item.state === 'refused');
    setAnnouncement(
      refused.length > 0
        ? refused.map((item) => `${item.name} was not sent: ${item.message}`).join(' ')
        : `${added.length === 1 ? added[0].name : `${added.length} files`} added to the upload queue.`,
    );
  }

  function onDrop(event: DragEvent<HTMLDivElement>) {
    event.preventDefault();
    setDragging(false);
    add(event.dataTransfer.files);
  }

  function onChoose(event: ChangeEvent<HTMLInputElement>) {
    add(event.target.files);
    event.target.value = ''; // so choosing the same file again uploads it again
  }

  return (
    <Panel id="upload" title={`Upload to ${props.org.name}`}>
      {!props.canUpload && <p className="notice notice-warning">Uploading needs the write:upload permission, which your account does not have.</p>}
      <ErrorNotice error={props.limitsError} title="The upload limits could not be loaded (the service still checks them)" />
      <div
        className={`drop-zone${dragging ? ' dragging' : ''}${disabled ? ' disabled' : ''}`}
        data-testid="drop-zone"
        aria-describedby={hintId}
        onDragEnter={(event) => {
          event.preventDefault();
          setDragging(true);
        }}
        onDragOver={(event) => {
          event.preventDefault();
          event.dataTransfer.dropEffect = disabled ? 'none' : 'copy';
        }}
        onDragLeave={(event) => {
          if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setDragging(false);
        }}
        onDrop={onDrop}
      >
        <p className="drop-zone-title">
          <span aria-hidden="true">⇪ </span>Drop pnl or performance CSV files here
        </p>
        <div className="form-row drop-zone-controls">
          <label htmlFor={inputId}>
            Or choose files
            <input id={inputId} type="file" accept=".csv,text/csv" multiple disabled={disabled} onChange={onChoose} aria-describedby={hintId} />
          </label>
          <label>
            File type
            <select value={fileType} onChange={(event) => setFileType(event.target.value as FileType | '')} disabled={disabled}>
              <option value="">Detect from the header row</option>
              {(limits?.formats.map((format) => format.fileType) ?? (['pnl', 'performance'] as FileType[])).map((type) => (
                <option key={type} value={type}>
                  {TYPE_LABELS[type] ?? type}
                </option>
              ))}
            </select>
          </label>
        </div>
        <p className="hint" id={hintId}>
          {limits ? (
            <>
              Up to <strong>{formatBytes(limits.maxBytes)}</strong> ({bytes.format(limits.maxBytes)} bytes) per file, {limits.uploadsPerMinute} uploads a
              minute. Larger files are refused before sending.
            </>
          ) : props.limitsError ? (
            'The size limit is unknown; the service refuses files over it.'
          ) : (
            'Loading the upload limits…'
          )}
        </p>
      </div>
      {limits && <FormatHelp limits={limits} />}
      <div role="status" aria-live="polite" className="visually-hidden">
        {announcement}
      </div>
      {queue.items.length > 0 && (
        <section className="upload-queue" aria-label="Uploads">
          <div className="upload-queue-header">
            <h3>Uploads</h3>
            <button type="button" className="button-secondary button-small" onClick={queue.clearFinished}>
              Clear finished
            </button>
          </div>
          <ul>
            {queue.items.map((item) => (
              <QueueItem key={item.key} item={item} listed={item.file ? props.listed.get(item.file.id) : undefined} onCancel={() => queue.cancel(item.key)} />
            ))}
          </ul>
        </section>
      )}
    </Panel>
  );
}

function FormatHelp({ limits }: { limits: UploadLimits }) {
  return (
    <details className="format-help">
      <summary>Expected columns</summary>
      <ul>
        {limits.formats.map((format) => (
          <li key={format.fileType}>
            <strong>{format.fileType}</strong>: <code>{format.requiredColumns.join(', ')}</code>
            {format.optionalColumns.length > 0 && (
              <>
                {' '}
                (optional: <code>{format.optionalColumns.join(', ')}</code>)
              </>
            )}
          </li>
        ))}
      </ul>
    </details>
  );
}

function QueueItem({ item, listed, onCancel }: { item: UploadItem; listed: UploadedFile | undefined; onCancel: () => void }) {
  const percent = item.state === 'sent' ? 100 : item.size > 0 ? Math.min(100, Math.round((item.loaded / item.size) * 100)) : 0;
  const status = listed?.status ?? item.file?.status;
  const barClass =
    item.state === 'sent' ? 'progress-bar complete' : item.state === 'failed' || item.state === 'refused' ? 'progress-bar failed' : 'progress-bar';
  return (
    <li className={`upload-item upload-${item.state}`}>
      <div className="upload-item-head">
        <span className="upload-name">{item.name}</span>
        <span className="hint">
          {formatBytes(item.size)} → {item.orgName}
        </span>
        {(item.state === 'waiting' || item.state === 'sending') && (
          <button type="button" className="button-secondary button-small" onClick={onCancel} aria-label={`Cancel the upload of ${item.name}`}>
            Cancel
          </button>
        )}
      </div>
      {item.state !== 'refused' && (
        <div className={barClass} role="progressbar" aria-label={`Upload of ${item.name}`} aria-valuemin={0} aria-valuemax={100} aria-valuenow={percent}>
          <span style={{ width: `${percent}%` }} />
        </div>
      )}
      <p className="upload-item-status">
        {item.state === 'waiting' && <span className="hint">Waiting to send…</span>}
        {item.state === 'sending' && <span className="hint">Sending… {percent} %</span>}
        {item.state === 'sent' && (
          <>
            Uploaded as <strong>{item.file?.fileType}</strong>. Ingest: {status ? <Badge tone={toneOf(status)}>{status}</Badge> : 'queued'}
            {status === 'failed' && <span className="hint"> (the reasons are in the file list below)</span>}
          </>
        )}
        {(item.state === 'failed' || item.state === 'refused') && (
          <span className="upload-error">
            <strong>{item.state === 'refused' ? 'Not sent: ' : 'Upload failed: '}</strong>
            {item.message}
            {item.sessionEnded && (
              <>
                {' '}
                <button type="button" className="link-button" onClick={signInAgain}>
                  Sign in again
                </button>
              </>
            )}
          </span>
        )}
        {item.state === 'cancelled' && <span className="hint">{item.message}</span>}
      </p>
    </li>
  );
}
