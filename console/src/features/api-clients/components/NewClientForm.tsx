import type { ApiClientCredentials } from '@svc/client';
import { useId, useState, type FormEvent } from 'react';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { useCreateApiClient } from '../api/clients';
import type { Scope } from '../scopes';
import { orderedScopes, ScopeChecklist } from './ScopeChecklist';

/** Creates an API client with the scopes ticked; the answer (with the secret) goes to `onCreated`, once. */
export function NewClientForm({ onCreated }: { onCreated: (credentials: ApiClientCredentials) => void }) {
  const id = useId();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<ReadonlySet<Scope>>(new Set());
  const [missing, setMissing] = useState(false);
  const create = useCreateApiClient();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (scopes.size === 0) return setMissing(true);
    setMissing(false);
    // In the API's order of scopes, whatever the order they were ticked in.
    create.mutate(
      { scopes: orderedScopes(scopes), ...(name.trim() ? { name: name.trim() } : {}) },
      {
        onSuccess: (credentials) => {
          setName('');
          setScopes(new Set());
          onCreated(credentials);
        },
      },
    );
  };

  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>New API client</h2>
      <form onSubmit={submit} noValidate>
        <div className="field">
          <label htmlFor={`${id}-name`}>Name (optional)</label>
          <input
            id={`${id}-name`}
            value={name}
            maxLength={100}
            placeholder="ERP nightly sync"
            onChange={(e) => setName(e.target.value)}
          />
        </div>
        <ScopeChecklist ticked={scopes} onChange={setScopes} legend="Scopes: what the client may do" />
        {missing && (
          <p className="field-error" role="alert">
            Tick at least one scope.
          </p>
        )}
        <div className="button-row">
          <button type="submit" className="button-primary" disabled={create.isPending}>
            {create.isPending ? 'Creating…' : 'Create API client'}
          </button>
        </div>
      </form>
      {create.isError && <ErrorMessage title="The API client was not created." error={create.error} />}
    </section>
  );
}
