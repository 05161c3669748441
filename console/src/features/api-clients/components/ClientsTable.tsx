import type { ApiClient } from '@svc/client';
import { useState } from 'react';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { ScrollRegion } from '../../../components/ScrollRegion';
import { formatDateTime } from '../../../lib/format';
import { useRevokeApiClient, useRotateApiClientSecret } from '../api/clients';
import type { ShownSecret } from './NewClientSecret';

function ClientRow({
  apiClient,
  onRevoked,
  onRotated,
}: {
  apiClient: ApiClient;
  onRevoked: (clientId: string) => void;
  onRotated: (secret: ShownSecret) => void;
}) {
  const [confirming, setConfirming] = useState<'revoke' | 'rotate' | null>(null);
  const revoke = useRevokeApiClient();
  const rotate = useRotateApiClientSecret();
  const id = apiClient.client_id;
  return (
    <>
      <tr className={apiClient.revoked_at ? 'row-disabled' : undefined}>
        <td>
          <code>{id}</code>
        </td>
        <td>
          <ul className="scope-list">
            {apiClient.scopes.map((scope) => (
              <li key={scope}>
                <code>{scope}</code>
              </li>
            ))}
          </ul>
        </td>
        <td className="nowrap">{formatDateTime(apiClient.created_at)}</td>
        <td>
          {apiClient.revoked_at ? (
            <span>
              <span className="badge badge-disabled">Revoked</span> {formatDateTime(apiClient.revoked_at)}
            </span>
          ) : (
            <span className="badge badge-active">Active</span>
          )}
        </td>
        <td className="actions-cell">
          {!apiClient.revoked_at && confirming === null && (
            <div className="row-actions">
              <button type="button" aria-label={`Rotate secret of ${id}`} onClick={() => setConfirming('rotate')}>
                Rotate secret
              </button>
              <button type="button" aria-label={`Revoke ${id}`} onClick={() => setConfirming('revoke')}>
                Revoke
              </button>
            </div>
          )}
          {!apiClient.revoked_at && confirming === 'rotate' && (
            <div className="row-actions" role="group" aria-label={`Rotate the secret of ${id}?`}>
              <span>A new secret is shown once; the old one keeps working for a day.</span>
              <button
                type="button"
                className="button-primary"
                autoFocus
                aria-label={`Yes, rotate the secret of ${id}`}
                disabled={rotate.isPending}
                onClick={() =>
                  rotate.mutate(id, {
                    onSuccess: (answer) => {
                      setConfirming(null);
                      onRotated(answer);
                    },
                  })
                }
              >
                {rotate.isPending ? 'Rotating…' : 'Yes, rotate'}
              </button>
              <button type="button" disabled={rotate.isPending} onClick={() => setConfirming(null)}>
                Keep it
              </button>
            </div>
          )}
          {!apiClient.revoked_at && confirming === 'revoke' && (
            <div className="row-actions" role="group" aria-label={`Revoke ${id}?`}>
              <span>Its tokens stop working at once.</span>
              <button
                type="button"
                className="button-danger"
                autoFocus
                aria-label={`Yes, revoke ${id}`}
                disabled={revoke.isPending}
                onClick={() => revoke.mutate(id, { onSuccess: () => onRevoked(id) })}
              >
                {revoke.isPending ? 'Revoking…' : 'Yes, revoke'}
              </button>
              <button type="button" disabled={revoke.isPending} onClick={() => setConfirming(null)}>
                Keep it
              </button>
            </div>
          )}
        </td>
      </tr>
      {rotate.isError && (
        <tr className="row-error">
          <td colSpan={5}>
            <ErrorMessage title={`The secret of ${id} was not rotated.`} error={rotate.error} />
          </td>
        </tr>
      )}
      {revoke.isError && (
        <tr className="row-error">
          <td colSpan={5}>
            <ErrorMessage title={`${id} was not revoked.`} error={revoke.error} />
          </td>
        </tr>
      )}
    </>
  );
}

/** The account's API clients: id, scopes, created, active or revoked; an active one can be revoked. */
export function ClientsTable({
  clients,
  onRevoked,
  onRotated,
}: {
  clients: ApiClient[];
  onRevoked: (clientId: string) => void;
  onRotated: (secret: ShownSecret) => void;
}) {
  return (
    <ScrollRegion label="API clients">
      <table className="data-table">
        <caption className="visually-hidden">API clients of the account</caption>
        <thead>
          <tr>
            <th scope="col">Client id</th>
            <th scope="col">Scopes</th>
            <th scope="col">Created</th>
            <th scope="col">State</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {clients.map((c) => (
            <ClientRow key={c.client_id} apiClient={c} onRevoked={onRevoked} onRotated={onRotated} />
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}
