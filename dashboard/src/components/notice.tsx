import type { ReactNode } from 'react';
import type { CombinedError } from 'urql';
import { describeError, isUnauthenticated, signInAgain } from '../api/errors.ts';

/** An API error in words, announced to screen readers; an ended session offers to sign in again. */
export function ErrorNotice({ error, title }: { error: CombinedError | Error | string | null | undefined; title?: string }) {
  if (!error) return null;
  const message = typeof error === 'string' ? error : describeError(error);
  const sessionEnded = typeof error !== 'string' && 'graphQLErrors' in error && isUnauthenticated(error);
  return (
    <div className="notice notice-error" role="alert">
      {title && <strong>{title}: </strong>}
      {message}
      {sessionEnded && (
        <>
          {' '}
          <button type="button" className="link-button" onClick={signInAgain}>
            Sign in again
          </button>
        </>
      )}
    </div>
  );
}

export function SuccessNotice({ children }: { children: ReactNode }) {
  return (
    <div className="notice notice-success" role="status">
      {children}
    </div>
  );
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p className="loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" /> {label}
    </p>
  );
}

export function EmptyState({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>;
}
