import type { WebhookEndpoint } from '@svc/client';
import { useId, useState } from 'react';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { useSendTestEvent } from '../api/webhooks';

/**
 * Sends a signed test event (webhook.test) to this endpoint alone, to check a receiver end to end: delivered, logged
 * and retried like any event, never in the account's event feed. A disabled endpoint is sent nothing (the server
 * refuses it too).
 */
export function SendTestEvent({ endpoint }: { endpoint: WebhookEndpoint }) {
  const id = useId();
  const send = useSendTestEvent(endpoint.id);
  const [sent, setSent] = useState<string | null>(null);
  const enabled = endpoint.status === 'ENABLED';
  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Test event</h2>
      <p className="hint" id={`${id}-hint`}>
        {enabled
          ? 'Sends a signed webhook.test event to this endpoint alone, delivered like any other: check that your receiver verifies it and answers 2xx. It is not an event of the account: the event feed and other endpoints never see it.'
          : 'A disabled endpoint is sent nothing: enable it to send a test event.'}
      </p>
      <div className="button-row">
        <button
          type="button"
          aria-describedby={`${id}-hint`}
          disabled={!enabled || send.isPending}
          onClick={() => {
            setSent(null);
            send.mutate(undefined, { onSuccess: (event) => setSent(event.id) });
          }}
        >
          {send.isPending ? 'Sending…' : 'Send test event'}
        </button>
      </div>
      {sent && (
        <p className="notice notice-success" role="status">
          Test event <code>{sent}</code> is queued: it is sent within seconds, and its attempts appear in the delivery
          log.
        </p>
      )}
      {send.isError && <ErrorMessage title="The test event was not sent." error={send.error} />}
    </section>
  );
}
