import { useState } from 'react';
import { useSessionScopes } from '../../auth/api/session';
import { EmptyState } from '../../../components/EmptyState';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { Loading } from '../../../components/Loading';
import { PageHeading } from '../../../components/PageHeading';
import { canManageClients } from '../../auth/session-context';
import { useApiClients } from '../api/clients';
import { ClientsTable } from '../components/ClientsTable';
import { NewClientForm } from '../components/NewClientForm';
import { NewClientSecret, type ShownSecret } from '../components/NewClientSecret';

function ClientsScreen() {
  const clients = useApiClients();
  // The secret lives in this state only, until Done (or leaving the page).
  const [created, setCreated] = useState<ShownSecret | null>(null);
  const [revoked, setRevoked] = useState<string | null>(null);
  const [scopesSaved, setScopesSaved] = useState<string | null>(null);

  return (
    <>
      {created ? (
        <NewClientSecret credentials={created} onDone={() => setCreated(null)} />
      ) : (
        <NewClientForm
          onCreated={(credentials) => {
            setRevoked(null);
            setCreated(credentials);
          }}
        />
      )}
      <section aria-labelledby="clients-title">
        <h2 id="clients-title">Clients of the account</h2>
        {revoked && (
          <p className="notice notice-success" role="status">
            {revoked} is revoked: its tokens no longer work.
          </p>
        )}
        {scopesSaved && (
          <p className="notice notice-success" role="status">
            The scopes of {scopesSaved} are saved: a scope taken away no longer works for its tokens.
          </p>
        )}
        {clients.isPending && <Loading label="Loading API clients…" />}
        {clients.isError && (
          <ErrorMessage title="The API clients could not be loaded." error={clients.error}>
            <button type="button" onClick={() => void clients.refetch()}>
              Try again
            </button>
          </ErrorMessage>
        )}
        {clients.data && clients.data.items.length === 0 && (
          <EmptyState title="The account has no API clients yet.">
            <p>Create one above for each integration.</p>
          </EmptyState>
        )}
        {clients.data && clients.data.items.length > 0 && (
          <ClientsTable
            clients={clients.data.items}
            onRevoked={(id) => {
              setScopesSaved(null);
              setRevoked(id);
            }}
            onScopesSaved={(id) => {
              setRevoked(null);
              setScopesSaved(id);
            }}
            onRotated={(secret) => {
              setRevoked(null);
              setCreated(secret);
            }}
          />
        )}
      </section>
    </>
  );
}

/** The account's API clients (account admins): create one (its secret shown once), list them, revoke one. */
export function ApiClientsRoute() {
  const scopes = useSessionScopes();
  return (
    <>
      <PageHeading title="API clients" />
      <p className="hint">
        An API client is how an integration signs in: it exchanges its id and secret for a token at{' '}
        <code>/oauth2/token</code>.
      </p>
      {canManageClients(scopes) ? (
        <ClientsScreen />
      ) : (
        <p className="notice notice-info">Only an account admin manages the account&rsquo;s API clients.</p>
      )}
    </>
  );
}
