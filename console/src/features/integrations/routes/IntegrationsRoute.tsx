import { EmptyState } from '../../../components/EmptyState';
import { useSessionScopes } from '../../auth/api/session';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { Loading } from '../../../components/Loading';
import { PageHeading } from '../../../components/PageHeading';
import { canManageIntegrations } from '../../auth/session-context';
import { useIntegrations } from '../api/integrations';
import { IntegrationsTable } from '../components/IntegrationsTable';

/**
 * The account's integrations with ERP vendors (every role sees them; an account admin disconnects and reactivates).
 * A partner creates one through the API (POST /v3/accounting/integration), usually from its connected app.
 */
export function IntegrationsRoute() {
  const scopes = useSessionScopes();
  const integrations = useIntegrations();
  return (
    <>
      <PageHeading title="Integrations" />
      <p className="hint">
        An ERP partner creates the account&rsquo;s integration from its own app; at most one is active at a time.
      </p>
      {integrations.isPending && <Loading label="Loading integrations…" />}
      {integrations.isError && (
        <ErrorMessage title="The integrations could not be loaded." error={integrations.error}>
          <button type="button" onClick={() => void integrations.refetch()}>
            Try again
          </button>
        </ErrorMessage>
      )}
      {integrations.data && integrations.data.items.length === 0 && (
        <EmptyState title="The account has no integration yet.">
          <p>One appears here when an ERP partner connects the account.</p>
        </EmptyState>
      )}
      {integrations.data && integrations.data.items.length > 0 && (
        <IntegrationsTable items={integrations.data.items} mayChange={canManageIntegrations(scopes)} />
      )}
    </>
  );
}
