import { useRoute } from 'wouter';
import { EndpointList } from './webhooks/endpoint-list.tsx';
import { EndpointView } from './webhooks/endpoint-view.tsx';
import './webhooks/webhooks.css';

/** /webhooks lists and registers endpoints (docs/webhooks.md); /webhooks/<id> manages one and shows its deliveries. */
export default function WebhooksPage() {
  const [open, params] = useRoute('/webhooks/:id');
  return open ? <EndpointView id={params.id} /> : <EndpointList />;
}
