import type { WebhookEndpoint } from '@svc/client';
import { Link } from 'wouter';
import { ScrollRegion } from '../../../components/ScrollRegion';
import { formatDateTime } from '../../../lib/format';
import { EndpointStatus } from './EndpointStatus';

/** The account's endpoints: where, what, enabled or why not; each opens its settings and delivery log. */
export function EndpointsTable({ endpoints }: { endpoints: WebhookEndpoint[] }) {
  return (
    <ScrollRegion label="Webhook endpoints">
      <table className="data-table">
        <caption className="visually-hidden">Webhook endpoints of the account</caption>
        <thead>
          <tr>
            <th scope="col">Endpoint</th>
            <th scope="col">Events</th>
            <th scope="col">State</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {endpoints.map((endpoint) => (
            <tr key={endpoint.id} className={endpoint.status === 'DISABLED' ? 'row-disabled' : undefined}>
              <td>
                <Link href={`/webhooks/${encodeURIComponent(endpoint.id)}`}>{endpoint.url}</Link>
                {endpoint.description && <span className="cell-sub">{endpoint.description}</span>}
              </td>
              <td>
                <ul className="scope-list">
                  {endpoint.event_types.map((type) => (
                    <li key={type}>
                      <code>{type}</code>
                    </li>
                  ))}
                </ul>
              </td>
              <td>
                <EndpointStatus endpoint={endpoint} />
              </td>
              <td className="nowrap">{formatDateTime(endpoint.created_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}
