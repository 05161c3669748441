import type { WebhookEndpoint } from '@svc/client';
import { formatDateTime } from '../../../lib/format';

/** Enabled, or disabled with when and why (who disabled it, or the failures that made svc disable it). */
export function EndpointStatus({ endpoint }: { endpoint: WebhookEndpoint }) {
  if (endpoint.status === 'ENABLED') return <span className="badge badge-active">Enabled</span>;
  return (
    <span>
      <span className="badge badge-disabled">Disabled</span> {formatDateTime(endpoint.disabled_at)}
      {endpoint.disabled_reason && <span className="cell-sub">{endpoint.disabled_reason}</span>}
    </span>
  );
}
