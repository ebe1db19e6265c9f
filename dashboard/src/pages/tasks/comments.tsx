import { useState, type FormEvent } from 'react';
import { useMutation } from 'urql';
import { Panel } from '../../components/page.tsx';
import { EmptyState, ErrorNotice } from '../../components/notice.tsx';
import { formatDateTime } from '../../components/format.ts';
import { AddTaskComment, TASK_LISTS, type Task } from './api.ts';

const MAX_COMMENT = 10_000;

export function Comments({ task }: { task: Task }) {
  const [body, setBody] = useState('');
  const [invalid, setInvalid] = useState<string | null>(null);
  const [state, addComment] = useMutation(AddTaskComment);
  const [announcement, setAnnouncement] = useState('');

  async function submit(event?: FormEvent) {
    event?.preventDefault();
    if (state.fetching) return;
    const text = body.trim();
    if (!text) return setInvalid('Write a comment first.');
    if (text.length > MAX_COMMENT) return setInvalid(`A comment may be at most 10,000 characters (this one has ${text.length.toLocaleString()}).`);
    setInvalid(null);
    const result = await addComment({ input: { taskId: task.id, body: text } }, TASK_LISTS);
    if (result.data) {
      setBody('');
      setAnnouncement('Comment added.');
    }
  }

  return (
    <Panel id="comments" title={`Comments (${task.comments.length})`}>
      {task.comments.length === 0 ? (
        <EmptyState>No comments yet.</EmptyState>
      ) : (
        <ol className="comments">
          {task.comments.map((c) => (
            <li key={c.id} className="comment">
              <div className="comment-meta">
                <strong>{c.authorName ?? 'Someone'}</strong> <span className="hint">{formatDateTime(c.createdAt)}</span>
              </div>
              <p className="prewrap">{c.body}</p>
            </li>
          ))}
        </ol>
      )}
      <form className="stack comment-form" onSubmit={(e) => void submit(e)} noValidate>
        <label>
          Add a comment
          <textarea
            value={body}
            onChange={(e) => setBody(e.target.value)}
            rows={3}
            maxLength={MAX_COMMENT}
            onKeyDown={(e) => {
              // Ctrl+Enter / Cmd+Enter sends, as in most comment boxes; Enter alone is a new line.
              if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
                e.preventDefault();
                void submit();
              }
            }}
          />
        </label>
        {invalid && (
          <div className="notice notice-error" role="alert">
            {invalid}
          </div>
        )}
        <ErrorNotice error={state.error} title="Could not add the comment" />
        <div className="toolbar">
          <button type="submit" disabled={state.fetching}>
            {state.fetching ? 'Adding…' : 'Add comment'}
          </button>
          <span className="hint">Ctrl+Enter sends.</span>
          <span className="visually-hidden" role="status">
            {announcement}
          </span>
        </div>
      </form>
    </Panel>
  );
}
