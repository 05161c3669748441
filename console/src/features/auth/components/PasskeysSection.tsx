import type { PasskeyRegistered } from '@svc/client';
import { useId, useState } from 'react';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { Loading } from '../../../components/Loading';
import { usePasskeys } from '../api/passkeys';
import { AddPasskeyForm } from './AddPasskeyForm';
import { PasskeysTable } from './PasskeysTable';

/** The signed-in user's passkeys and security keys: the list, with remove, and a form to add one. */
export function PasskeysSection({ onAdded }: { onAdded: (registered: PasskeyRegistered) => void }) {
  const id = useId();
  const passkeys = usePasskeys();
  const [added, setAdded] = useState<string | null>(null);

  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Passkeys and security keys</h2>
      <p>
        A passkey (your laptop&apos;s or phone&apos;s screen lock, a password manager) or a security key (a YubiKey)
        answers the second step of a sign-in in place of a code: your browser asks for it.
      </p>
      {added && (
        <p className="notice notice-success" role="status">
          Passkey “{added}” added.
        </p>
      )}
      {passkeys.isPending && <Loading label="Loading your passkeys…" />}
      {passkeys.isError && (
        <ErrorMessage title="Your passkeys could not be loaded." error={passkeys.error}>
          <button type="button" onClick={() => void passkeys.refetch()}>
            Try again
          </button>
        </ErrorMessage>
      )}
      {passkeys.data && passkeys.data.items.length === 0 && <p className="hint">You have no passkey yet.</p>}
      {passkeys.data && passkeys.data.items.length > 0 && <PasskeysTable passkeys={passkeys.data.items} />}
      <AddPasskeyForm
        onAdded={(registered) => {
          setAdded(registered.passkey.name);
          onAdded(registered);
        }}
      />
    </section>
  );
}
