/**
 * API key scopes: the data-service spec's four, plus read/write of the caller's own workspace
 * (stickies, links, transcripts, chat, tasks, news) and managing webhook endpoints
 * (docs/webhooks.md#scopes). `admin` implies every other scope.
 */
export const SCOPES = ['read:pnl', 'read:returns', 'write:upload', 'read:workspace', 'write:workspace', 'write:webhooks', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

export function grants(held: ReadonlySet<string>, required: Scope): boolean {
  return held.has('admin') || held.has(required);
}

/** Scopes a signed-in (cookie) user has: everything their role allows. */
export function scopesForRole(role: 'admin' | 'member'): Scope[] {
  return role === 'admin' ? [...SCOPES] : SCOPES.filter((scope) => scope !== 'admin');
}

/** What each scope lets a credential do, in words (the dashboard's forms and the OAuth consent page). */
export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  'read:pnl': 'List uploaded files and read cash transactions',
  'read:returns': 'Read return comparisons, daily returns and the benchmark',
  'write:upload': "Upload CSV files and set entities' benchmarks: both change how the organization's returns are reported",
  'read:workspace': 'Read your stickies, links, transcripts, tasks, news and summaries',
  'write:workspace': 'Change your workspace, chat, and start or cancel summaries',
  'write:webhooks': 'Manage your webhook endpoints, and those of the organizations you manage',
  admin: 'Everything above, plus administration such as running the self-test (admins only)',
};
