import type { ConsoleUser } from '@svc/client';
import { useState } from 'react';
import { ConfirmInline } from '../../../components/ConfirmInline';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { ScrollRegion } from '../../../components/ScrollRegion';
import { formatDateTime, humanize } from '../../../lib/format';
import { useResetMfa } from '../api/users';

function UserRow({ user, self, onReset }: { user: ConsoleUser; self: boolean; onReset: (email: string) => void }) {
  const [confirming, setConfirming] = useState(false);
  const reset = useResetMfa();
  return (
    <>
      <tr>
        <td>{user.email}</td>
        <td>{humanize(user.role)}</td>
        <td>{humanize(user.status)}</td>
        <td>
          {user.mfa_enrolled ? (
            <span className="badge badge-active">Set up</span>
          ) : (
            <span className="badge badge-disabled">Not set up</span>
          )}
        </td>
        <td className="nowrap">{formatDateTime(user.created_at)}</td>
        <td className="actions-cell">
          {user.mfa_enrolled && !self && !confirming && (
            <button
              type="button"
              aria-label={`Reset two-step sign-in of ${user.email}`}
              onClick={() => setConfirming(true)}
            >
              Reset two-step sign-in
            </button>
          )}
          {user.mfa_enrolled && !self && confirming && (
            <ConfirmInline
              question={`Reset two-step sign-in of ${user.email}?`}
              warning="Their authenticator, passkeys and recovery codes stop working and they are signed out."
              confirm="Yes, reset"
              confirmAccessibleName={`Yes, reset two-step sign-in of ${user.email}`}
              busyLabel="Resetting…"
              busy={reset.isPending}
              danger
              onConfirm={() =>
                reset.mutate(user.user_id, {
                  onSuccess: () => {
                    setConfirming(false);
                    onReset(user.email);
                  },
                })
              }
              onCancel={() => setConfirming(false)}
            />
          )}
        </td>
      </tr>
      {reset.isError && (
        <tr className="row-error">
          <td colSpan={6}>
            <ErrorMessage title={`Two-step sign-in of ${user.email} was not reset.`} error={reset.error} />
          </td>
        </tr>
      )}
    </>
  );
}

/** The account's console users: email, role, status, two-step sign-in; an admin resets another's. */
export function UsersTable({
  users,
  selfId,
  onReset,
}: {
  users: ConsoleUser[];
  selfId: string;
  onReset: (email: string) => void;
}) {
  return (
    <ScrollRegion label="Users">
      <table className="data-table">
        <caption className="visually-hidden">Console users of the account</caption>
        <thead>
          <tr>
            <th scope="col">Email</th>
            <th scope="col">Role</th>
            <th scope="col">Status</th>
            <th scope="col">Two-step sign-in</th>
            <th scope="col">Created</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {users.map((u) => (
            <UserRow key={u.user_id} user={u} self={u.user_id === selfId} onReset={onReset} />
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}
