import { useMemo, useState, type ReactNode } from 'react';
import { Link, useLocation } from 'wouter';
import { useMutation, useQuery } from 'urql';
import { Page, Panel } from '../../components/page.tsx';
import { EmptyState, ErrorNotice, Loading, SuccessNotice } from '../../components/notice.tsx';
import { ConfirmButton } from '../../components/confirm-button.tsx';
import { formatDateTime, plural } from '../../components/format.ts';
import { useNavigationState } from '../../components/navigation-state.ts';
import { useDebounced } from '../../components/use-debounced.ts';
import {
  DeleteTranscript,
  TranscriptQuery,
  TRANSCRIPT_LISTS,
  UUID_PATTERN,
  formatClock,
  formatDuration,
  isoDuration,
  useTranscriptsWritable,
  type Sentence,
  type Transcript,
} from './api.ts';

const BACK = <Link href="/transcripts">← All transcripts</Link>;

export function TranscriptView({ id }: { id: string }) {
  const valid = UUID_PATTERN.test(id);
  const [{ data, error, fetching }] = useQuery({ query: TranscriptQuery, variables: { id }, pause: !valid });
  const writable = useTranscriptsWritable();
  const imported = useNavigationState<{ title: string; sentenceCount: number }>('importedTranscript');
  const [deletion, deleteTranscript] = useMutation(DeleteTranscript);
  const [, navigate] = useLocation();
  const transcript = data?.transcript;

  async function onDelete(t: Transcript) {
    const result = await deleteTranscript({ id: t.id }, TRANSCRIPT_LISTS);
    if (!result.error) navigate('/transcripts', { state: { deletedTranscript: t.title } });
  }

  if (!valid || (error && !transcript)) {
    return (
      <Page title="Transcript">
        {BACK}
        <ErrorNotice error={valid ? error : 'There is no transcript at this address.'} title="Could not open the transcript" />
      </Page>
    );
  }
  if (!transcript) {
    return (
      <Page title="Transcript">
        {BACK}
        {fetching && <Loading label="Loading the transcript…" />}
      </Page>
    );
  }
  return (
    <Page
      title={transcript.title}
      intro={
        <>
          {formatDateTime(transcript.occurredAt)} · <time dateTime={isoDuration(transcript.durationSeconds)}>{formatDuration(transcript.durationSeconds)}</time>{' '}
          · {plural(transcript.sentenceCount, 'sentence')}
          {transcript.participants.length > 0 && <> · {transcript.participants.join(', ')}</>}
        </>
      }
      actions={
        writable && (
          <ConfirmButton
            label="Delete"
            ariaLabel={`Delete the transcript ${transcript.title}`}
            question={`Delete “${transcript.title}” and its ${plural(transcript.sentenceCount, 'sentence')}? This cannot be undone.`}
            confirmLabel="Delete"
            disabled={deletion.fetching}
            onConfirm={() => void onDelete(transcript)}
          />
        )
      }
    >
      {BACK}
      {imported && (
        <SuccessNotice>
          Imported “{imported.title}”: {plural(imported.sentenceCount, 'sentence')}.
        </SuccessNotice>
      )}
      <ErrorNotice error={deletion.error} title="Could not delete the transcript" />
      <Sentences transcript={transcript} />
    </Page>
  );
}

/** The sentences, with a speaker filter and a word search that highlights what it finds. */
function Sentences({ transcript }: { transcript: Transcript }) {
  const [speaker, setSpeaker] = useState<string | null>(null);
  const [search, setSearch] = useState('');
  const needle = useDebounced(search.trim().toLowerCase(), 200);
  const speakers = useMemo(() => speakerCounts(transcript.sentences), [transcript.sentences]);
  const colour = useMemo(() => new Map([...speakers.keys()].map((name, index) => [name, index % 8])), [speakers]);
  const shown = transcript.sentences.filter((s) => (speaker === null || s.speaker === speaker) && (!needle || s.text.toLowerCase().includes(needle)));
  const filtered = speaker !== null || needle !== '';

  return (
    <Panel id="sentences" title="Transcript">
      <div className="transcript-tools">
        <div role="group" aria-label="Show the sentences of" className="speaker-chips">
          <button type="button" className="chip" aria-pressed={speaker === null} onClick={() => setSpeaker(null)}>
            Everyone <span className="chip-count">{transcript.sentences.length}</span>
          </button>
          {[...speakers].map(([name, count]) => (
            <button key={name} type="button" className="chip" aria-pressed={speaker === name} onClick={() => setSpeaker(speaker === name ? null : name)}>
              <span className={`speaker-dot c${colour.get(name)}`} aria-hidden="true" />
              {name} <span className="chip-count">{count}</span>
            </button>
          ))}
        </div>
        <label className="transcript-search">
          Find words
          <input type="search" value={search} onChange={(e) => setSearch(e.target.value)} placeholder="e.g. Keystone" />
        </label>
      </div>
      <p className="hint" role="status" aria-live="polite">
        {filtered ? `Showing ${shown.length} of ${plural(transcript.sentences.length, 'sentence')}.` : ''}
      </p>
      {transcript.sentences.length === 0 && <EmptyState>This transcript has no sentences.</EmptyState>}
      {transcript.sentences.length > 0 && shown.length === 0 && <EmptyState>No sentence matches. Choose another speaker or other words.</EmptyState>}
      {/* Long meetings (up to 20,000 sentences) render only the rows near the screen. */}
      <ol className={shown.length > 300 ? 'sentences sentences-long' : 'sentences'}>
        {shown.map((sentence, index) => {
          const sameSpeaker = index > 0 && shown[index - 1].speaker === sentence.speaker;
          return (
            <li key={`${sentence.startSeconds}-${index}`} className={sameSpeaker ? 'sentence continued' : 'sentence'}>
              <time className="sentence-time" dateTime={isoDuration(sentence.startSeconds)}>
                {formatClock(sentence.startSeconds)}
              </time>
              <div className="sentence-body">
                {/* Repeated names are hidden visually only: a screen reader still hears who speaks. */}
                <span className={sameSpeaker ? 'visually-hidden' : 'sentence-speaker'}>
                  <span className={`speaker-dot c${colour.get(sentence.speaker)}`} aria-hidden="true" />
                  {sentence.speaker}
                  <span className="visually-hidden">: </span>
                </span>
                <p>{highlight(sentence.text, needle)}</p>
              </div>
            </li>
          );
        })}
      </ol>
    </Panel>
  );
}

function speakerCounts(sentences: Sentence[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const s of sentences) counts.set(s.speaker, (counts.get(s.speaker) ?? 0) + 1);
  return counts;
}

/** The text with every occurrence of `needle` (lower case) in <mark>. */
function highlight(text: string, needle: string): ReactNode {
  if (!needle) return text;
  const parts: ReactNode[] = [];
  const lower = text.toLowerCase();
  let from = 0;
  for (let at = lower.indexOf(needle); at >= 0; at = lower.indexOf(needle, at + needle.length)) {
    parts.push(text.slice(from, at), <mark key={at}>{text.slice(at, at + needle.length)}</mark>);
    from = at + needle.length;
  }
  parts.push(text.slice(from));
  return parts;
}
