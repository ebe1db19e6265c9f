import type { CombinedError } from 'urql';

/** Sends the browser to sign in again when the session has ended, coming back to this page. */
export function signInAgain(): void {
  const next = `/${window.location.hash}`;
  window.location.assign(`/login?next=${encodeURIComponent(next)}`);
}

/** True when the error says the session is gone (expired cookie, signed out in another tab). */
export function isUnauthenticated(error: CombinedError | undefined): boolean {
  return !!error?.graphQLErrors.some((e) => e.extensions?.code === 'UNAUTHENTICATED') || error?.response?.status === 401;
}

/** An API error in words a person can act on: the service's own message, never a stack or "[object Object]". */
export function describeError(error: unknown): string {
  if (!error) return '';
  const combined = error as Partial<CombinedError>;
  if (combined.graphQLErrors && combined.graphQLErrors.length > 0) {
    return combined.graphQLErrors.map((e) => withRetryHint(e.message, e.extensions?.retryAfterSeconds)).join(' ');
  }
  if (combined.networkError) return networkMessage(combined.networkError);
  if (error instanceof Error) return error.message;
  return String(error);
}

function withRetryHint(message: string, retryAfter: unknown): string {
  return typeof retryAfter === 'number' ? `${message} Try again in ${retryAfter} s.` : message;
}

function networkMessage(error: Error): string {
  if (/fetch|network/i.test(error.message)) return 'The service could not be reached. Check your connection and try again.';
  return error.message;
}
