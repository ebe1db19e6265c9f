import { useId, useState, type FormEvent, type ReactNode } from 'react';
import { useMutation, type CombinedError } from 'urql';
import { ConfirmButton } from '../../components/confirm-button.tsx';
import { ErrorNotice, Loading } from '../../components/notice.tsx';
import { CreateFolder, DeleteFolder, LIMITS, NO_FOLDER, RenameFolder, folderNameProblem, type LinkCounts, type LinkFolder } from './api.ts';

/** The folder list (a filter, with link counts) and the form that creates a folder. */
export function FolderList(props: {
  folders: LinkFolder[] | undefined;
  counts: LinkCounts | undefined;
  error: CombinedError | undefined;
  selected: string | null;
  onSelect: (id: string | null) => void;
  onCreated: (folder: LinkFolder) => void;
}) {
  return (
    <section className="panel folder-panel" aria-labelledby="folders-title">
      <h2 id="folders-title">Folders</h2>
      <ErrorNotice error={props.error} title="Could not load the folders" />
      {!props.folders && !props.error && <Loading label="Loading folders…" />}
      {props.folders && (
        <ul className="folder-list">
          <li>
            <button type="button" className="folder-button" aria-pressed={props.selected === null} onClick={() => props.onSelect(null)}>
              <span className="folder-name">All links</span> <FolderCount count={props.counts?.total} />
            </button>
          </li>
          <li>
            <button type="button" className="folder-button" aria-pressed={props.selected === NO_FOLDER} onClick={() => props.onSelect(NO_FOLDER)}>
              <span className="folder-name">No folder</span> <FolderCount count={props.counts?.unfiled} />
            </button>
          </li>
          {props.folders.map((folder) => (
            <li key={folder.id}>
              <button type="button" className="folder-button" aria-pressed={props.selected === folder.id} onClick={() => props.onSelect(folder.id)}>
                <span className="folder-name">{folder.name}</span> <FolderCount count={folder.linkCount} />
              </button>
            </li>
          ))}
        </ul>
      )}
      {props.folders?.length === 0 && <p className="hint">No folders yet. Folders group links; a link is in at most one.</p>}
      <NewFolderForm onCreated={props.onCreated} />
    </section>
  );
}

function FolderCount({ count }: { count: number | undefined }) {
  if (count === undefined) return null;
  return (
    <span className="folder-count">
      {count}
      <span className="visually-hidden"> {count === 1 ? 'link' : 'links'}</span>
    </span>
  );
}

/** A folder name input with its buttons beside it and the reason it cannot be sent below. */
function FolderNameField(props: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  problem: string | null;
  placeholder?: string;
  autoFocus?: boolean;
  children: ReactNode;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      <div className="inline-input">
        <input
          id={id}
          value={props.value}
          onChange={(e) => props.onChange(e.target.value)}
          maxLength={LIMITS.folderName}
          autoFocus={props.autoFocus}
          placeholder={props.placeholder}
          aria-invalid={props.problem ? true : undefined}
          aria-describedby={props.problem ? `${id}-problem` : undefined}
        />
        {props.children}
      </div>
      {props.problem && (
        <span id={`${id}-problem`} className="field-error">
          {props.problem}
        </span>
      )}
    </div>
  );
}

function NewFolderForm({ onCreated }: { onCreated: (folder: LinkFolder) => void }) {
  const [name, setName] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [state, create] = useMutation(CreateFolder);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const invalid = folderNameProblem(name);
    setProblem(invalid);
    if (invalid) return;
    const result = await create({ input: { name: name.trim() } });
    if (result.data) {
      setName('');
      onCreated(result.data.createLinkFolder);
    }
  }

  return (
    <form className="stack new-folder" onSubmit={submit} aria-label="Create a folder" noValidate>
      <FolderNameField label="New folder" value={name} onChange={setName} problem={problem} placeholder="e.g. Reading list">
        <button type="submit" className="button-secondary" disabled={state.fetching}>
          {state.fetching ? 'Creating…' : 'Create'}
        </button>
      </FolderNameField>
      <ErrorNotice error={state.error} title="Could not create the folder" />
    </form>
  );
}

/** Rename and delete for the folder being shown, in the list's header. */
export function FolderActions({
  folder,
  onRenamed,
  onDeleted,
}: {
  folder: LinkFolder;
  onRenamed: (folder: LinkFolder) => void;
  onDeleted: (folder: LinkFolder, movedLinks: number) => void;
}) {
  const [renaming, setRenaming] = useState(false);
  const [name, setName] = useState(folder.name);
  const [problem, setProblem] = useState<string | null>(null);
  const [renameState, rename] = useMutation(RenameFolder);
  const [deleteState, remove] = useMutation(DeleteFolder);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const invalid = folderNameProblem(name);
    setProblem(invalid);
    if (invalid) return;
    if (name.trim() === folder.name) return setRenaming(false);
    const result = await rename({ input: { id: folder.id, name: name.trim() } });
    if (result.data) {
      setRenaming(false);
      onRenamed(result.data.renameLinkFolder);
    }
  }

  async function onDelete() {
    const result = await remove({ id: folder.id });
    if (result.data) onDeleted(folder, result.data.deleteLinkFolder.movedLinks);
  }

  if (renaming) {
    return (
      <form
        className="rename-folder"
        onSubmit={submit}
        aria-label={`Rename folder ${folder.name}`}
        noValidate
        onKeyDown={(e) => e.key === 'Escape' && setRenaming(false)}
      >
        <FolderNameField label="Folder name" value={name} onChange={setName} problem={problem} autoFocus>
          <button type="submit" className="button-small" disabled={renameState.fetching}>
            {renameState.fetching ? 'Saving…' : 'Save'}
          </button>
          <button type="button" className="button-secondary button-small" onClick={() => setRenaming(false)}>
            Cancel
          </button>
        </FolderNameField>
        <ErrorNotice error={renameState.error} title="Could not rename the folder" />
      </form>
    );
  }
  return (
    <div className="folder-actions">
      <div className="toolbar">
        <button
          type="button"
          className="button-secondary button-small"
          onClick={() => {
            setName(folder.name);
            setProblem(null);
            setRenaming(true);
          }}
        >
          Rename folder
        </button>
        <ConfirmButton
          className="button-danger button-small"
          label="Delete folder"
          question={`Delete the folder “${folder.name}”? Its ${folder.linkCount} ${folder.linkCount === 1 ? 'link is' : 'links are'} kept and moved out of the folder.`}
          confirmLabel="Delete folder"
          disabled={deleteState.fetching}
          onConfirm={() => void onDelete()}
        />
      </div>
      <ErrorNotice error={deleteState.error} title="Could not delete the folder" />
    </div>
  );
}
