import type { ReactNode } from 'react';

export type Tone = 'neutral' | 'info' | 'success' | 'warning' | 'danger';

/** A coloured status label; the text itself always carries the meaning (colour is only a hint). */
export function Badge({ tone = 'neutral', children }: { tone?: Tone; children: ReactNode }) {
  return <span className={`badge badge-${tone}`}>{children}</span>;
}

/** Tones for the statuses the API reports, in one place so every page colours them alike. */
export function toneOf(status: string): Tone {
  switch (status) {
    case 'match':
    case 'processed':
    case 'complete':
    case 'completed':
    case 'passed':
    case 'healthy':
    case 'done':
    case 'ok':
      return 'success';
    case 'review':
    case 'processing':
    case 'active':
    case 'started':
    case 'running':
    case 'in_progress':
    case 'degraded':
      return 'warning';
    case 'investigate':
    case 'failed':
    case 'unhealthy':
    case 'blocked':
    case 'cancelled':
      return 'danger';
    case 'uploaded':
    case 'queued':
    case 'todo':
      return 'info';
    default:
      return 'neutral';
  }
}
