import { useId, useState, type ChangeEvent, type FormEvent } from 'react';
import { useLocation } from 'wouter';
import { useMutation } from 'urql';
import { Panel } from '../../components/page.tsx';
import { ErrorNotice } from '../../components/notice.tsx';
import { formatBytes } from '../../components/format.ts';
import { localDateTimeToIso } from '../tasks/fields.ts';
import { ImportTranscript, TRANSCRIPT_LISTS, type TranscriptFormat } from './api.ts';

const MAX_BYTES = 5 * 1024 * 1024;
const FORMAT_NAMES: Record<TranscriptFormat, string> = { VTT: 'WebVTT', SRT: 'SRT', JSON: 'JSON' };

/** The format a file's name or its first characters suggest: WEBVTT header, a JSON object, else SRT. */
export function detectFormat(content: string, fileName?: string): TranscriptFormat {
  const extension = fileName?.split('.').pop()?.toLowerCase();
  if (extension === 'vtt') return 'VTT';
  if (extension === 'srt') return 'SRT';
  if (extension === 'json') return 'JSON';
  const start = content.replace(/^\uFEFF/, '').trimStart();
  if (start.startsWith('WEBVTT')) return 'VTT';
  if (start.startsWith('{') || start.startsWith('[')) return 'JSON';
  return 'SRT';
}

export function ImportForm({ onCancel }: { onCancel: () => void }) {
  const [, navigate] = useLocation();
  const [content, setContent] = useState('');
  const [fileName, setFileName] = useState<string | undefined>();
  const [format, setFormat] = useState<TranscriptFormat | ''>('');
  const [title, setTitle] = useState('');
  const [occurredAt, setOccurredAt] = useState('');
  const [invalid, setInvalid] = useState<string | null>(null);
  const [state, importTranscript] = useMutation(ImportTranscript);
  const hintId = useId();
  const detected = content.trim() ? detectFormat(content, fileName) : null;
  const effective = format || detected;

  async function chooseFile(event: ChangeEvent<HTMLInputElement>) {
    const file = event.target.files?.[0];
    if (!file) return;
    if (file.size > MAX_BYTES) {
      setInvalid(`“${file.name}” is ${formatBytes(file.size)}; a transcript may be at most 5 MB.`);
      return;
    }
    setInvalid(null);
    setFileName(file.name);
    setContent(await file.text());
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!content.trim() || !effective) return setInvalid('Choose a file or paste the transcript’s text.');
    const bytes = new TextEncoder().encode(content).length;
    if (bytes > MAX_BYTES) return setInvalid(`The transcript is ${formatBytes(bytes)}; it may be at most 5 MB.`);
    if (title.trim().length > 500) return setInvalid('The title may be at most 500 characters.');
    if (effective === 'SRT' && !title.trim()) return setInvalid('SRT files carry no title: give the meeting a title.');
    setInvalid(null);
    const result = await importTranscript(
      {
        input: {
          content,
          format: effective,
          ...(title.trim() ? { title: title.trim() } : {}),
          ...(occurredAt ? { occurredAt: localDateTimeToIso(occurredAt) } : {}),
        },
      },
      TRANSCRIPT_LISTS,
    );
    const created = result.data?.importTranscript;
    if (created) navigate(`/transcripts/${created.id}`, { state: { importedTranscript: created } });
  }

  return (
    <Panel id="import-transcript" title="Import a transcript">
      <form className="stack" onSubmit={submit} noValidate aria-describedby={hintId}>
        <p className="hint" id={hintId}>
          WebVTT (speakers from <code>&lt;v Name&gt;</code> or a <code>Name:</code> prefix), SRT (a <code>Name:</code> prefix) or the JSON format described in{' '}
          <code>docs/workspace.md</code> (Transcripts, Import); at most 5 MB.
        </p>
        <label>
          Transcript file
          <input type="file" accept=".vtt,.srt,.json,.txt,text/vtt,application/json,text/plain" onChange={(e) => void chooseFile(e)} />
        </label>
        <label>
          Or paste its text
          <textarea
            className="transcript-content"
            value={content}
            onChange={(e) => {
              setContent(e.target.value);
              setFileName(undefined);
            }}
            rows={8}
            spellCheck={false}
            placeholder={'WEBVTT - Weekly call\n\n00:00:01.000 --> 00:00:04.000\n<v Ana>Good morning, everyone.'}
          />
        </label>
        <div className="form-row">
          <label>
            Format
            <select value={format} onChange={(e) => setFormat(e.target.value as TranscriptFormat | '')}>
              <option value="">{detected ? `Detect (${FORMAT_NAMES[detected]})` : 'Detect from the content'}</option>
              <option value="VTT">WebVTT</option>
              <option value="SRT">SRT</option>
              <option value="JSON">JSON</option>
            </select>
          </label>
          <label className="grow">
            Title <span className="hint">(optional unless the file has none)</span>
            <input value={title} onChange={(e) => setTitle(e.target.value)} maxLength={500} />
          </label>
          <label>
            Held at <span className="hint">(optional)</span>
            <input type="datetime-local" value={occurredAt} onChange={(e) => setOccurredAt(e.target.value)} />
          </label>
        </div>
        {invalid && (
          <div className="notice notice-error" role="alert">
            {invalid}
          </div>
        )}
        <ErrorNotice error={state.error} title="Could not import the transcript" />
        <div className="toolbar">
          <button type="submit" disabled={state.fetching}>
            {state.fetching ? 'Importing…' : 'Import'}
          </button>
          <button type="button" className="button-secondary" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </form>
    </Panel>
  );
}
