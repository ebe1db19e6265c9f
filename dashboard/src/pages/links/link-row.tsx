import { useRef, useState } from 'react';
import { useMutation } from 'urql';
import { ConfirmButton } from '../../components/confirm-button.tsx';
import { ErrorNotice } from '../../components/notice.tsx';
import { formatDate } from '../../components/format.ts';
import { DeleteLink, UpdateLink, linkName, type Link, type LinkFolder, type LinkInput } from './api.ts';
import { LinkForm } from './link-form.tsx';

/** One saved link: star toggle, the link itself, tags (click one to search for it), edit and delete. */
export function LinkRow(props: { link: Link; folders: LinkFolder[]; onTagClick: (tag: string) => void; onDeleted: (link: Link) => void }) {
  const { link } = props;
  const [editing, setEditing] = useState(false);
  const [starState, star] = useMutation(UpdateLink);
  const [editState, edit] = useMutation(UpdateLink);
  const [deleteState, remove] = useMutation(DeleteLink);
  const editButton = useRef<HTMLButtonElement>(null);
  const name = linkName(link);
  const folder = props.folders.find((f) => f.id === link.folderId);

  function closeEditor() {
    setEditing(false);
    requestAnimationFrame(() => editButton.current?.focus());
  }

  async function save(input: LinkInput): Promise<boolean> {
    const result = await edit({ input: { id: link.id, ...input } });
    if (result.error) return false;
    closeEditor();
    return true;
  }

  async function onDelete() {
    const result = await remove({ id: link.id });
    if (!result.error) props.onDeleted(link);
  }

  if (editing) {
    return (
      <li className="link-row editing">
        <LinkForm
          label={`Edit link: ${name}`}
          link={link}
          folders={props.folders}
          submitLabel="Save"
          busyLabel="Saving…"
          busy={editState.fetching}
          error={editState.error}
          errorTitle="Could not save the link"
          onSubmit={save}
          onCancel={closeEditor}
        />
      </li>
    );
  }

  return (
    <li className="link-row">
      <button
        type="button"
        className={link.starred ? 'star-toggle starred' : 'star-toggle'}
        aria-pressed={link.starred}
        aria-label={`Star ${name}`}
        title={link.starred ? 'Starred: press to unstar' : 'Press to star'}
        disabled={starState.fetching}
        onClick={() => void star({ input: { id: link.id, starred: !link.starred } })}
      >
        <span aria-hidden="true">{link.starred ? '★' : '☆'}</span>
      </button>
      <div className="link-body">
        <a href={link.url} target="_blank" rel="noopener noreferrer" className="link-title">
          {name}
          <span className="visually-hidden"> (opens in a new tab)</span>
        </a>
        <span className="link-url">{link.url}</span>
        {link.tags.length > 0 && (
          <ul className="chip-list" aria-label="Tags">
            {link.tags.map((tag) => (
              <li key={tag}>
                <button type="button" className="chip" onClick={() => props.onTagClick(tag)}>
                  <span className="visually-hidden">Search for tag </span>
                  {tag}
                </button>
              </li>
            ))}
          </ul>
        )}
        <span className="hint">
          {folder ? <>In {folder.name} · </> : null}Added <time dateTime={link.createdAt}>{formatDate(link.createdAt)}</time>
        </span>
        <ErrorNotice error={starState.error} title="Could not change the star" />
        <ErrorNotice error={deleteState.error} title="Could not delete the link" />
      </div>
      <div className="link-actions">
        <button type="button" ref={editButton} className="button-secondary button-small" onClick={() => setEditing(true)} aria-label={`Edit ${name}`}>
          Edit
        </button>
        <ConfirmButton
          className="button-secondary button-small"
          label="Delete"
          ariaLabel={`Delete ${name}`}
          question={`Delete the link “${name}”? There is no trash for links: it is gone for good.`}
          confirmLabel="Delete link"
          disabled={deleteState.fetching}
          onConfirm={() => void onDelete()}
        />
      </div>
    </li>
  );
}
