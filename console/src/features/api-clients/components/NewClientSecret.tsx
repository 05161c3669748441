import { useEffect, useId, useRef, useState } from 'react';
import { formatDateTime } from '../../../lib/format';

/** Copies text: the Clipboard API where the page may use it, else the selected field's text. */
async function copy(text: string, field: HTMLInputElement | null): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    if (!field) return false;
    field.select();
    return document.execCommand('copy');
  }
}

/** A client's id and a secret just made (created or rotated), with its scopes when known. */
export interface ShownSecret {
  client_id: string;
  client_secret: string;
  scopes?: string[];
  /** After a rotation: until when the previous secret works (null: it stopped at once). */
  previous_secret_expires_at?: string | null;
}

/**
 * The new client's (or new secret's) id and secret, shown this once: the service keeps only the secret's hash. Done
 * forgets it.
 */
export function NewClientSecret({ credentials, onDone }: { credentials: ShownSecret; onDone: () => void }) {
  const rotated = credentials.previous_secret_expires_at !== undefined;
  const id = useId();
  const headingRef = useRef<HTMLHeadingElement>(null);
  const secretRef = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<string | null>(null);
  useEffect(() => headingRef.current?.focus(), []);

  const copySecret = async () =>
    setCopied(
      (await copy(credentials.client_secret, secretRef.current))
        ? 'The secret is copied to the clipboard.'
        : 'The secret could not be copied: select it and copy it yourself.',
    );

  return (
    <section className="card secret-card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`} ref={headingRef} tabIndex={-1}>
        {rotated ? 'New secret made: copy it now' : 'API client created: copy its secret now'}
      </h2>
      <p className="notice notice-warning">
        This is the only time the secret is shown. svc keeps only its hash: if it is lost, revoke this client and create
        another.
      </p>
      <div className="field">
        <label htmlFor={`${id}-client`}>Client id</label>
        <input id={`${id}-client`} readOnly value={credentials.client_id} className="mono" />
      </div>
      <div className="field">
        <label htmlFor={`${id}-secret`}>Client secret</label>
        <input id={`${id}-secret`} ref={secretRef} readOnly value={credentials.client_secret} className="mono" />
      </div>
      {credentials.scopes && <p className="hint">Scopes: {credentials.scopes.join(', ')}</p>}
      {rotated && (
        <p className="hint">
          {credentials.previous_secret_expires_at
            ? `The previous secret keeps working until ${formatDateTime(credentials.previous_secret_expires_at)}: switch the integration to this one before then.`
            : 'The previous secret no longer works.'}
        </p>
      )}
      <div className="button-row">
        <button type="button" className="button-primary" onClick={() => void copySecret()}>
          Copy secret
        </button>
        <button type="button" onClick={onDone}>
          Done: hide the secret
        </button>
      </div>
      <p role="status" className="copy-status">
        {copied}
      </p>
    </section>
  );
}
