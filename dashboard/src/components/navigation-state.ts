import { useEffect, useState } from 'react';

/**
 * A value one page hands to the page it navigates to, through history.state
 * (wouter's `navigate(to, { state: { [key]: value } })`): e.g. "Transcript imported" shown on the
 * transcript it opens. Needed because the shell remounts the page on every route change.
 * Read once: the entry's state is cleared afterwards, so a reload does not show it again.
 */
export function useNavigationState<T>(key: string): T | undefined {
  const [value] = useState<T | undefined>(() => {
    const state: unknown = window.history.state;
    return state && typeof state === 'object' && key in state ? ((state as Record<string, unknown>)[key] as T) : undefined;
  });
  useEffect(() => {
    if (value !== undefined) window.history.replaceState(null, '', window.location.href);
  }, [value]);
  return value;
}
