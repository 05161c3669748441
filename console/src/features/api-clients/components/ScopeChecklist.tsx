import { useId } from 'react';
import { SCOPE_GROUPS, type Scope } from '../scopes';

/** Every scope in order of the API reference, the ticked ones kept: what a form sends. */
export const orderedScopes = (ticked: ReadonlySet<Scope>): Scope[] =>
  SCOPE_GROUPS.flatMap((g) => g.scopes.map((s) => s.scope)).filter((s) => ticked.has(s));

/** The known scopes among `names` (a client's, as the API lists them). */
export const scopesIn = (names: readonly string[]): ReadonlySet<Scope> =>
  new Set(SCOPE_GROUPS.flatMap((g) => g.scopes.map((s) => s.scope)).filter((s) => names.includes(s)));

/** The scopes a client may be given, grouped and in words, as checkboxes (a new client's form and a change of scopes). */
export function ScopeChecklist({
  ticked,
  onChange,
  legend,
}: {
  ticked: ReadonlySet<Scope>;
  onChange: (next: ReadonlySet<Scope>) => void;
  legend: string;
}) {
  const id = useId();
  const toggle = (scope: Scope, on: boolean) => {
    const next = new Set(ticked);
    if (on) next.add(scope);
    else next.delete(scope);
    onChange(next);
  };
  return (
    <fieldset className="scope-groups" aria-describedby={`${id}-hint`}>
      <legend>{legend}</legend>
      <p className="hint" id={`${id}-hint`}>
        Give an integration only what it needs. Any one scope that an operation lists lets the client call it.
      </p>
      {SCOPE_GROUPS.map((group) => (
        <div key={group.title} className="scope-group">
          <p className="scope-group-title">{group.title}</p>
          {group.scopes.map(({ scope, words }) => (
            <label key={scope} className="check scope-check">
              <input type="checkbox" checked={ticked.has(scope)} onChange={(e) => toggle(scope, e.target.checked)} />
              <span>
                <code>{scope}</code> <span className="muted">— {words}</span>
              </span>
            </label>
          ))}
        </div>
      ))}
    </fieldset>
  );
}
