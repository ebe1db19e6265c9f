import { useRef, useState } from 'react';
import { useMutation } from 'urql';
import { ErrorNotice } from '../../components/notice.tsx';
import { formatDateTime } from '../../components/format.ts';
import { DeleteSticky, RestoreSticky, UpdateSticky, excerpt, type Sticky } from './api.ts';
import { StickyEditor } from './sticky-editor.tsx';
import { StickyHistory } from './sticky-history.tsx';

/** Long notes fold to this many characters until "Show all" is pressed. */
const FOLD_AT = 480;

export function StickyCard(props: {
  sticky: Sticky;
  activeTags: string[];
  onTagClick: (tag: string) => void;
  onTrashed: (sticky: Sticky) => void;
  onRestored: (sticky: Sticky) => void;
}) {
  const { sticky } = props;
  const [editing, setEditing] = useState(false);
  const [expanded, setExpanded] = useState(false);
  const [updateState, update] = useMutation(UpdateSticky);
  const [deleteState, remove] = useMutation(DeleteSticky);
  const [restoreState, restore] = useMutation(RestoreSticky);
  const editButton = useRef<HTMLButtonElement>(null);
  const name = excerpt(sticky.content);
  const trashed = sticky.deletedAt !== null;
  const long = sticky.content.length > FOLD_AT;

  function closeEditor() {
    setEditing(false);
    // Back to where the keyboard was before editing.
    requestAnimationFrame(() => editButton.current?.focus());
  }

  async function save(content: string, tags: string[]): Promise<boolean> {
    const changedContent = content !== sticky.content;
    const changedTags = tags.join('\n') !== sticky.tags.join('\n');
    if (!changedContent && !changedTags) {
      closeEditor();
      return true;
    }
    const result = await update({ input: { id: sticky.id, ...(changedContent ? { content } : {}), ...(changedTags ? { tags } : {}) } });
    if (result.error) return false;
    closeEditor();
    return true;
  }

  async function moveToTrash() {
    const result = await remove({ id: sticky.id });
    if (result.data) props.onTrashed(result.data.deleteSticky);
  }

  async function takeOut() {
    const result = await restore({ id: sticky.id });
    if (result.data) props.onRestored(result.data.restoreSticky);
  }

  return (
    <article className={trashed ? 'card sticky trashed' : 'card sticky'} aria-label={`Sticky: ${name}`}>
      {editing ? (
        <StickyEditor
          label={`Edit sticky: ${name}`}
          initialContent={sticky.content}
          initialTags={sticky.tags}
          submitLabel="Save"
          busyLabel="Saving…"
          busy={updateState.fetching}
          error={updateState.error}
          errorTitle="Could not save"
          onSubmit={save}
          onCancel={closeEditor}
          autoFocus
        />
      ) : (
        <>
          <p className={long && !expanded ? 'sticky-content folded' : 'sticky-content'}>
            {long && !expanded ? `${sticky.content.slice(0, FOLD_AT)}…` : sticky.content}
          </p>
          {long && (
            <button type="button" className="link-button fold-toggle" aria-expanded={expanded} onClick={() => setExpanded((e) => !e)}>
              {expanded ? 'Show less' : 'Show all'}
            </button>
          )}
          {sticky.tags.length > 0 && (
            <ul className="chip-list" aria-label="Tags">
              {sticky.tags.map((tag) => (
                <li key={tag}>
                  <button type="button" className="chip" aria-pressed={props.activeTags.includes(tag)} onClick={() => props.onTagClick(tag)} disabled={trashed}>
                    <span className="visually-hidden">Filter by tag </span>
                    {tag}
                  </button>
                </li>
              ))}
            </ul>
          )}
        </>
      )}
      <p className="sticky-meta hint">
        {trashed ? (
          <>
            In the trash since <time dateTime={sticky.deletedAt ?? undefined}>{formatDateTime(sticky.deletedAt)}</time>
          </>
        ) : (
          <>
            Updated <time dateTime={sticky.updatedAt}>{formatDateTime(sticky.updatedAt)}</time>
          </>
        )}
        {' · '}v{sticky.version}
      </p>
      <ErrorNotice error={deleteState.error} title="Could not move it to the trash" />
      <ErrorNotice error={restoreState.error} title="Could not restore it" />
      {!editing && (
        <div className="toolbar sticky-actions">
          {trashed ? (
            <button
              type="button"
              className="button-small"
              onClick={() => void takeOut()}
              disabled={restoreState.fetching}
              aria-label={`Restore sticky: ${name}`}
            >
              {restoreState.fetching ? 'Restoring…' : 'Restore'}
            </button>
          ) : (
            <>
              <button
                type="button"
                ref={editButton}
                className="button-secondary button-small"
                onClick={() => setEditing(true)}
                aria-label={`Edit sticky: ${name}`}
              >
                Edit
              </button>
              <button
                type="button"
                className="button-secondary button-small"
                onClick={() => void moveToTrash()}
                disabled={deleteState.fetching}
                aria-label={`Move to trash: ${name}`}
              >
                {deleteState.fetching ? 'Moving…' : 'Move to trash'}
              </button>
            </>
          )}
        </div>
      )}
      <StickyHistory id={sticky.id} version={sticky.version} />
    </article>
  );
}
