import type { WebhookAttempt, WebhookEndpoint } from '@svc/client';
import { useId, useState } from 'react';
import { EmptyState } from '../../../components/EmptyState';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { Loading } from '../../../components/Loading';
import { ScrollRegion } from '../../../components/ScrollRegion';
import { useAttempts, useRedeliver, type LogEventType } from '../api/webhooks';
import { isEventType } from '../event-types';
import { formatSeconds } from '../format';

/** Test events, sent on request (SendTestEvent): in the log beside the endpoint's own types. */
const TEST_EVENT = 'webhook.test';

function AttemptRow({
  attempt,
  canRedeliver,
  busy,
  onRedeliver,
}: {
  attempt: WebhookAttempt;
  canRedeliver: boolean;
  busy: boolean;
  onRedeliver: (eventId: string) => void;
}) {
  return (
    <tr>
      <td className="nowrap">{formatSeconds(attempt.attempted_at)}</td>
      <td>
        <code>{attempt.event_type ?? 'unknown type'}</code>
        <span className="cell-sub">
          <code>{attempt.event_id}</code>
        </span>
      </td>
      <td className="nowrap">{attempt.status_code === null ? 'No answer' : `HTTP ${attempt.status_code}`}</td>
      <td>
        {attempt.succeeded ? (
          <span className="badge badge-active">Delivered</span>
        ) : (
          <span className="badge badge-failed">Failed</span>
        )}
      </td>
      <td className="nowrap">{attempt.latency_ms.toLocaleString('en-US')} ms</td>
      <td>
        {attempt.error && <p className="attempt-answer">{attempt.error}</p>}
        {attempt.response_excerpt ? (
          <p className="attempt-answer">{attempt.response_excerpt}</p>
        ) : (
          !attempt.error && <span className="muted">(empty answer)</span>
        )}
      </td>
      <td className="actions-cell">
        {canRedeliver && (
          <button
            type="button"
            aria-label={`Redeliver ${attempt.event_id}`}
            disabled={busy}
            onClick={() => onRedeliver(attempt.event_id)}
          >
            Redeliver
          </button>
        )}
      </td>
    </tr>
  );
}

/**
 * The endpoint's delivery log, newest attempt first, a page at a time, filtered by event type; the first page
 * follows new attempts. Each event's newest attempt on the page offers to redeliver it.
 */
export function DeliveryLog({ endpoint }: { endpoint: WebhookEndpoint }) {
  const id = useId();
  const [eventType, setEventType] = useState<LogEventType | null>(null);
  const [cursors, setCursors] = useState<string[]>([]);
  const [redelivered, setRedelivered] = useState<string | null>(null);
  const cursor = cursors.at(-1) ?? null;
  const page = useAttempts(endpoint.id, eventType, cursor);
  const redeliver = useRedeliver(endpoint.id);
  const nextCursor = page.data?.has_next_page ? page.data.next_cursor : null;

  const redeliverOne = (eventId: string) => {
    setRedelivered(null);
    redeliver.mutate(
      { event_id: eventId },
      {
        onSuccess: () =>
          setRedelivered(
            endpoint.status === 'ENABLED'
              ? `Event ${eventId} is queued for delivery again.`
              : `Event ${eventId} is queued: it is sent when the endpoint is enabled.`,
          ),
      },
    );
  };
  const seen = new Set<string>();

  return (
    <section aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Delivery log</h2>
      <div className="log-controls">
        <div className="field">
          <label htmlFor={`${id}-type`}>Event type</label>
          <select
            id={`${id}-type`}
            value={eventType ?? ''}
            onChange={(e) => {
              setCursors([]);
              const value = e.target.value;
              setEventType(value === TEST_EVENT ? TEST_EVENT : isEventType(value) ? value : null);
            }}
          >
            <option value="">All event types</option>
            {endpoint.event_types.map((type) => (
              <option key={type} value={type}>
                {type}
              </option>
            ))}
            <option value={TEST_EVENT}>Test events ({TEST_EVENT})</option>
          </select>
        </div>
        <button type="button" disabled={page.isFetching} onClick={() => void page.refetch()}>
          {page.isFetching ? 'Refreshing…' : 'Refresh the log'}
        </button>
      </div>
      {redelivered && (
        <p className="notice notice-success" role="status">
          {redelivered}
        </p>
      )}
      {redeliver.isError && <ErrorMessage title="The event was not redelivered." error={redeliver.error} />}
      {page.isPending && <Loading label="Loading the delivery log…" />}
      {page.isError && (
        <ErrorMessage title="The delivery log could not be loaded." error={page.error}>
          <button type="button" onClick={() => void page.refetch()}>
            Try again
          </button>
        </ErrorMessage>
      )}
      {page.data && page.data.items.length === 0 && (
        <EmptyState title={eventType ? `No delivery attempt of a ${eventType} event.` : 'No delivery attempt yet.'}>
          <p>Events of the endpoint&rsquo;s types are sent seconds after they happen; each attempt is listed here.</p>
        </EmptyState>
      )}
      {page.data && page.data.items.length > 0 && (
        <ScrollRegion label="Delivery attempts">
          <table className="data-table">
            <caption className="visually-hidden">Delivery attempts, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Event</th>
                <th scope="col">Answer</th>
                <th scope="col">Result</th>
                <th scope="col">Latency</th>
                <th scope="col">Response</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {page.data.items.map((attempt) => {
                const first = !seen.has(attempt.event_id);
                seen.add(attempt.event_id);
                return (
                  <AttemptRow
                    key={attempt.id}
                    attempt={attempt}
                    canRedeliver={first}
                    busy={redeliver.isPending}
                    onRedeliver={redeliverOne}
                  />
                );
              })}
            </tbody>
          </table>
        </ScrollRegion>
      )}
      {page.data && (cursors.length > 0 || nextCursor) && (
        <nav className="pager" aria-label="Pages of the delivery log">
          <button
            type="button"
            disabled={cursors.length === 0 || page.isFetching}
            onClick={() => setCursors((c) => c.slice(0, -1))}
          >
            Newer attempts
          </button>
          <span>Page {cursors.length + 1}</span>
          <button
            type="button"
            disabled={!nextCursor || page.isFetching}
            onClick={() => nextCursor && setCursors((c) => [...c, nextCursor])}
          >
            Older attempts
          </button>
        </nav>
      )}
    </section>
  );
}
