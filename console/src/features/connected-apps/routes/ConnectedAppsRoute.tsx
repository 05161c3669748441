import { useState } from 'react';
import { useSessionScopes } from '../../auth/api/session';
import { EmptyState } from '../../../components/EmptyState';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { Loading } from '../../../components/Loading';
import { PageHeading } from '../../../components/PageHeading';
import { canManageClients } from '../../auth/session-context';
import { useConnectedApps } from '../api/connected-apps';
import { ConnectedAppsTable } from '../components/ConnectedAppsTable';

function ConnectedAppsScreen() {
  const apps = useConnectedApps();
  const [revoked, setRevoked] = useState<string | null>(null);
  return (
    <section aria-labelledby="apps-title">
      <h2 id="apps-title">Apps with access to the account</h2>
      {revoked && (
        <p className="notice notice-success" role="status">
          {revoked} is revoked: its access has stopped.
        </p>
      )}
      {apps.isPending && <Loading label="Loading connected apps…" />}
      {apps.isError && (
        <ErrorMessage title="The connected apps could not be loaded." error={apps.error}>
          <button type="button" onClick={() => void apps.refetch()}>
            Try again
          </button>
        </ErrorMessage>
      )}
      {apps.data && apps.data.items.length === 0 && (
        <EmptyState title="No app is connected to the account.">
          <p>An ERP partner&rsquo;s app asks to connect from its own site; you then approve it here, in the console.</p>
        </EmptyState>
      )}
      {apps.data && apps.data.items.length > 0 && <ConnectedAppsTable apps={apps.data.items} onRevoked={setRevoked} />}
    </section>
  );
}

/** The partner apps connected to the account (account admins): list, revoke. */
export function ConnectedAppsRoute() {
  const scopes = useSessionScopes();
  return (
    <>
      <PageHeading title="Connected apps" />
      {canManageClients(scopes) ? (
        <ConnectedAppsScreen />
      ) : (
        <p className="notice notice-info">Only an account admin manages the apps connected to the account.</p>
      )}
    </>
  );
}
