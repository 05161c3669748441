import type { IntegrationListing } from '@svc/client';
import { useState } from 'react';
import { ConfirmInline } from '../../../components/ConfirmInline';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { ScrollRegion } from '../../../components/ScrollRegion';
import { formatDateTime } from '../../../lib/format';
import { useIntegrationMove } from '../api/integrations';

function IntegrationRow({ integration, mayChange }: { integration: IntegrationListing; mayChange: boolean }) {
  const [confirming, setConfirming] = useState(false);
  const move = useIntegrationMove();
  const id = integration.integration_id;
  const active = integration.status === 'ACTIVE';
  const vendor = integration.vendor_name ?? integration.vendor;
  return (
    <>
      <tr className={active ? undefined : 'row-disabled'}>
        <th scope="row">
          {integration.vendor_name ?? integration.vendor}{' '}
          {integration.vendor_name !== null && integration.vendor_name !== integration.vendor && (
            <span className="muted">
              (<code>{integration.vendor}</code>)
            </span>
          )}
        </th>
        <td>{integration.vendor_account_id}</td>
        <td>
          {active ? (
            <span className="badge badge-active">Active</span>
          ) : (
            <span>
              <span className="badge badge-disabled">Disconnected</span>{' '}
              {integration.disconnected_at ? formatDateTime(integration.disconnected_at) : ''}
            </span>
          )}
        </td>
        <td className="nowrap">{formatDateTime(integration.created_at)}</td>
        <td className="actions-cell">
          {mayChange && active && !confirming && (
            <button type="button" aria-label={`Disconnect ${vendor}`} onClick={() => setConfirming(true)}>
              Disconnect
            </button>
          )}
          {mayChange && active && confirming && (
            <ConfirmInline
              question={`Disconnect ${vendor}?`}
              warning="The ERP partner sees the integration DISABLED; it can be reactivated."
              confirm="Yes, disconnect"
              confirmAccessibleName={`Yes, disconnect ${vendor}`}
              busyLabel="Disconnecting…"
              busy={move.isPending}
              danger
              onConfirm={() => move.mutate({ id, to: 'DISABLED' }, { onSettled: () => setConfirming(false) })}
              onCancel={() => setConfirming(false)}
            />
          )}
          {mayChange && !active && (
            <button
              type="button"
              aria-label={`Reactivate ${vendor}`}
              disabled={move.isPending}
              onClick={() => move.mutate({ id, to: 'ACTIVE' })}
            >
              {move.isPending ? 'Reactivating…' : 'Reactivate'}
            </button>
          )}
        </td>
      </tr>
      {move.isError && (
        <tr className="row-error">
          <td colSpan={5}>
            <ErrorMessage title={`The integration with ${vendor} was not changed.`} error={move.error} />
          </td>
        </tr>
      )}
    </>
  );
}

/** The account's integrations: vendor (its name, and its id where they differ), the account at the vendor, state, since when. */
export function IntegrationsTable({ items, mayChange }: { items: IntegrationListing[]; mayChange: boolean }) {
  return (
    <ScrollRegion label="Integrations">
      <table className="data-table">
        <caption className="visually-hidden">Integrations of the account with ERP vendors</caption>
        <thead>
          <tr>
            <th scope="col">Vendor</th>
            <th scope="col">Account at the vendor</th>
            <th scope="col">State</th>
            <th scope="col">Created</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {items.map((integration) => (
            <IntegrationRow key={integration.integration_id} integration={integration} mayChange={mayChange} />
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}
