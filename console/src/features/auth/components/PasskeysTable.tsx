import type { Passkey } from '@svc/client';
import { useState } from 'react';
import { ConfirmInline } from '../../../components/ConfirmInline';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { ScrollRegion } from '../../../components/ScrollRegion';
import { formatDateTime } from '../../../lib/format';
import { useRemovePasskey } from '../api/passkeys';

function PasskeyRow({ passkey }: { passkey: Passkey }) {
  const [confirming, setConfirming] = useState(false);
  const remove = useRemovePasskey();
  return (
    <>
      <tr>
        <td>{passkey.name}</td>
        <td className="nowrap">{formatDateTime(passkey.created_at)}</td>
        <td className="nowrap">{passkey.last_used_at ? formatDateTime(passkey.last_used_at) : 'Never'}</td>
        <td className="actions-cell">
          {confirming ? (
            <ConfirmInline
              question={`Remove the passkey ${passkey.name}?`}
              warning="It no longer signs you in."
              confirm="Yes, remove"
              confirmAccessibleName={`Yes, remove the passkey ${passkey.name}`}
              busyLabel="Removing…"
              busy={remove.isPending}
              danger
              onConfirm={() => remove.mutate(passkey.passkey_id, { onSettled: () => setConfirming(false) })}
              onCancel={() => setConfirming(false)}
            />
          ) : (
            <button
              type="button"
              aria-label={`Remove the passkey ${passkey.name}`}
              onClick={() => {
                remove.reset();
                setConfirming(true);
              }}
            >
              Remove
            </button>
          )}
        </td>
      </tr>
      {remove.isError && (
        <tr className="row-error">
          <td colSpan={4}>
            <ErrorMessage title={`The passkey ${passkey.name} was not removed.`} error={remove.error} />
          </td>
        </tr>
      )}
    </>
  );
}

/** The user's passkeys: name, when added and last used; each removable after a confirmation. */
export function PasskeysTable({ passkeys }: { passkeys: Passkey[] }) {
  return (
    <ScrollRegion label="Passkeys">
      <table className="data-table">
        <caption className="visually-hidden">Your passkeys and security keys</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Added</th>
            <th scope="col">Last used</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {passkeys.map((p) => (
            <PasskeyRow key={p.passkey_id} passkey={p} />
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}
