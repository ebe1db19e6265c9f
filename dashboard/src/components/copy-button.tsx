import { useState } from 'react';

/** Copies a text to the clipboard and says so; falls back to selecting it when the clipboard is unavailable. */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('failed');
    }
  }
  return (
    <>
      <button type="button" className="button-secondary" onClick={copy}>
        {state === 'copied' ? 'Copied' : label}
      </button>
      <span role="status" className="visually-hidden">
        {state === 'copied' ? 'Copied to the clipboard' : state === 'failed' ? 'Could not copy: select the text and copy it yourself' : ''}
      </span>
      {state === 'failed' && <span className="hint">Select the text and copy it yourself.</span>}
    </>
  );
}
