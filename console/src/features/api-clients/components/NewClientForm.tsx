import type { ApiClientCredentials } from '@svc/client';
import { useId, useState, type FormEvent } from 'react';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { useCreateApiClient } from '../api/clients';
import { SCOPE_GROUPS, type Scope } from '../scopes';

/** Creates an API client with the scopes ticked; the answer (with the secret) goes to `onCreated`, once. */
export function NewClientForm({ onCreated }: { onCreated: (credentials: ApiClientCredentials) => void }) {
  const id = useId();
  const [scopes, setScopes] = useState<ReadonlySet<Scope>>(new Set());
  const [missing, setMissing] = useState(false);
  const create = useCreateApiClient();

  const toggle = (scope: Scope, on: boolean) =>
    setScopes((current) => {
      const next = new Set(current);
      if (on) next.add(scope);
      else next.delete(scope);
      return next;
    });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (scopes.size === 0) return setMissing(true);
    setMissing(false);
    // In the API's order of scopes, whatever the order they were ticked in.
    const ordered = SCOPE_GROUPS.flatMap((g) => g.scopes.map((s) => s.scope)).filter((s) => scopes.has(s));
    create.mutate(
      { scopes: ordered },
      {
        onSuccess: (credentials) => {
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
        <fieldset className="scope-groups" aria-describedby={`${id}-hint`}>
          <legend>Scopes: what the client may do</legend>
          <p className="hint" id={`${id}-hint`}>
            Give an integration only what it needs. Any one scope that an operation lists lets the client call it.
          </p>
          {SCOPE_GROUPS.map((group) => (
            <div key={group.title} className="scope-group">
              <p className="scope-group-title">{group.title}</p>
              {group.scopes.map(({ scope, words }) => (
                <label key={scope} className="check scope-check">
                  <input
                    type="checkbox"
                    checked={scopes.has(scope)}
                    onChange={(e) => toggle(scope, e.target.checked)}
                  />
                  <span>
                    <code>{scope}</code> <span className="muted">— {words}</span>
                  </span>
                </label>
              ))}
            </div>
          ))}
        </fieldset>
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
