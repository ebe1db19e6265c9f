import { useEffect, useId, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { MAX_MESSAGE } from './api.ts';

/**
 * The message box. Enter sends, Shift+Enter starts a new line. While a reply is awaited the box
 * is disabled and keeps the text; it empties only once the message was sent, so a failed send
 * loses nothing.
 */
export function Composer(props: {
  draft: string;
  onDraft: (text: string) => void;
  waiting: boolean;
  onSend: (text: string) => Promise<boolean>;
  autoFocus?: boolean;
}) {
  const box = useRef<HTMLTextAreaElement>(null);
  const hintId = useId();
  const [invalid, setInvalid] = useState<string | null>(null);
  const { draft, onDraft, waiting, onSend } = props;

  useEffect(() => {
    if (props.autoFocus) box.current?.focus();
  }, [props.autoFocus]);

  async function send(event?: FormEvent) {
    event?.preventDefault();
    if (waiting || !draft.trim()) return;
    if (draft.length > MAX_MESSAGE) return setInvalid(`A message may be at most 20,000 characters; this one has ${draft.length.toLocaleString()}.`);
    setInvalid(null);
    const sent = await onSend(draft);
    if (sent) onDraft('');
    // The box was disabled while waiting (which drops focus): give it back for the next message.
    window.setTimeout(() => box.current?.focus());
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    // Not while an input method is composing a character: its Enter confirms the character.
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void send();
    }
  }

  return (
    <form className="composer" onSubmit={(e) => void send(e)} noValidate>
      <label htmlFor="chat-message" className="composer-label">
        Message
      </label>
      <div className="composer-row">
        <textarea
          id="chat-message"
          ref={box}
          value={draft}
          onChange={(e) => onDraft(e.target.value)}
          onKeyDown={onKeyDown}
          disabled={waiting}
          aria-describedby={hintId}
          rows={2}
          placeholder="Ask about your returns, files, tasks, news, notes or meetings…"
        />
        <button type="submit" disabled={waiting || !draft.trim()}>
          {waiting ? 'Sending…' : 'Send'}
        </button>
      </div>
      <p className="hint composer-hint" id={hintId}>
        Enter sends, Shift+Enter starts a new line.
        {draft.length > MAX_MESSAGE * 0.9 && ` ${draft.length.toLocaleString()} of 20,000 characters.`}
      </p>
      {invalid && (
        <div className="notice notice-error" role="alert">
          {invalid}
        </div>
      )}
    </form>
  );
}
