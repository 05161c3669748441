import type { WebhookEndpointCreated } from '@svc/client';
import { useSessionScopes } from '../../auth/api/session';
import { useId, useState } from 'react';
import { Link } from 'wouter';
import { EmptyState } from '../../../components/EmptyState';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { Loading } from '../../../components/Loading';
import { PageHeading } from '../../../components/PageHeading';
import { useCreateWebhook, useWebhooks } from '../api/webhooks';
import { EndpointForm } from '../components/EndpointForm';
import { urlRefusalWords } from '../url-refusal';
import { EndpointsTable } from '../components/EndpointsTable';
import { SecretOnce } from '../components/SecretOnce';
import { canManageWebhooks } from '../event-types';
import '../webhooks.css';

function NewEndpoint({ onCreated }: { onCreated: (endpoint: WebhookEndpointCreated) => void }) {
  const id = useId();
  const create = useCreateWebhook();
  // A new form after each creation: its fields start empty again.
  const [round, setRound] = useState(0);
  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>New endpoint</h2>
      <EndpointForm
        key={round}
        initial={{ url: '', description: '', eventTypes: ['accounting_record.ready_for_export'] }}
        submitLabel="Create endpoint"
        pendingLabel="Creating…"
        pending={create.isPending}
        error={create.error}
        onSubmit={(values) =>
          create.mutate(
            {
              url: values.url,
              event_types: values.eventTypes,
              ...(values.description ? { description: values.description } : {}),
            },
            {
              onSuccess: (endpoint) => {
                setRound((r) => r + 1);
                onCreated(endpoint);
              },
            },
          )
        }
      />
      {create.isError && (
        <ErrorMessage
          title="The endpoint was not created."
          error={create.error}
          // A refused URL is said next to its input.
          showMessage={urlRefusalWords(create.error) === null}
        />
      )}
    </section>
  );
}

function WebhooksScreen() {
  const endpoints = useWebhooks();
  // The secret lives in this state only, until Done (or leaving the page).
  const [created, setCreated] = useState<WebhookEndpointCreated | null>(null);

  return (
    <>
      {created ? (
        <SecretOnce
          title="Endpoint created: copy its signing secret now"
          secret={created.secret}
          onDone={() => setCreated(null)}
        >
          <p className="hint">
            <Link href={`/webhooks/${encodeURIComponent(created.id)}`}>Open {created.url}</Link> to follow its
            deliveries.
          </p>
        </SecretOnce>
      ) : (
        <NewEndpoint onCreated={setCreated} />
      )}
      <section aria-labelledby="endpoints-title">
        <h2 id="endpoints-title">Endpoints of the account</h2>
        {endpoints.isPending && <Loading label="Loading webhook endpoints…" />}
        {endpoints.isError && (
          <ErrorMessage title="The webhook endpoints could not be loaded." error={endpoints.error}>
            <button type="button" onClick={() => void endpoints.refetch()}>
              Try again
            </button>
          </ErrorMessage>
        )}
        {endpoints.data && endpoints.data.length === 0 && (
          <EmptyState title="The account has no webhook endpoints yet.">
            <p>Create one above: svc then sends its events there as they happen.</p>
          </EmptyState>
        )}
        {endpoints.data && endpoints.data.length > 0 && <EndpointsTable endpoints={endpoints.data} />}
      </section>
    </>
  );
}

/** The account's webhook endpoints (account admins): create one (its secret shown once) and list them. */
export function WebhooksRoute() {
  const scopes = useSessionScopes();
  return (
    <>
      <PageHeading title="Webhooks" />
      <p className="hint">
        svc sends the account&rsquo;s events (a record ready for export, an export result…) to these endpoints seconds
        after they happen, signed, retried for three days. The same events are in the feed at <code>/v1/events</code>.
      </p>
      {canManageWebhooks(scopes) ? (
        <WebhooksScreen />
      ) : (
        <p className="notice notice-info">Only an account admin manages the account&rsquo;s webhooks.</p>
      )}
    </>
  );
}
