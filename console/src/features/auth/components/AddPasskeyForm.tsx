import { SvcApiError, type PasskeyRegistered } from '@svc/client';
import { useId, useState, type FormEvent } from 'react';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { useAddPasskey } from '../api/passkeys';

/** What went wrong, in the user's terms: the browser's dialog closed, or the service refused the answer. */
function failure(error: unknown): { title: string; showMessage: boolean } {
  if (error instanceof SvcApiError) return { title: 'The passkey was not added.', showMessage: true };
  return {
    title: 'The passkey was not added: your browser did not make one (the request was cancelled, or took too long).',
    showMessage: false,
  };
}

/**
 * Adds a passkey or security key, with a name to tell it apart by: the browser's own dialog makes it, the service
 * keeps its public key. The answer (with recovery codes, for a first second factor) goes to `onAdded`.
 */
export function AddPasskeyForm({ onAdded }: { onAdded: (registered: PasskeyRegistered) => void }) {
  const id = useId();
  const add = useAddPasskey();
  const [name, setName] = useState('');

  const submit = (event: FormEvent) => {
    event.preventDefault();
    add.mutate(name.trim(), {
      onSuccess: (registered) => {
        setName('');
        onAdded(registered);
      },
    });
  };
  const shown = add.isError ? failure(add.error) : null;

  return (
    <form className="form-stack" onSubmit={submit} aria-label="Add a passkey">
      {shown && <ErrorMessage title={shown.title} error={add.error} showMessage={shown.showMessage} />}
      <div className="field">
        <label htmlFor={`${id}-name`}>Name of the passkey</label>
        <input
          id={`${id}-name`}
          required
          maxLength={64}
          autoComplete="off"
          aria-describedby={`${id}-hint`}
          value={name}
          onChange={(e) => setName(e.target.value)}
        />
        <p className="hint" id={`${id}-hint`}>
          To tell your passkeys apart: “YubiKey 5”, “Work laptop”.
        </p>
      </div>
      <div className="button-row">
        <button type="submit" className="button-primary" disabled={add.isPending}>
          {add.isPending ? 'Waiting for your passkey…' : 'Add a passkey'}
        </button>
      </div>
    </form>
  );
}
