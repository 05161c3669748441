import type { EventType } from '@svc/client';
import { useId, useState, type FormEvent } from 'react';
import { EVENT_TYPE_WORDS, EVENT_TYPES } from '../event-types';
import { urlRefusalWords } from '../url-refusal';

export interface EndpointValues {
  url: string;
  description: string;
  eventTypes: EventType[];
}

interface EndpointFormProps {
  initial: EndpointValues;
  submitLabel: string;
  pendingLabel: string;
  pending: boolean;
  onSubmit: (values: EndpointValues) => void;
  /** Where a secondary action goes (Cancel on an edit). */
  onCancel?: () => void;
  /** The last save's error: a refused URL is said in plain words next to the URL input. */
  error?: unknown;
}

/**
 * An endpoint's URL, description and event types, for create and edit. The service checks the URL (https to a
 * public address); the form only asks for at least one event type, which the service requires too.
 */
export function EndpointForm({
  initial,
  submitLabel,
  pendingLabel,
  pending,
  onSubmit,
  onCancel,
  error,
}: EndpointFormProps) {
  const id = useId();
  const urlRefused = urlRefusalWords(error);
  const [url, setUrl] = useState(initial.url);
  const [description, setDescription] = useState(initial.description);
  const [types, setTypes] = useState<ReadonlySet<EventType>>(new Set(initial.eventTypes));
  const [missing, setMissing] = useState(false);

  const toggle = (type: EventType, on: boolean) =>
    setTypes((current) => {
      const next = new Set(current);
      if (on) next.add(type);
      else next.delete(type);
      return next;
    });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (types.size === 0) return setMissing(true);
    setMissing(false);
    // In the catalogue's order, whatever the order they were ticked in.
    onSubmit({ url: url.trim(), description: description.trim(), eventTypes: EVENT_TYPES.filter((t) => types.has(t)) });
  };

  return (
    <form onSubmit={submit} noValidate>
      <div className="inline-fields endpoint-fields">
        <div className="field">
          <label htmlFor={`${id}-url`}>Endpoint URL</label>
          <input
            id={`${id}-url`}
            type="url"
            inputMode="url"
            value={url}
            required
            maxLength={2048}
            placeholder="https://erp.example.com/svc-webhooks"
            aria-invalid={urlRefused ? true : undefined}
            aria-describedby={urlRefused ? `${id}-url-error ${id}-url-hint` : `${id}-url-hint`}
            onChange={(e) => setUrl(e.target.value)}
          />
          {urlRefused && (
            <p className="field-error" id={`${id}-url-error`}>
              {urlRefused}
            </p>
          )}
        </div>
        <div className="field">
          <label htmlFor={`${id}-description`}>Description (optional)</label>
          <input
            id={`${id}-description`}
            value={description}
            maxLength={255}
            onChange={(e) => setDescription(e.target.value)}
          />
        </div>
      </div>
      <p className="hint" id={`${id}-url-hint`}>
        svc POSTs each event to this address, signed per Standard Webhooks. It must be https and reach a public address.
      </p>
      <fieldset className="scope-groups">
        <legend>Events to send</legend>
        {EVENT_TYPES.map((type) => (
          <label key={type} className="check scope-check">
            <input type="checkbox" checked={types.has(type)} onChange={(e) => toggle(type, e.target.checked)} />
            <span>
              <code>{type}</code> <span className="muted">— {EVENT_TYPE_WORDS[type]}</span>
            </span>
          </label>
        ))}
      </fieldset>
      {missing && (
        <p className="field-error" role="alert">
          Tick at least one event type.
        </p>
      )}
      <div className="button-row">
        <button type="submit" className="button-primary" disabled={pending}>
          {pending ? pendingLabel : submitLabel}
        </button>
        {onCancel && (
          <button type="button" disabled={pending} onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
