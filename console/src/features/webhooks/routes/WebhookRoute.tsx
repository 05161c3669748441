import type { WebhookEndpoint } from '@svc/client';
import { useSessionScopes } from '../../auth/api/session';
import { useId, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { Loading } from '../../../components/Loading';
import { RefreshFailed } from '../../../components/RefreshFailed';
import { PageHeading } from '../../../components/PageHeading';
import { formatDateTime } from '../../../lib/format';
import { isGone } from '../../../lib/errors';
import { useUpdateWebhook, useWebhook } from '../api/webhooks';
import { DeliveryLog } from '../components/DeliveryLog';
import { EndpointActions } from '../components/EndpointActions';
import { EndpointForm } from '../components/EndpointForm';
import { urlRefusalWords } from '../url-refusal';
import { EndpointStatus } from '../components/EndpointStatus';
import { RedeliverSince } from '../components/RedeliverSince';
import { SendTestEvent } from '../components/SendTestEvent';
import { canManageWebhooks } from '../event-types';
import '../webhooks.css';

function EditEndpoint({ endpoint }: { endpoint: WebhookEndpoint }) {
  const id = useId();
  const update = useUpdateWebhook(endpoint.id);
  const [editing, setEditing] = useState(false);
  const [saved, setSaved] = useState(false);
  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Settings</h2>
      {editing ? (
        <EndpointForm
          initial={{ url: endpoint.url, description: endpoint.description ?? '', eventTypes: endpoint.event_types }}
          submitLabel="Save changes"
          pendingLabel="Saving…"
          pending={update.isPending}
          error={update.error}
          onCancel={() => {
            update.reset();
            setEditing(false);
          }}
          onSubmit={(values) =>
            update.mutate(
              { url: values.url, event_types: values.eventTypes, description: values.description || null },
              {
                onSuccess: () => {
                  setEditing(false);
                  setSaved(true);
                },
              },
            )
          }
        />
      ) : (
        <>
          <dl className="record-header">
            <div className="record-header-item record-header-wide">
              <dt>Events</dt>
              <dd>
                <ul className="scope-list">
                  {endpoint.event_types.map((type) => (
                    <li key={type}>
                      <code>{type}</code>
                    </li>
                  ))}
                </ul>
              </dd>
            </div>
            <div className="record-header-item">
              <dt>State</dt>
              <dd>
                <EndpointStatus endpoint={endpoint} />
              </dd>
            </div>
            <div className="record-header-item">
              <dt>Created</dt>
              <dd>{formatDateTime(endpoint.created_at)}</dd>
            </div>
            <div className="record-header-item">
              <dt>Endpoint id</dt>
              <dd>
                <code>{endpoint.id}</code>
              </dd>
            </div>
          </dl>
          <div className="button-row">
            <button
              type="button"
              onClick={() => {
                setSaved(false);
                setEditing(true);
              }}
            >
              Edit settings
            </button>
          </div>
          {saved && (
            <p className="notice notice-success" role="status">
              The endpoint is saved.
            </p>
          )}
        </>
      )}
      {update.isError && (
        <ErrorMessage
          title="The endpoint was not saved."
          error={update.error}
          // A refused URL is said next to its input.
          showMessage={urlRefusalWords(update.error) === null}
        />
      )}
    </section>
  );
}

function EndpointScreen({ id }: { id: string }) {
  const endpoint = useWebhook(id);
  const [, navigate] = useLocation();
  return (
    <>
      <PageHeading title={endpoint.data?.description ?? 'Webhook endpoint'} />
      <EndpointBody endpoint={endpoint} onDeleted={() => navigate('/webhooks')} />
    </>
  );
}

function EndpointBody({ endpoint, onDeleted }: { endpoint: ReturnType<typeof useWebhook>; onDeleted: () => void }) {
  if (endpoint.isPending) return <Loading label="Loading the endpoint…" />;
  if (endpoint.data === undefined || isGone(endpoint.error)) {
    return isGone(endpoint.error) ? (
      <ErrorMessage title="This webhook endpoint does not exist." error={endpoint.error} showMessage={false}>
        <p>
          It may have been deleted. <Link href="/webhooks">See the account&rsquo;s endpoints</Link>.
        </p>
      </ErrorMessage>
    ) : (
      <ErrorMessage title="The endpoint could not be loaded." error={endpoint.error}>
        <button type="button" onClick={() => void endpoint.refetch()}>
          Try again
        </button>
      </ErrorMessage>
    );
  }
  const data = endpoint.data;
  return (
    <>
      <RefreshFailed what="The endpoint" queries={[endpoint]} />
      <p className="endpoint-url">
        <code>{data.url}</code>
      </p>
      {data.status === 'DISABLED' && (
        <div className="notice notice-warning" role="note">
          <p className="notice-title">This endpoint is disabled: svc sends it nothing.</p>
          {data.disabled_reason && <p>{data.disabled_reason}</p>}
          <p>Its deliveries wait. Enable it to send them; redeliver “since” for the events it missed meanwhile.</p>
        </div>
      )}
      <EditEndpoint endpoint={data} />
      <EndpointActions endpoint={data} onDeleted={onDeleted} />
      <SendTestEvent endpoint={data} />
      <DeliveryLog endpoint={data} />
      <RedeliverSince endpoint={data} />
    </>
  );
}

/** One webhook endpoint: its settings, actions, delivery log and redelivery (account admins). */
export function WebhookRoute({ id }: { id: string }) {
  const scopes = useSessionScopes();
  return (
    <>
      <p className="back-link">
        <Link href="/webhooks">← Webhooks</Link>
      </p>
      {canManageWebhooks(scopes) ? (
        <EndpointScreen id={id} />
      ) : (
        <>
          <PageHeading title="Webhook endpoint" />
          <p className="notice notice-info">Only an account admin manages the account&rsquo;s webhooks.</p>
        </>
      )}
    </>
  );
}
