import { useId, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import type { CombinedError } from 'urql';
import { ErrorNotice } from '../../components/notice.tsx';
import { TagInput, parseTags, tagsToText } from '../../components/tag-input.tsx';
import { CONTENT_MAX, contentProblem } from './api.ts';
import { FormActions } from '../../components/form-actions.tsx';

/**
 * Content and tags of a sticky, for creating one and for editing one in place. The limits are
 * checked before sending; the service's own answer (e.g. CONFLICT) shows under the fields.
 */
export function StickyEditor(props: {
  label: string;
  initialContent?: string;
  initialTags?: string[];
  submitLabel: string;
  busyLabel: string;
  busy: boolean;
  error: CombinedError | undefined;
  errorTitle: string;
  /** Resolves true when saved (a create form then clears itself). */
  onSubmit: (content: string, tags: string[]) => Promise<boolean>;
  onCancel?: () => void;
  autoFocus?: boolean;
}) {
  const id = useId();
  const [content, setContent] = useState(props.initialContent ?? '');
  const [tagText, setTagText] = useState(tagsToText(props.initialTags ?? []));
  const [attempted, setAttempted] = useState(false);
  const contentRef = useRef<HTMLTextAreaElement>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const length = content.trim().length;
  const problem = contentProblem(content);
  // An empty box is not worth a red message until the person tries to save it.
  const shownProblem = attempted || length > CONTENT_MAX ? problem : null;
  const parsed = parseTags(tagText);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setAttempted(true);
    if (problem) return contentRef.current?.focus();
    if (parsed.problem) return formRef.current?.querySelector<HTMLInputElement>('.tag-input input')?.focus();
    if (await props.onSubmit(content.trim(), parsed.tags)) {
      if (props.initialContent === undefined) {
        setContent('');
        setTagText('');
      }
      setAttempted(false);
    }
  }

  function onKeyDown(event: KeyboardEvent) {
    // Ctrl/Cmd+Enter saves from the text box; Escape leaves an edit.
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) formRef.current?.requestSubmit();
    if (event.key === 'Escape' && props.onCancel) {
      event.preventDefault();
      props.onCancel();
    }
  }

  return (
    <form ref={formRef} className="stack sticky-editor" onSubmit={submit} aria-label={props.label} noValidate onKeyDown={onKeyDown}>
      <div className="field">
        <label htmlFor={`${id}-content`}>Content</label>
        <textarea
          id={`${id}-content`}
          ref={contentRef}
          value={content}
          onChange={(e) => setContent(e.target.value)}
          rows={3}
          placeholder="What do you want to remember?"
          aria-invalid={shownProblem ? true : undefined}
          aria-describedby={`${id}-count`}
          // Editing opens with the caret in the text; the create form does not steal focus on load.
          autoFocus={props.autoFocus}
        />
        <span id={`${id}-count`} className={shownProblem ? 'field-error' : 'hint'}>
          {shownProblem ?? `${length.toLocaleString()} / ${CONTENT_MAX.toLocaleString()} characters`}
        </span>
      </div>
      <TagInput value={tagText} onChange={setTagText} />
      <ErrorNotice error={props.error} title={props.errorTitle} />
      <FormActions busy={props.busy} submitLabel={props.submitLabel} busyLabel={props.busyLabel} onCancel={props.onCancel}>
        <span className="hint keyboard-hint">Ctrl+Enter saves.</span>
      </FormActions>
    </form>
  );
}
