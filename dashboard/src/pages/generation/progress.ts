/**
 * Pure helpers over a run's event log: merging what arrives (in any order, possibly twice),
 * the per-agent rows, the run's state and outcome, and keeping the log in sessionStorage so a
 * reload resumes after the last event instead of starting over.
 */
import type { AgentStatus, ProgressEvent, Reference, ReferenceKind, RunState } from './api.ts';

export const AGENTS: Record<string, { label: string; does: string }> = {
  collector: { label: 'Collector', does: 'gathers your records from the window' },
  notes: { label: 'Notes', does: 'picks representative stickies and links' },
  meetings: { label: 'Meetings', does: 'finds decisions and action items in meetings' },
  tasks: { label: 'Tasks', does: 'sorts overdue, blocked and urgent tasks' },
  news: { label: 'News', does: 'ranks the articles closest to your work' },
  writer: { label: 'Writer', does: 'writes the summary' },
  editor: { label: 'Editor', does: 'checks the summary covers the key findings' },
};

export const AGENT_STATUS_LABELS: Record<AgentStatus, string> = {
  queued: 'Waiting',
  started: 'Started',
  active: 'Working',
  complete: 'Done',
  failed: 'Failed',
};

export const RUN_STATE_LABELS: Record<RunState, string> = {
  queued: 'Queued',
  running: 'Running',
  completed: 'Completed',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

export function agentLabel(agent: string): string {
  return AGENTS[agent]?.label ?? agent;
}

/** Sorted by sequence, each sequence once. Returns `current` itself when `incoming` adds nothing (no re-render). */
export function mergeEvents(current: ProgressEvent[], incoming: readonly ProgressEvent[]): ProgressEvent[] {
  const known = new Set(current.map((e) => e.sequence));
  const added: ProgressEvent[] = [];
  for (const event of incoming) {
    if (known.has(event.sequence)) continue;
    known.add(event.sequence);
    added.push(event);
  }
  if (added.length === 0) return current;
  return [...current, ...added].sort((a, b) => a.sequence - b.sequence);
}

/** The last sequence of the unbroken log 1..n: the cursor to resume after (a gap is read again rather than skipped). */
export function contiguousEnd(events: readonly ProgressEvent[]): number {
  let end = 0;
  for (const event of events) {
    if (event.sequence === end + 1) end = event.sequence;
    else if (event.sequence > end + 1) break;
  }
  return end;
}

/** The run's final event: agent `run`, complete or failed. Nothing follows it. */
export function finalEvent(events: readonly ProgressEvent[]): ProgressEvent | undefined {
  return events.find((e) => e.agent === 'run' && (e.status === 'complete' || e.status === 'failed'));
}

export interface AgentRow {
  agent: string;
  status: AgentStatus;
  progress: number;
  message: string;
  updatedAt: string;
}

/** One row per agent with its latest event, in the order the agents first reported. */
export function agentRows(events: readonly ProgressEvent[]): AgentRow[] {
  const rows = new Map<string, AgentRow>();
  for (const event of events) {
    if (event.agent === 'run') continue;
    rows.set(event.agent, { agent: event.agent, status: event.status, progress: event.progress, message: event.message, updatedAt: event.createdAt });
  }
  return [...rows.values()];
}

function record(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** The agents the run will use (data.agents of its first event), in plan order. */
export function plannedAgents(events: readonly ProgressEvent[]): string[] {
  const first = events.find((e) => e.sequence === 1 && e.agent === 'run');
  return first ? strings(record(first.data).agents) : [];
}

export interface Outcome {
  state: RunState;
  degraded: boolean;
  failedAgents: string[];
  provider: string | null;
  message: string;
  error: string | null;
  /** A completed run's summary and references, as its final event carries them. */
  summary: string | null;
  references: Reference[];
}

const REFERENCE_KINDS: ReferenceKind[] = ['sticky', 'link', 'transcript', 'task', 'news'];

function references(value: unknown): Reference[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item) => {
    const r = record(item);
    const kind = REFERENCE_KINDS.find((k) => k === r.kind);
    return kind && typeof r.id === 'string' && typeof r.title === 'string' ? [{ kind, id: r.id, title: r.title }] : [];
  });
}

const FINAL_STATES: RunState[] = ['completed', 'failed', 'cancelled'];

/** What the final event says about the run (its `data`: state, degraded, failed_agents, summary_provider, error). */
export function outcomeOf(event: ProgressEvent): Outcome {
  const data = record(event.data);
  const state = FINAL_STATES.find((s) => s === data.state) ?? (event.status === 'complete' ? 'completed' : 'failed');
  return {
    state,
    degraded: data.degraded === true,
    failedAgents: strings(data.failed_agents),
    provider: typeof data.summary_provider === 'string' ? data.summary_provider : null,
    message: event.message,
    error: typeof data.error === 'string' ? data.error : null,
    summary: typeof data.summary === 'string' ? data.summary : null,
    references: references(data.references),
  };
}

/** The run's state as the log tells it: queued until a worker starts it, then running until the final event. */
export function stateFromEvents(events: readonly ProgressEvent[]): RunState | null {
  const final = finalEvent(events);
  if (final) return outcomeOf(final).state;
  if (events.some((e) => e.agent === 'run' && e.status === 'started')) return 'running';
  if (events.some((e) => e.agent === 'run' && e.status === 'queued')) return 'queued';
  return null;
}

/**
 * The whole run's progress: the mean of its agents' (planned agents not yet heard from count as 0).
 * While the run goes on, a failed agent's part is over (100); a run that ended without completing
 * shows how far it got.
 */
export function overallProgress(events: readonly ProgressEvent[]): number {
  const final = finalEvent(events);
  if (final?.status === 'complete') return 100;
  const rows = agentRows(events);
  const agents = new Set([...plannedAgents(events), ...rows.map((r) => r.agent)]);
  if (agents.size === 0) return 0;
  const total = rows.reduce((sum, row) => sum + (row.status === 'failed' && !final ? 100 : row.progress), 0);
  return Math.round(total / agents.size);
}

// -------------------------------------------------------------------------------------------
// sessionStorage: the log received so far, per run (this tab only; a new tab re-reads the log).
// -------------------------------------------------------------------------------------------

const STORAGE_PREFIX = 'gateway.generation.';
const STORED_RUNS = 20;

interface Stored {
  savedAt: number;
  events: ProgressEvent[];
}

function isEvent(value: unknown): value is ProgressEvent {
  const e = record(value);
  return (
    typeof e.sequence === 'number' &&
    typeof e.agent === 'string' &&
    typeof e.status === 'string' &&
    typeof e.progress === 'number' &&
    typeof e.message === 'string'
  );
}

export function loadStoredEvents(runId: string): ProgressEvent[] {
  try {
    const raw = window.sessionStorage.getItem(STORAGE_PREFIX + runId);
    if (!raw) return [];
    const stored = record(JSON.parse(raw) as unknown);
    const events = Array.isArray(stored.events) ? stored.events.filter(isEvent) : [];
    // Only the unbroken start of the log is trusted; anything after a gap is read again.
    const sorted = mergeEvents([], events);
    const end = contiguousEnd(sorted);
    return sorted.filter((e) => e.sequence <= end);
  } catch {
    return [];
  }
}

/** Best effort: a full or disabled storage only means a reload re-reads the log from the server. */
export function storeEvents(runId: string, events: ProgressEvent[]): void {
  try {
    const key = STORAGE_PREFIX + runId;
    const isNew = window.sessionStorage.getItem(key) === null;
    const value: Stored = { savedAt: Date.now(), events };
    window.sessionStorage.setItem(key, JSON.stringify(value));
    if (isNew) pruneStoredRuns();
  } catch {
    // Nothing to do: the subscription replays the log from the server when nothing is stored.
  }
}

export function forgetStoredEvents(runId: string): void {
  try {
    window.sessionStorage.removeItem(STORAGE_PREFIX + runId);
  } catch {
    // Storage unavailable: nothing was stored either.
  }
}

/** Keeps the logs of the most recently watched runs only. */
function pruneStoredRuns(): void {
  const entries: { key: string; savedAt: number }[] = [];
  for (let i = 0; i < window.sessionStorage.length; i += 1) {
    const key = window.sessionStorage.key(i);
    if (!key?.startsWith(STORAGE_PREFIX)) continue;
    const savedAt = Number(record(JSON.parse(window.sessionStorage.getItem(key) ?? '{}') as unknown).savedAt) || 0;
    entries.push({ key, savedAt });
  }
  entries.sort((a, b) => b.savedAt - a.savedAt);
  for (const entry of entries.slice(STORED_RUNS)) window.sessionStorage.removeItem(entry.key);
}
