import type { WebhookEndpoint, WebhookSecrets } from '@svc/client';
import { useId, useState } from 'react';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { formatDateTime } from '../../../lib/format';
import { useDeleteWebhook, useRotateSecret, useUpdateWebhook } from '../api/webhooks';
import { SecretOnce } from './SecretOnce';

/** How long the old secret keeps signing beside the new one after a rotation. */
const OVERLAPS = [
  { seconds: 86_400, words: 'for 1 day (receivers switch meanwhile)' },
  { seconds: 3_600, words: 'for 1 hour' },
  { seconds: 7 * 86_400, words: 'for 7 days' },
  { seconds: 0, words: 'not at all: stop it now' },
] as const;

interface EndpointActionsProps {
  endpoint: WebhookEndpoint;
  onDeleted: () => void;
}

/** Disable or enable the endpoint, rotate its secret (the new one shown once), delete it after a confirmation. */
export function EndpointActions({ endpoint, onDeleted }: EndpointActionsProps) {
  const id = useId();
  const [confirm, setConfirm] = useState<'rotate' | 'delete' | null>(null);
  const [overlap, setOverlap] = useState<number>(86_400);
  const [rotated, setRotated] = useState<WebhookSecrets | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const update = useUpdateWebhook(endpoint.id);
  const rotate = useRotateSecret(endpoint.id);
  const remove = useDeleteWebhook(endpoint.id);
  const busy = update.isPending || rotate.isPending || remove.isPending;
  const enabled = endpoint.status === 'ENABLED';

  const toggle = () => {
    setDone(null);
    update.mutate(
      { status: enabled ? 'DISABLED' : 'ENABLED' },
      {
        onSuccess: (saved) =>
          setDone(
            saved.status === 'DISABLED'
              ? 'The endpoint is disabled: its deliveries wait until it is enabled again.'
              : 'The endpoint is enabled: waiting deliveries are sent now. Redeliver “since” for the events it missed while disabled.',
          ),
      },
    );
  };

  if (rotated) {
    const previous = rotated.secrets[1];
    return (
      <SecretOnce
        title="Secret rotated: copy the new one now"
        secret={rotated.secrets[0]!.secret}
        onDone={() => {
          setRotated(null);
          setDone('The new secret signs every delivery from now on.');
        }}
      >
        <p className="hint">
          {previous
            ? `Deliveries also carry a signature with the previous secret until ${formatDateTime(previous.expires_at)}: switch the receiver before then.`
            : 'The previous secret no longer signs: the receiver must use the new one now.'}
        </p>
      </SecretOnce>
    );
  }

  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Actions</h2>
      <div className="button-row">
        <button type="button" disabled={busy} onClick={toggle}>
          {enabled ? 'Disable endpoint' : 'Enable endpoint'}
        </button>
        <button
          type="button"
          disabled={busy}
          onClick={() => {
            setDone(null);
            setConfirm('rotate');
          }}
        >
          Rotate secret
        </button>
        <button
          type="button"
          className="button-danger"
          disabled={busy}
          onClick={() => {
            setDone(null);
            setConfirm('delete');
          }}
        >
          Delete endpoint
        </button>
      </div>
      {confirm === 'rotate' && (
        <div className="confirm" role="group" aria-label="Rotate the secret?">
          <div className="field">
            <label htmlFor={`${id}-overlap`}>Keep the old secret signing</label>
            <select id={`${id}-overlap`} value={overlap} onChange={(e) => setOverlap(Number(e.target.value))}>
              {OVERLAPS.map((o) => (
                <option key={o.seconds} value={o.seconds}>
                  {o.words}
                </option>
              ))}
            </select>
          </div>
          <button
            type="button"
            className="button-primary"
            disabled={busy}
            onClick={() =>
              rotate.mutate(overlap, {
                onSuccess: (secrets) => {
                  setConfirm(null);
                  setRotated(secrets);
                },
              })
            }
          >
            {rotate.isPending ? 'Rotating…' : 'Yes, rotate the secret'}
          </button>
          <button type="button" disabled={busy} onClick={() => setConfirm(null)}>
            Keep the secret
          </button>
        </div>
      )}
      {confirm === 'delete' && (
        <div className="confirm" role="group" aria-label="Delete the endpoint?">
          <span>Delete this endpoint with its delivery log? The events stay in the feed.</span>
          <button
            type="button"
            className="button-danger"
            autoFocus
            disabled={busy}
            onClick={() => remove.mutate(undefined, { onSuccess: onDeleted })}
          >
            {remove.isPending ? 'Deleting…' : 'Yes, delete the endpoint'}
          </button>
          <button type="button" disabled={busy} onClick={() => setConfirm(null)}>
            Keep it
          </button>
        </div>
      )}
      {done && (
        <p className="notice notice-success" role="status">
          {done}
        </p>
      )}
      {update.isError && (
        <ErrorMessage
          title={enabled ? 'The endpoint was not disabled.' : 'The endpoint was not enabled.'}
          error={update.error}
        />
      )}
      {rotate.isError && <ErrorMessage title="The secret was not rotated." error={rotate.error} />}
      {remove.isError && <ErrorMessage title="The endpoint was not deleted." error={remove.error} />}
    </section>
  );
}
