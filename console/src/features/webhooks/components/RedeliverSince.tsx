import type { WebhookEndpoint } from '@svc/client';
import { useId, useState, type FormEvent } from 'react';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { countOf } from '../../../lib/format';
import { useRedeliver } from '../api/webhooks';
import { isoToUtcInput, utcInputToIso } from '../format';

/** Every event of the endpoint's types since a time (UTC), queued again with the same ids. */
export function RedeliverSince({ endpoint }: { endpoint: WebhookEndpoint }) {
  const id = useId();
  const [since, setSince] = useState(() => isoToUtcInput(new Date(Date.now() - 3_600_000)));
  const [invalid, setInvalid] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const redeliver = useRedeliver(endpoint.id);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setDone(null);
    const iso = utcInputToIso(since);
    setInvalid(iso === null);
    if (iso === null) return;
    redeliver.mutate(
      { since: iso },
      {
        onSuccess: ({ redelivered }) =>
          setDone(
            redelivered === 0
              ? 'No event of the endpoint’s types happened since then: nothing to send.'
              : `${countOf(redelivered, 'event')} ${redelivered === 1 ? 'is' : 'are'} queued for delivery again${
                  endpoint.status === 'ENABLED' ? '.' : ': they are sent when the endpoint is enabled.'
                }`,
          ),
      },
    );
  };

  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Redeliver events since a time</h2>
      <p className="hint">
        After an outage of the receiver: every event of the endpoint&rsquo;s types since then is sent again, with the
        same ids (receivers deduplicate on <code>webhook-id</code>).
      </p>
      <form className="inline-fields" onSubmit={submit} noValidate>
        <div className="field">
          <label htmlFor={`${id}-since`}>Since (UTC)</label>
          <input
            id={`${id}-since`}
            type="datetime-local"
            value={since}
            required
            aria-invalid={invalid || undefined}
            aria-describedby={invalid ? `${id}-since-error` : undefined}
            onChange={(e) => setSince(e.target.value)}
          />
          {invalid && (
            <p className="field-error" id={`${id}-since-error`}>
              Choose a date and time.
            </p>
          )}
        </div>
        <div className="field field-submit">
          <button type="submit" disabled={redeliver.isPending}>
            {redeliver.isPending ? 'Queuing…' : 'Redeliver since then'}
          </button>
        </div>
      </form>
      {done && (
        <p className="notice notice-success" role="status">
          {done}
        </p>
      )}
      {redeliver.isError && <ErrorMessage title="The events were not redelivered." error={redeliver.error} />}
    </section>
  );
}
