import type { Intent, IntentKind } from '../intent.ts';
import type { Scope } from '../../../auth/scopes.ts';
import { grants } from '../../../auth/scopes.ts';

/** Who asks: their id, their credential's scopes, today's date (UTC) and their organizations. */
export interface Asker {
  userId: string;
  /** The question as written (entity names are matched against it). */
  message: string;
  scopes: ReadonlySet<string>;
  /** YYYY-MM-DD (UTC). */
  today: string;
  /** The organizations the user is a member of (loaded once per question). */
  orgIds(): Promise<ReadonlySet<string>>;
}

/** Answers one kind of question from the service's own data, as Markdown text with dashboard links. */
export interface Answerer<K extends IntentKind = IntentKind> {
  readonly kind: K;
  answer(intent: Extract<Intent, { kind: K }>, asker: Asker): Promise<string>;
}

/** What the offline assistant can and cannot do, in one sentence (closes every data answer). */
export const OFFLINE_LIMITS =
  "I'm the offline assistant (no language model is configured): I can't forecast returns or give advice; " +
  'I answer questions about your returns, comparisons, files, tasks and news, and otherwise search your workspace.';

/** The plain refusal when the credential lacks a scope the REST and GraphQL endpoints require too. */
export function lacksScope(asker: Asker, scope: Scope, what: string): string | null {
  if (grants(asker.scopes, scope)) return null;
  return (
    `I can't show you ${what}: your credential lacks the \`${scope}\` scope, which reading them needs (the same rule as the REST and GraphQL endpoints). ` +
    'Ask an administrator, or use an API key or token with that scope (see [API keys & tokens](#/settings)).'
  );
}

/** A fraction (`"0.0523"`) as a percentage with two decimals (`5.23%`). */
export function percent(value: string | number): string {
  return `${(Number(value) * 100).toFixed(2)}%`;
}

export function humanList(items: readonly string[], conjunction: 'and' | 'or' = 'and'): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} ${conjunction} ${items.at(-1)}`;
}
