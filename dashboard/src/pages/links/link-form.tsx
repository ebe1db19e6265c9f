import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import type { CombinedError } from 'urql';
import { ErrorNotice } from '../../components/notice.tsx';
import { TagInput, parseTags, tagsToText } from '../../components/tag-input.tsx';
import { titleProblem, urlProblem, type Link, type LinkFolder, type LinkInput } from './api.ts';
import { FormActions } from '../../components/form-actions.tsx';

/** "example.com/page" becomes "https://example.com/page": people often leave the scheme out. */
function withScheme(text: string): string {
  const value = text.trim();
  return /^[a-z][a-z0-9+.-]*:/i.test(value) || !/^[^\s/]+\.[a-z]{2,}(\/|$|:|\?)/i.test(value) ? value : `https://${value}`;
}

/** Add a link, or edit one in place: URL, title, tags, folder (and a star when adding). */
export function LinkForm(props: {
  label: string;
  link?: Link;
  folders: LinkFolder[];
  defaultFolderId?: string | null;
  submitLabel: string;
  busyLabel: string;
  busy: boolean;
  error: CombinedError | undefined;
  errorTitle: string;
  onSubmit: (input: LinkInput) => Promise<boolean>;
  onCancel?: () => void;
}) {
  const id = useId();
  const editing = props.link !== undefined;
  const [url, setUrl] = useState(props.link?.url ?? '');
  const [title, setTitle] = useState(props.link?.title ?? '');
  const [tagText, setTagText] = useState(tagsToText(props.link?.tags ?? []));
  const [folderId, setFolderId] = useState(props.link ? (props.link.folderId ?? '') : (props.defaultFolderId ?? ''));
  const [starred, setStarred] = useState(false);
  const [attempted, setAttempted] = useState(false);
  // A new link goes to the folder being shown, also after switching folders (typed text is kept).
  useEffect(() => {
    if (!editing) setFolderId(props.defaultFolderId ?? '');
  }, [editing, props.defaultFolderId]);
  const form = useRef<HTMLFormElement>(null);
  const problems = { url: urlProblem(withScheme(url)), title: titleProblem(title), tags: parseTags(tagText).problem };
  const shownUrlProblem = attempted ? problems.url : null;

  async function submit(event: FormEvent) {
    event.preventDefault();
    setAttempted(true);
    const first = (['url', 'title', 'tags'] as const).find((field) => problems[field]);
    if (first) return form.current?.querySelector<HTMLInputElement>(`[data-field="${first}"] input, input[data-field="${first}"]`)?.focus();
    const input: LinkInput = {
      url: withScheme(url),
      title: title.trim() || null,
      tags: parseTags(tagText).tags,
      folderId: folderId || null,
      ...(editing ? {} : { starred }),
    };
    if (await props.onSubmit(input)) {
      if (!editing) {
        setUrl('');
        setTitle('');
        setTagText('');
        setStarred(false);
      }
      setAttempted(false);
    }
  }

  return (
    <form
      ref={form}
      className="stack link-form"
      onSubmit={submit}
      aria-label={props.label}
      noValidate
      onKeyDown={(e) => {
        if (e.key === 'Escape' && props.onCancel) props.onCancel();
      }}
    >
      <div className="link-form-grid">
        <div className="field">
          <label htmlFor={`${id}-url`}>URL</label>
          <input
            id={`${id}-url`}
            data-field="url"
            type="url"
            inputMode="url"
            value={url}
            onChange={(e) => setUrl(e.target.value)}
            placeholder="https://example.com/article"
            aria-invalid={shownUrlProblem ? true : undefined}
            aria-describedby={`${id}-url-hint`}
            autoFocus={editing}
            autoComplete="url"
          />
          <span id={`${id}-url-hint`} className={shownUrlProblem ? 'field-error' : 'hint'}>
            {shownUrlProblem ?? 'http or https; https:// is added when left out.'}
          </span>
        </div>
        <div className="field">
          <label htmlFor={`${id}-title`}>Title (optional)</label>
          <input
            id={`${id}-title`}
            data-field="title"
            value={title}
            onChange={(e) => setTitle(e.target.value)}
            aria-invalid={problems.title ? true : undefined}
            aria-describedby={problems.title ? `${id}-title-problem` : undefined}
          />
          {problems.title && (
            <span id={`${id}-title-problem`} className="field-error">
              {problems.title}
            </span>
          )}
        </div>
        <div data-field="tags">
          <TagInput value={tagText} onChange={setTagText} placeholder="e.g. reading, api" />
        </div>
        <label>
          Folder
          <select value={folderId} onChange={(e) => setFolderId(e.target.value)}>
            <option value="">No folder</option>
            {props.folders.map((folder) => (
              <option key={folder.id} value={folder.id}>
                {folder.name}
              </option>
            ))}
          </select>
        </label>
      </div>
      {!editing && (
        <label className="checkbox">
          <input type="checkbox" checked={starred} onChange={(e) => setStarred(e.target.checked)} />
          Star it
        </label>
      )}
      <ErrorNotice error={props.error} title={props.errorTitle} />
      <FormActions busy={props.busy} submitLabel={props.submitLabel} busyLabel={props.busyLabel} onCancel={props.onCancel} />
    </form>
  );
}
