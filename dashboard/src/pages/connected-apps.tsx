import { useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { ScopeTags } from '../components/scope-tags.tsx';
import { graphql, type ResultOf } from '../api/graphql.ts';
import { Panel } from '../components/page.tsx';
import { EmptyState, ErrorNotice, Loading, SuccessNotice } from '../components/notice.tsx';
import { Badge } from '../components/badge.tsx';
import { ConfirmButton } from '../components/confirm-button.tsx';
import { formatDateTime } from '../components/format.ts';

const ConnectedAppFields = graphql(
  `fragment ConnectedAppFields on ConnectedApp { id clientName clientUri scopes resource createdAt lastUsedAt revokedAt active }`,
);

const connectedApps = {
  list: graphql(`query ConnectedApps { items: connectedApps { ...ConnectedAppFields } }`, [ConnectedAppFields]),
  revoke: graphql(`mutation RevokeConnectedApp($id: UUID!) { revoked: revokeConnectedApp(id: $id) { ...ConnectedAppFields } }`, [ConnectedAppFields]),
};

type ConnectedApp = ResultOf<typeof ConnectedAppFields>;

/** The endpoint an MCP host is pointed at (mcp/oauth-issuer.ts's MCP_PATH). */
const MCP_PATH = '/api/service';

/** The name the application registered with (its own claim), or a stand-in when it gave none. */
function appName(app: ConnectedApp): string {
  return app.clientName?.trim() || 'Unnamed application';
}

/**
 * The applications the user authorized on the OAuth consent page (the MCP endpoint's built-in
 * authorization server), revoked ones included; revoking one ends all of its tokens at once.
 */
export function ConnectedAppsPanel() {
  const [{ data, error, fetching }, refresh] = useQuery({ query: connectedApps.list });
  const [revokeState, revoke] = useMutation(connectedApps.revoke);
  const [revokedName, setRevokedName] = useState<string | null>(null);

  async function onRevoke(app: ConnectedApp) {
    const result = await revoke({ id: app.id });
    if (!result.error) {
      setRevokedName(appName(app));
      refresh({ requestPolicy: 'network-only' });
    }
  }

  return (
    <Panel id="connected-apps" title="Connected apps">
      <p className="hint">
        Applications (MCP hosts such as Claude, Cursor or VS Code) you allowed on the OAuth consent page to use the service on your behalf; revoking one ends
        its access at once, and it will ask you again the next time it connects.
      </p>
      <ErrorNotice error={revokeState.error} title="Could not revoke the application" />
      {revokedName && <SuccessNotice>“{revokedName}” was revoked; its access has ended.</SuccessNotice>}
      <h3>Your connected apps</h3>
      <ErrorNotice error={error} />
      {fetching && !data && <Loading />}
      {data && data.items.length === 0 && (
        <EmptyState>
          No applications connected yet. To connect one, point your MCP host at <code>{`${window.location.origin}${MCP_PATH}`}</code>; it opens a sign-in and
          consent page here.
        </EmptyState>
      )}
      {data && data.items.length > 0 && (
        <div className="table-wrap" tabIndex={0}>
          <table className="data stack" aria-label="Your connected apps">
            <thead>
              <tr>
                <th scope="col">Application</th>
                <th scope="col">Website</th>
                <th scope="col">Scopes</th>
                <th scope="col">Authorized</th>
                <th scope="col">Last used</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {data.items.map((item) => (
                <tr key={item.id}>
                  <td>{appName(item)}</td>
                  {/* The application's own claim: shown as text, not as a link to follow. */}
                  <td data-label="Website">{item.clientUri ?? '—'}</td>
                  <td data-label="Scopes">
                    <ScopeTags scopes={item.scopes} />
                  </td>
                  <td data-label="Authorized">{formatDateTime(item.createdAt)}</td>
                  <td data-label="Last used">{formatDateTime(item.lastUsedAt, 'Never')}</td>
                  <td data-label="Status">{statusOf(item)}</td>
                  <td>
                    {!item.revokedAt && (
                      <ConfirmButton
                        className="button-danger button-small"
                        label="Revoke"
                        ariaLabel={`Revoke ${appName(item)}`}
                        question={`Revoke “${appName(item)}”? It loses access at once and will have to ask you again to connect. This cannot be undone.`}
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

function statusOf(app: ConnectedApp) {
  if (app.revokedAt || !app.active) return <Badge tone="danger">Revoked</Badge>;
  return <Badge tone="success">Active</Badge>;
}
