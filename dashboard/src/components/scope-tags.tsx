import { SCOPE_DESCRIPTIONS } from '../../../src/auth/scopes.ts';

/** A credential's or an app's scopes as tags, each with what it allows as its tooltip (the service's one list of descriptions). */
export function ScopeTags({ scopes }: { scopes: readonly string[] }) {
  return (
    <>
      {scopes.map((scope) => (
        <span key={scope} className="tag" title={(SCOPE_DESCRIPTIONS as Record<string, string>)[scope]}>
          {scope}
        </span>
      ))}
    </>
  );
}
