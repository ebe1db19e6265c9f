/**
 * API key scopes: the data-service spec's four, plus read/write of the caller's own workspace
 * (stickies, links, transcripts, chat, tasks, news). `admin` implies every other scope.
 */
export const SCOPES = ['read:pnl', 'read:returns', 'write:upload', 'read:workspace', 'write:workspace', 'admin'] as const;
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
