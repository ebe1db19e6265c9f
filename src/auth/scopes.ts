/** API key scopes from the data-service spec. `admin` implies every other scope. */
export const SCOPES = ['read:pnl', 'read:returns', 'write:upload', 'admin'] as const;
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
