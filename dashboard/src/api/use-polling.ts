import { useEffect } from 'react';

/** Re-runs `refresh` every `intervalMs` while `active` (e.g. while a file is still being ingested). */
export function usePolling(refresh: () => void, intervalMs: number, active: boolean): void {
  useEffect(() => {
    if (!active) return;
    const timer = window.setInterval(refresh, intervalMs);
    return () => window.clearInterval(timer);
  }, [refresh, intervalMs, active]);
}
