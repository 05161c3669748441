import type { ApiClient } from '@svc/client';
import { useState, type FormEvent } from 'react';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { useUpdateApiClientScopes } from '../api/clients';
import type { Scope } from '../scopes';
import { orderedScopes, ScopeChecklist, scopesIn } from './ScopeChecklist';

/**
 * A change of a client's scopes, started from its current ones. The service decides what a change may do (a caller
 * adds only scopes it holds); the form says what a change does to tokens already issued.
 */
export function EditScopesForm({
  apiClient,
  onSaved,
  onCancel,
}: {
  apiClient: ApiClient;
  onSaved: () => void;
  onCancel: () => void;
}) {
  const [ticked, setTicked] = useState<ReadonlySet<Scope>>(() => scopesIn(apiClient.scopes));
  const [missing, setMissing] = useState(false);
  const update = useUpdateApiClientScopes();
  const id = apiClient.client_id;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (ticked.size === 0) return setMissing(true);
    setMissing(false);
    update.mutate({ clientId: id, scopes: orderedScopes(ticked) }, { onSuccess: onSaved });
  };
  return (
    <form onSubmit={submit} noValidate aria-label={`Scopes of ${id}`}>
      <ScopeChecklist ticked={ticked} onChange={setTicked} legend={`Scopes of ${id}`} />
      <p className="hint">
        A scope taken away stops working at once for the client&rsquo;s current tokens; a scope added reaches the tokens
        it gets from now on.
      </p>
      {missing && (
        <p className="field-error" role="alert">
          Tick at least one scope.
        </p>
      )}
      <div className="button-row">
        <button type="submit" className="button-primary" disabled={update.isPending}>
          {update.isPending ? 'Saving…' : 'Save scopes'}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
      {update.isError && <ErrorMessage title={`The scopes of ${id} were not changed.`} error={update.error} />}
    </form>
  );
}
