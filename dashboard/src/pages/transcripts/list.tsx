import { useState } from 'react';
import { Link } from 'wouter';
import { useQuery } from 'urql';
import { Page, Panel } from '../../components/page.tsx';
import { EmptyState, ErrorNotice, Loading, SuccessNotice } from '../../components/notice.tsx';
import { Pager, useCursorPager } from '../../components/pager.tsx';
import { formatDateTime } from '../../components/format.ts';
import { useNavigationState } from '../../components/navigation-state.ts';
import { TranscriptsQuery, TRANSCRIPTS_PAGE_SIZE, formatDuration, isoDuration, useTranscriptsWritable } from './api.ts';
import { ImportForm } from './import-form.tsx';

export function TranscriptList() {
  const pager = useCursorPager();
  const [{ data, error, fetching }] = useQuery({ query: TranscriptsQuery, variables: { first: TRANSCRIPTS_PAGE_SIZE, after: pager.after } });
  const deleted = useNavigationState<string>('deletedTranscript');
  const [importing, setImporting] = useState(false);
  const writable = useTranscriptsWritable();
  const transcripts = data?.transcripts.edges.map((edge) => edge.node) ?? [];

  return (
    <Page
      title="Transcripts"
      intro={
        writable
          ? 'Your meeting transcripts, newest first. Open one to read who said what, and when.'
          : 'Your meeting transcripts from the transcription service, newest first (read-only here). Open one to read who said what, and when.'
      }
      actions={
        writable && (
          <button type="button" aria-expanded={importing} aria-controls="import-transcript" onClick={() => setImporting((open) => !open)}>
            {importing ? 'Close the import' : 'Import a transcript'}
          </button>
        )
      }
    >
      {deleted && <SuccessNotice>“{deleted}” was deleted.</SuccessNotice>}
      {writable && importing && <ImportForm onCancel={() => setImporting(false)} />}
      <Panel id="transcript-list" title="Meetings">
        <ErrorNotice error={error} title="Could not load your transcripts" />
        {fetching && !data && <Loading label="Loading transcripts…" />}
        {data && transcripts.length === 0 && (
          <EmptyState>
            {pager.page > 1
              ? 'No more transcripts.'
              : writable
                ? 'You have no transcripts yet. Import a WebVTT, SRT or JSON file to start.'
                : 'The transcription service has no transcripts for you yet.'}
          </EmptyState>
        )}
        {transcripts.length > 0 && (
          <div className="table-wrap" tabIndex={0}>
            <table className="data stack" aria-label="Transcripts">
              <thead>
                <tr>
                  <th scope="col">Title</th>
                  <th scope="col">When</th>
                  <th scope="col" className="num">
                    Duration
                  </th>
                  <th scope="col">Speakers</th>
                  <th scope="col" className="num">
                    Sentences
                  </th>
                </tr>
              </thead>
              <tbody>
                {transcripts.map((t) => (
                  <tr key={t.id}>
                    <td>
                      <Link href={`/transcripts/${t.id}`}>{t.title}</Link>
                    </td>
                    <td data-label="When" className="nowrap">
                      {formatDateTime(t.occurredAt)}
                    </td>
                    <td data-label="Duration" className="num">
                      <time dateTime={isoDuration(t.durationSeconds)}>{formatDuration(t.durationSeconds)}</time>
                    </td>
                    <td data-label="Speakers">{t.participants.length > 0 ? t.participants.join(', ') : <span className="hint">not named</span>}</td>
                    <td data-label="Sentences" className="num">
                      {t.sentenceCount}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <Pager pager={pager} pageInfo={data?.transcripts.pageInfo} label="Transcripts" />
      </Panel>
    </Page>
  );
}
