import type { ApiClient } from '@svc/client';
import { useState } from 'react';
import { ConfirmInline } from '../../../components/ConfirmInline';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { ScrollRegion } from '../../../components/ScrollRegion';
import { formatDateTime } from '../../../lib/format';
import { useRevokeApiClient, useRotateApiClientSecret } from '../api/clients';
import { EditScopesForm } from './EditScopesForm';
import type { ShownSecret } from './NewClientSecret';
import { RenameClientForm } from './RenameClientForm';

const COLUMNS = 7;

function ClientRow({
  apiClient,
  onRevoked,
  onRotated,
  onScopesSaved,
}: {
  apiClient: ApiClient;
  onRevoked: (clientId: string) => void;
  onRotated: (secret: ShownSecret) => void;
  onScopesSaved: (clientId: string) => void;
}) {
  const [confirming, setConfirming] = useState<'revoke' | 'rotate' | 'scopes' | 'rename' | null>(null);
  const revoke = useRevokeApiClient();
  const rotate = useRotateApiClientSecret();
  const id = apiClient.client_id;
  return (
    <>
      <tr className={apiClient.revoked_at ? 'row-disabled' : undefined}>
        <th scope="row">{apiClient.name || <span className="muted">Unnamed</span>}</th>
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
        <td className="nowrap">{apiClient.last_used_at ? formatDateTime(apiClient.last_used_at) : 'Never'}</td>
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
              <button type="button" aria-label={`Rename ${id}`} onClick={() => setConfirming('rename')}>
                Rename
              </button>
              <button type="button" aria-label={`Change scopes of ${id}`} onClick={() => setConfirming('scopes')}>
                Change scopes
              </button>
              <button type="button" aria-label={`Rotate secret of ${id}`} onClick={() => setConfirming('rotate')}>
                Rotate secret
              </button>
              <button type="button" aria-label={`Revoke ${id}`} onClick={() => setConfirming('revoke')}>
                Revoke
              </button>
            </div>
          )}
          {!apiClient.revoked_at && confirming === 'rotate' && (
            <ConfirmInline
              question={`Rotate the secret of ${id}?`}
              warning="A new secret is shown once; the old one keeps working for a day."
              confirm="Yes, rotate"
              confirmAccessibleName={`Yes, rotate the secret of ${id}`}
              busyLabel="Rotating…"
              busy={rotate.isPending}
              onConfirm={() =>
                rotate.mutate(id, {
                  onSuccess: (answer) => {
                    setConfirming(null);
                    onRotated(answer);
                  },
                })
              }
              onCancel={() => setConfirming(null)}
            />
          )}
          {!apiClient.revoked_at && confirming === 'revoke' && (
            <ConfirmInline
              question={`Revoke ${id}?`}
              warning="Its tokens stop working at once."
              confirm="Yes, revoke"
              confirmAccessibleName={`Yes, revoke ${id}`}
              busyLabel="Revoking…"
              busy={revoke.isPending}
              danger
              onConfirm={() => revoke.mutate(id, { onSuccess: () => onRevoked(id) })}
              onCancel={() => setConfirming(null)}
            />
          )}
        </td>
      </tr>
      {!apiClient.revoked_at && confirming === 'rename' && (
        <tr className="row-form">
          <td colSpan={COLUMNS}>
            <RenameClientForm
              apiClient={apiClient}
              onSaved={() => setConfirming(null)}
              onCancel={() => setConfirming(null)}
            />
          </td>
        </tr>
      )}
      {!apiClient.revoked_at && confirming === 'scopes' && (
        <tr className="row-form">
          <td colSpan={COLUMNS}>
            <EditScopesForm
              apiClient={apiClient}
              onSaved={() => {
                setConfirming(null);
                onScopesSaved(id);
              }}
              onCancel={() => setConfirming(null)}
            />
          </td>
        </tr>
      )}
      {rotate.isError && (
        <tr className="row-error">
          <td colSpan={COLUMNS}>
            <ErrorMessage title={`The secret of ${id} was not rotated.`} error={rotate.error} />
          </td>
        </tr>
      )}
      {revoke.isError && (
        <tr className="row-error">
          <td colSpan={COLUMNS}>
            <ErrorMessage title={`${id} was not revoked.`} error={revoke.error} />
          </td>
        </tr>
      )}
    </>
  );
}

/**
 * The account's API clients: name, id, scopes, created, last used (when it last got a token, to the minute), active
 * or revoked; an active one is renamed, its scopes change, its secret rotates, it can be revoked.
 */
export function ClientsTable({
  clients,
  onRevoked,
  onRotated,
  onScopesSaved,
}: {
  clients: ApiClient[];
  onRevoked: (clientId: string) => void;
  onRotated: (secret: ShownSecret) => void;
  onScopesSaved: (clientId: string) => void;
}) {
  return (
    <ScrollRegion label="API clients">
      <table className="data-table">
        <caption className="visually-hidden">API clients of the account</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Client id</th>
            <th scope="col">Scopes</th>
            <th scope="col">Created</th>
            <th scope="col">Last used</th>
            <th scope="col">State</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {clients.map((c) => (
            <ClientRow
              key={c.client_id}
              apiClient={c}
              onRevoked={onRevoked}
              onRotated={onRotated}
              onScopesSaved={onScopesSaved}
            />
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}
