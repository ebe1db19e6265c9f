import { useState } from 'react';
import { Link } from 'wouter';
import { useQuery } from 'urql';
import { Page, Panel } from '../../components/page.tsx';
import { EmptyState, ErrorNotice, Loading } from '../../components/notice.tsx';
import { Pager, useCursorPager } from '../../components/pager.tsx';
import { formatDateTime } from '../../components/format.ts';
import { EndpointsQuery, type WebhookEndpoint } from './api.ts';
import { CreateEndpointForm } from './create-form.tsx';
import { EndpointState, SecretShownOnce, useOwnerName } from './parts.tsx';

const WEBHOOKS_INTRO =
  'The service calls these URLs when something you would otherwise poll for happens, signed the Standard Webhooks way: any Standard Webhooks library verifies them (docs/webhooks.md).';

/** /webhooks: the endpoints the viewer manages, and the form that registers one (its secret shown once). */
export function EndpointList() {
  const pager = useCursorPager();
  const [{ data, error, fetching }, refresh] = useQuery({ query: EndpointsQuery, variables: { after: pager.after } });
  const [created, setCreated] = useState<{ secret: string; endpoint: WebhookEndpoint } | null>(null);
  const endpoints = data?.webhookEndpoints.edges.map((edge) => edge.node) ?? [];
  return (
    <Page title="Webhooks" intro={WEBHOOKS_INTRO}>
      <Panel id="new-endpoint" title="New endpoint">
        <CreateEndpointForm
          onCreated={(value) => {
            setCreated(value);
            refresh({ requestPolicy: 'network-only' });
          }}
        />
        {created && <SecretShownOnce secret={created.secret} url={created.endpoint.url} rotated={false} onDismiss={() => setCreated(null)} />}
      </Panel>
      <Panel id="endpoints" title="Your endpoints">
        <ErrorNotice error={error} title="Could not load your endpoints" />
        {fetching && !data && <Loading label="Loading your endpoints…" />}
        {data && endpoints.length === 0 && (
          <EmptyState>{pager.page === 1 ? 'No webhook endpoints yet. Register one above to have events pushed to you.' : 'No more endpoints.'}</EmptyState>
        )}
        {endpoints.length > 0 && <EndpointTable endpoints={endpoints} />}
        <Pager pager={pager} pageInfo={data?.webhookEndpoints.pageInfo} label="Endpoints" />
      </Panel>
    </Page>
  );
}

function EndpointTable({ endpoints }: { endpoints: WebhookEndpoint[] }) {
  const ownerName = useOwnerName();
  return (
    <div className="table-wrap" tabIndex={0}>
      <table className="data stack webhooks-table" aria-label="Your webhook endpoints">
        <thead>
          <tr>
            <th scope="col">URL</th>
            <th scope="col">Events</th>
            <th scope="col">State</th>
            <th scope="col">Owner</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {endpoints.map((endpoint) => (
            <tr key={endpoint.id}>
              <th scope="row" className="row-name webhook-url">
                <Link href={`/webhooks/${endpoint.id}`}>{endpoint.url}</Link>
                {endpoint.description && <div className="hint">{endpoint.description}</div>}
              </th>
              <td data-label="Events">
                {endpoint.events.map((event) => (
                  <span key={event} className="tag">
                    {event}
                  </span>
                ))}
              </td>
              <td data-label="State">
                <EndpointState endpoint={endpoint} />
              </td>
              <td data-label="Owner">{ownerName(endpoint.organizationId)}</td>
              <td data-label="Created">
                <time dateTime={endpoint.createdAt}>{formatDateTime(endpoint.createdAt)}</time>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
