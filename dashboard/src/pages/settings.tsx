import { useState, type FormEvent } from 'react';
import { SCOPE_DESCRIPTIONS } from '../../../src/auth/scopes.ts';
import { ScopeTags } from '../components/scope-tags.tsx';
import { useMutation, useQuery, type TypedDocumentNode } from 'urql';
import { graphql, type ResultOf, type VariablesOf } from '../api/graphql.ts';
import { Page, Panel } from '../components/page.tsx';
import { EmptyState, ErrorNotice, Loading, SuccessNotice } from '../components/notice.tsx';
import { Badge } from '../components/badge.tsx';
import { ConfirmButton } from '../components/confirm-button.tsx';
import { CopyButton } from '../components/copy-button.tsx';
import { formatDateTime } from '../components/format.ts';
import { useViewer } from '../viewer.tsx';
import { ConnectedAppsPanel } from './connected-apps.tsx';

const ApiKeyFields = graphql(`fragment ApiKeyFields on ApiKey { id name prefix scopes createdAt lastUsedAt expiresAt revokedAt active }`);
const AccessTokenFields = graphql(`fragment AccessTokenFields on AccessToken { id name prefix scopes createdAt lastUsedAt expiresAt revokedAt active }`);

const apiKeys = {
  list: graphql(`query ApiKeys { items: apiKeys { ...ApiKeyFields } }`, [ApiKeyFields]),
  create: graphql(
    `mutation CreateApiKey($input: CreateApiKeyInput!, $currentPassword: String) {
      created: createApiKey(input: $input, currentPassword: $currentPassword) { key credential: apiKey { ...ApiKeyFields } } }`,
    [ApiKeyFields],
  ),
  revoke: graphql(`mutation RevokeApiKey($id: UUID!) { revoked: revokeApiKey(id: $id) { ...ApiKeyFields } }`, [ApiKeyFields]),
};

const accessTokens = {
  list: graphql(`query AccessTokens { items: accessTokens { ...AccessTokenFields } }`, [AccessTokenFields]),
  create: graphql(
    `mutation CreateAccessToken($input: CreateAccessTokenInput!, $currentPassword: String) {
      created: createAccessToken(input: $input, currentPassword: $currentPassword) { key credential: accessToken { ...AccessTokenFields } } }`,
    [AccessTokenFields],
  ),
  revoke: graphql(`mutation RevokeAccessToken($id: UUID!) { revoked: revokeAccessToken(id: $id) { ...AccessTokenFields } }`, [AccessTokenFields]),
};

/** API keys and access tokens read the same fields; the documents of both kinds must fit these types. */
type Credential = ResultOf<typeof ApiKeyFields>;
type Documents = { [Name in keyof typeof apiKeys]: TypedDocumentNode<ResultOf<(typeof apiKeys)[Name]>, VariablesOf<(typeof apiKeys)[Name]>> };

/** API keys and access tokens are the same kind of credential; only their names and how they are sent differ. */
interface CredentialKind extends Documents {
  id: 'api-keys' | 'access-tokens';
  title: string;
  noun: string;
  /** Lower-case plural for running text (keeps the "API" capitals). */
  plural: string;
  usage: string;
}

const kinds: CredentialKind[] = [
  {
    id: 'api-keys',
    title: 'API keys',
    noun: 'API key',
    plural: 'API keys',
    usage: 'Send it in the x-api-key header to the REST endpoints (and /graphql).',
    ...apiKeys,
  },
  {
    id: 'access-tokens',
    title: 'Access tokens',
    noun: 'access token',
    plural: 'access tokens',
    usage: 'Send it as Authorization: Bearer <token> to the JSON-RPC tool endpoint /api/service (and any other endpoint).',
    ...accessTokens,
  },
];

/**
 * What each scope lets a credential do, in words: the service's one list (src/auth/scopes.ts,
 * also read by the OAuth consent page and ScopeTags), which the form reads.
 */
const SCOPES: { scope: string; description: string }[] = Object.entries(SCOPE_DESCRIPTIONS).map(([scope, description]) => ({ scope, description }));

const EXPIRIES = [
  { value: '30d', label: '30 days' },
  { value: '90d', label: '90 days' },
  { value: '365d', label: '1 year' },
  { value: '', label: 'Never' },
];

/**
 * Whether creating a credential asks for the current password (a user with a password), so a
 * session cannot mint a credential that outlives it; without one the credential expires with the session.
 */
const PasswordRequiredQuery = graphql(`query CredentialConfirmation { me { passwordRequired } }`);

export default function SettingsPage() {
  const [{ data }] = useQuery({ query: PasswordRequiredQuery });
  // Until the answer arrives the field is shown: asking once too often is harmless.
  const passwordRequired = data?.me.passwordRequired ?? true;
  return (
    <Page title="API keys & tokens" intro="Credentials for programs that call the service on your behalf. Each secret is shown once, when it is created.">
      {kinds.map((kind) => (
        <CredentialsPanel key={kind.id} kind={kind} passwordRequired={passwordRequired} />
      ))}
      <ConnectedAppsPanel />
    </Page>
  );
}

function CredentialsPanel({ kind, passwordRequired }: { kind: CredentialKind; passwordRequired: boolean }) {
  const [{ data, error, fetching }, refresh] = useQuery({ query: kind.list });
  const [created, setCreated] = useState<{ key: string; credential: Credential } | null>(null);
  const [revokeState, revoke] = useMutation(kind.revoke);
  const [revokedName, setRevokedName] = useState<string | null>(null);

  async function onRevoke(credential: Credential) {
    const result = await revoke({ id: credential.id });
    if (!result.error) {
      setRevokedName(credential.name);
      refresh({ requestPolicy: 'network-only' });
    }
  }

  return (
    <Panel id={kind.id} title={kind.title}>
      <p className="hint">{kind.usage}</p>
      <CreateCredentialForm
        kind={kind}
        passwordRequired={passwordRequired}
        onCreated={(value) => {
          setCreated(value);
          setRevokedName(null);
          refresh({ requestPolicy: 'network-only' });
        }}
      />
      {created && <ShownOnce kind={kind} secret={created.key} name={created.credential.name} onDismiss={() => setCreated(null)} />}
      <ErrorNotice error={revokeState.error} title={`Could not revoke the ${kind.noun}`} />
      {revokedName && <SuccessNotice>“{revokedName}” was revoked; it no longer works.</SuccessNotice>}
      <h3>Your {kind.plural}</h3>
      <ErrorNotice error={error} />
      {fetching && !data && <Loading />}
      {data && data.items.length === 0 && <EmptyState>You have no {kind.plural} yet.</EmptyState>}
      {data && data.items.length > 0 && (
        <div className="table-wrap" tabIndex={0}>
          <table className="data stack" aria-label={`Your ${kind.plural}`}>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Prefix</th>
                <th scope="col">Scopes</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Expires</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {data.items.map((item) => (
                <tr key={item.id}>
                  <td>{item.name}</td>
                  <td data-label="Prefix">
                    <code>{item.prefix}…</code>
                  </td>
                  <td data-label="Scopes">
                    <ScopeTags scopes={item.scopes} />
                  </td>
                  <td data-label="Created">{formatDateTime(item.createdAt)}</td>
                  <td data-label="Last used">{formatDateTime(item.lastUsedAt, 'Never')}</td>
                  <td data-label="Expires">{formatDateTime(item.expiresAt, 'Never')}</td>
                  <td data-label="Status">{statusOf(item)}</td>
                  <td>
                    {!item.revokedAt && (
                      <ConfirmButton
                        className="button-danger button-small"
                        label="Revoke"
                        ariaLabel={`Revoke ${item.name}`}
                        question={`Revoke “${item.name}”? Programs using it stop working at once. This cannot be undone.`}
                        confirmLabel="Revoke"
                        disabled={revokeState.fetching}
                        onConfirm={() => void onRevoke(item)}
                      />
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Panel>
  );
}

function statusOf(item: Credential) {
  if (item.revokedAt) return <Badge tone="danger">Revoked</Badge>;
  if (!item.active) return <Badge tone="warning">Expired</Badge>;
  return <Badge tone="success">Active</Badge>;
}

function CreateCredentialForm({
  kind,
  passwordRequired,
  onCreated,
}: {
  kind: CredentialKind;
  passwordRequired: boolean;
  onCreated: (value: { key: string; credential: Credential }) => void;
}) {
  const viewer = useViewer();
  const [name, setName] = useState('');
  const [currentPassword, setCurrentPassword] = useState('');
  const [scopes, setScopes] = useState<string[]>(['read:returns']);
  const [expiresIn, setExpiresIn] = useState('90d');
  const [invalid, setInvalid] = useState<string | null>(null);
  const [state, create] = useMutation(kind.create);
  const available = SCOPES.filter((s) => s.scope !== 'admin' || viewer.user.role === 'admin');

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!name.trim()) return setInvalid('Give it a name, so you can tell your credentials apart.');
    if (scopes.length === 0) return setInvalid('Choose at least one scope.');
    if (passwordRequired && !currentPassword) return setInvalid(`Enter your current password to create ${article(kind.noun)} ${kind.noun}.`);
    setInvalid(null);
    const input = { name: name.trim(), scopes, ...(expiresIn ? { expiresIn } : {}) };
    const result = await create({ input, ...(passwordRequired ? { currentPassword } : {}) });
    // The password is not kept around, whatever the outcome.
    setCurrentPassword('');
    if (result.data) {
      onCreated(result.data.created);
      setName('');
    }
  }

  return (
    <form className="stack" onSubmit={submit} aria-label={`New ${kind.noun}`} noValidate>
      <div className="form-row">
        <label>
          Name
          <input value={name} onChange={(e) => setName(e.target.value)} maxLength={100} placeholder="e.g. Reporting job" required />
        </label>
        <label>
          Expires
          <select value={expiresIn} onChange={(e) => setExpiresIn(e.target.value)}>
            {EXPIRIES.map((option) => (
              <option key={option.label} value={option.value}>
                {option.label}
              </option>
            ))}
          </select>
        </label>
      </div>
      <fieldset>
        <legend>Scopes</legend>
        <div className="scope-list">
          {available.map(({ scope, description }) => (
            <label key={scope} className="checkbox scope-option">
              <input
                type="checkbox"
                checked={scopes.includes(scope)}
                onChange={(e) => setScopes((current) => (e.target.checked ? [...current, scope] : current.filter((s) => s !== scope)))}
              />
              <span>
                <code className="scope-name">{scope}</code> <span className="scope-description">{description}</span>
              </span>
            </label>
          ))}
        </div>
      </fieldset>
      {passwordRequired ? (
        <div>
          <label>
            Current password
            <input
              type="password"
              autoComplete="current-password"
              value={currentPassword}
              onChange={(e) => setCurrentPassword(e.target.value)}
              aria-describedby={`${kind.id}-password-hint`}
              required
            />
          </label>
          <p className="hint" id={`${kind.id}-password-hint`}>
            Asked each time, so that someone else at your signed-in browser cannot create {article(kind.noun)} {kind.noun} for themselves.
          </p>
        </div>
      ) : (
        <p className="hint">You signed in without a password here, so a new {kind.noun} expires no later than your session.</p>
      )}
      {invalid && (
        <div className="notice notice-error" role="alert">
          {invalid}
        </div>
      )}
      <ErrorNotice error={state.error} title={`Could not create the ${kind.noun}`} />
      <div>
        <button type="submit" disabled={state.fetching}>
          {state.fetching ? 'Creating…' : `Create ${kind.noun}`}
        </button>
      </div>
    </form>
  );
}

function article(noun: string): string {
  return /^[aeiou]/i.test(noun) ? 'an' : 'a';
}

function ShownOnce({ kind, secret, name, onDismiss }: { kind: CredentialKind; secret: string; name: string; onDismiss: () => void }) {
  return (
    <div className="notice notice-warning secret" role="status" aria-live="polite">
      <strong>
        Your new {kind.noun} “{name}”. Copy it now: it is shown only this once and cannot be recovered.
      </strong>
      <div className="secret-value">
        <code data-testid="new-secret">{secret}</code>
        <CopyButton text={secret} />
      </div>
      <div>
        <button type="button" className="button-secondary button-small" onClick={onDismiss}>
          I have stored it
        </button>
      </div>
    </div>
  );
}
