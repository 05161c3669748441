import type { ConnectedApp } from '@svc/client';
import { useState } from 'react';
import { ConfirmInline } from '../../../components/ConfirmInline';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { ScrollRegion } from '../../../components/ScrollRegion';
import { formatDateTime } from '../../../lib/format';
import { useRevokeConnectedApp } from '../api/connected-apps';

function AppRow({ app, onRevoked }: { app: ConnectedApp; onRevoked: (name: string) => void }) {
  const [confirming, setConfirming] = useState(false);
  const revoke = useRevokeConnectedApp();
  return (
    <>
      <tr>
        <td>
          <strong>{app.name}</strong>
          <br />
          <code>{app.app_id}</code>
        </td>
        <td>
          <ul className="scope-list">
            {app.scopes.map((scope) => (
              <li key={scope}>
                <code>{scope}</code>
              </li>
            ))}
          </ul>
        </td>
        <td className="nowrap">{formatDateTime(app.connected_at)}</td>
        <td className="actions-cell">
          {!confirming ? (
            <button type="button" aria-label={`Revoke ${app.name}`} onClick={() => setConfirming(true)}>
              Revoke
            </button>
          ) : (
            <ConfirmInline
              question={`Revoke ${app.name}?`}
              warning="Its access stops at once."
              confirm="Yes, revoke"
              confirmAccessibleName={`Yes, revoke ${app.name}`}
              busyLabel="Revoking…"
              busy={revoke.isPending}
              danger
              onConfirm={() => revoke.mutate(app.app_id, { onSuccess: () => onRevoked(app.name) })}
              onCancel={() => setConfirming(false)}
            />
          )}
        </td>
      </tr>
      {revoke.isError && (
        <tr className="row-error">
          <td colSpan={4}>
            <ErrorMessage title={`${app.name} was not revoked.`} error={revoke.error} />
          </td>
        </tr>
      )}
    </>
  );
}

/** The connected apps: name, scopes granted, when connected; each can be revoked. */
export function ConnectedAppsTable({ apps, onRevoked }: { apps: ConnectedApp[]; onRevoked: (name: string) => void }) {
  return (
    <ScrollRegion label="Connected apps">
      <table className="data-table">
        <caption className="visually-hidden">Partner apps connected to the account</caption>
        <thead>
          <tr>
            <th scope="col">App</th>
            <th scope="col">May</th>
            <th scope="col">Connected</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {apps.map((app) => (
            <AppRow key={app.app_id} app={app} onRevoked={onRevoked} />
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}
