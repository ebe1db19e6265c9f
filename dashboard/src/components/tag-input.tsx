import { useId } from 'react';
import './tag-input.css';

/** The workspace limits on tags (schema: "At most 20 tags of at most 50 characters"). */
export const TAG_LIMITS = { count: 20, length: 50 } as const;

export interface ParsedTags {
  tags: string[];
  /** What is wrong, in words; null when the tags can be sent. */
  problem: string | null;
}

/**
 * Comma-separated text as the service stores tags: trimmed, lower-cased, de-duplicated, blanks
 * dropped. Checks the documented limits so the form can say what is wrong before sending.
 */
export function parseTags(text: string, limits: { count: number; length: number } = TAG_LIMITS): ParsedTags {
  const seen = new Set<string>();
  for (const raw of text.split(',')) {
    const tag = raw.trim().toLowerCase();
    if (tag) seen.add(tag);
  }
  const tags = [...seen];
  const tooLong = tags.find((tag) => tag.length > limits.length);
  let problem: string | null = null;
  if (tags.length > limits.count) problem = `At most ${limits.count} tags are allowed; you have ${tags.length}.`;
  else if (tooLong) problem = `Each tag may be at most ${limits.length} characters; “${tooLong.slice(0, 20)}…” has ${tooLong.length}.`;
  // The service refuses control characters in tags.
  else if (tags.some((tag) => /[\u0000-\u001f\u007f]/.test(tag))) problem = 'Tags may not contain control characters.';
  return { tags, problem };
}

/** Tags as the text the input shows. */
export function tagsToText(tags: readonly string[]): string {
  return tags.join(', ');
}

/**
 * A comma-separated tags field with a preview of the tags that will be saved (as chips) and
 * the problem, if any, tied to the input with aria-describedby.
 */
export function TagInput(props: {
  label?: string;
  value: string;
  onChange: (value: string) => void;
  showProblem?: boolean;
  placeholder?: string;
  disabled?: boolean;
}) {
  const id = useId();
  const { tags, problem } = parseTags(props.value);
  const shown = problem && (props.showProblem ?? true) ? problem : null;
  return (
    <div className="field tag-input">
      <label htmlFor={id}>{props.label ?? 'Tags'}</label>
      <input
        id={id}
        value={props.value}
        onChange={(e) => props.onChange(e.target.value)}
        placeholder={props.placeholder ?? 'e.g. close, urgent'}
        aria-invalid={shown ? true : undefined}
        aria-describedby={`${id}-hint`}
        disabled={props.disabled}
        autoComplete="off"
      />
      <span id={`${id}-hint`} className={shown ? 'field-error' : 'hint'}>
        {shown ?? (tags.length === 0 ? `Separate tags with commas (at most ${TAG_LIMITS.count}).` : `${tags.length} of ${TAG_LIMITS.count} tags`)}
      </span>
      {tags.length > 0 && !shown && (
        <ul className="tag-preview">
          {tags.map((tag) => (
            <li key={tag} className="tag">
              {tag}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
