import { useId } from 'react';
import { SecretOnce } from '../../../components/SecretOnce';
import { formatDateTime } from '../../../lib/format';

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
  return (
    <SecretOnce
      title={rotated ? 'New secret made: copy it now' : 'API client created: copy its secret now'}
      warning="This is the only time the secret is shown. svc keeps only its hash: if it is lost, revoke this client and create another."
      label="Client secret"
      secret={credentials.client_secret}
      onDone={onDone}
      before={
        <div className="field">
          <label htmlFor={`${id}-client`}>Client id</label>
          <input id={`${id}-client`} readOnly value={credentials.client_id} className="mono" />
        </div>
      }
    >
      {credentials.scopes && <p className="hint">Scopes: {credentials.scopes.join(', ')}</p>}
      {rotated && (
        <p className="hint">
          {credentials.previous_secret_expires_at
            ? `The previous secret keeps working until ${formatDateTime(credentials.previous_secret_expires_at)}: switch the integration to this one before then.`
            : 'The previous secret no longer works.'}
        </p>
      )}
    </SecretOnce>
  );
}
