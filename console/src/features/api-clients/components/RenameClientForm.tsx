import type { ApiClient } from '@svc/client';
import { useId, useState, type FormEvent } from 'react';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { useRenameApiClient } from '../api/clients';

/** A client's new name ("" for none); the service trims it and keeps at most 100 characters' worth. */
export function RenameClientForm({
  apiClient,
  onSaved,
  onCancel,
}: {
  apiClient: ApiClient;
  onSaved: () => void;
  onCancel: () => void;
}) {
  const id = useId();
  const [name, setName] = useState(apiClient.name);
  const rename = useRenameApiClient();
  const clientId = apiClient.client_id;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    rename.mutate({ clientId, name: name.trim() }, { onSuccess: onSaved });
  };
  return (
    <form onSubmit={submit} noValidate aria-label={`Name of ${clientId}`}>
      <div className="field">
        <label htmlFor={`${id}-name`}>Name</label>
        <input id={`${id}-name`} value={name} maxLength={100} onChange={(e) => setName(e.target.value)} />
      </div>
      <div className="button-row">
        <button type="submit" className="button-primary" disabled={rename.isPending}>
          {rename.isPending ? 'Saving…' : 'Save name'}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
      {rename.isError && <ErrorMessage title={`${clientId} was not renamed.`} error={rename.error} />}
    </form>
  );
}
