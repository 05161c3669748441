import type { ConsentQuery, ConsentRequest } from '@svc/client';
import { useSessionScopes } from '../../auth/api/session';
import { useMemo } from 'react';
import { useSearch } from 'wouter';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { Loading } from '../../../components/Loading';
import { PageHeading } from '../../../components/PageHeading';
import { isApiError } from '../../../lib/errors';
import { canManageClients } from '../../auth/session-context';
import { useConsentDecision, useConsentRequest } from '../api/consent';

const PARAMS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'code_challenge',
  'code_challenge_method',
] as const;

/** The authorization request's parameters, from the page's query (the server checks every one of them). */
function requestOf(search: string): ConsentQuery {
  const params = new URLSearchParams(search);
  const query: Record<string, string> = {};
  for (const name of PARAMS) {
    const value = params.get(name);
    if (value !== null) query[name] = value;
  }
  return query;
}

function hostOf(uri: string): string {
  try {
    return new URL(uri).host;
  } catch {
    return uri;
  }
}

function Refused({ error }: { error: unknown }) {
  const redirectTo =
    isApiError(error, 'INVALID_AUTHORIZATION_REQUEST') && typeof error.details?.redirect_to === 'string'
      ? error.details.redirect_to
      : null;
  return (
    <ErrorMessage title="This request to connect an app cannot be accepted." error={error}>
      {redirectTo ? (
        <p>
          <a className="button" href={redirectTo}>
            Return to the app
          </a>
        </p>
      ) : (
        <p>Nothing was connected. Ask the app&rsquo;s vendor for a working link.</p>
      )}
    </ErrorMessage>
  );
}

function Consent({ query, request }: { query: ConsentQuery; request: ConsentRequest }) {
  const decision = useConsentDecision(query);
  const busy = decision.isPending || decision.isSuccess;
  return (
    <section aria-labelledby="consent-title" className="consent">
      <h2 id="consent-title">
        Connect <strong>{request.app.name}</strong> to account <code>{request.account_id}</code>?
      </h2>
      <p>It will be able to:</p>
      <ul className="consent-scopes">
        {request.scopes.map(({ scope, description }) => (
          <li key={scope}>
            {description} <code>{scope}</code>
          </li>
        ))}
      </ul>
      <p className="hint">
        You will then be sent to <strong>{hostOf(request.redirect_uri)}</strong>. An admin can revoke the app at any
        time under Connected apps; its access then stops at once.
      </p>
      {decision.isError && <ErrorMessage title="Your answer was not recorded." error={decision.error} />}
      <div className="form-actions">
        <button type="button" className="button-primary" disabled={busy} onClick={() => decision.mutate(true)}>
          {decision.isPending && decision.variables ? 'Connecting…' : `Allow ${request.app.name}`}
        </button>
        <button type="button" disabled={busy} onClick={() => decision.mutate(false)}>
          Deny
        </button>
      </div>
    </section>
  );
}

/** The consent screen of a partner app's authorization request (/oauth2/authorize sends the browser here). */
export function ConsentRoute() {
  const search = useSearch();
  const query = useMemo(() => requestOf(search), [search]);
  const scopes = useSessionScopes();
  const request = useConsentRequest(query);
  return (
    <>
      <PageHeading title="Connect an app" />
      {!canManageClients(scopes) ? (
        <p className="notice notice-info" role="alert">
          Only an account admin can connect an app to the account. Ask one of your account&rsquo;s admins.
        </p>
      ) : request.isPending ? (
        <Loading label="Checking the app's request…" />
      ) : request.isError ? (
        <Refused error={request.error} />
      ) : (
        <Consent query={query} request={request.data} />
      )}
    </>
  );
}
