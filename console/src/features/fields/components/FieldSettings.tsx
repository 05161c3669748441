import type { Field } from '@svc/client';
import { useId, useState, type FormEvent } from 'react';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { useDeleteField, useUpdateField } from '../api/fields';

/** Rename, disable or enable, and delete a field (fields.write); deleting it deletes its values. */
export function FieldSettings({ field, onDeleted }: { field: Field; onDeleted: () => void }) {
  const id = useId();
  const [name, setName] = useState(field.name);
  const [confirming, setConfirming] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const update = useUpdateField(field.svc_id);
  const remove = useDeleteField(field.svc_id);
  const busy = update.isPending || remove.isPending;

  const rename = (event: FormEvent) => {
    event.preventDefault();
    update.mutate({ name }, { onSuccess: (saved) => setDone(`Renamed the field to “${saved.name}”.`) });
  };
  const toggle = () =>
    update.mutate(
      { is_disabled: !field.is_disabled },
      { onSuccess: (saved) => setDone(saved.is_disabled ? 'The field is disabled.' : 'The field is enabled.') },
    );

  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Field settings</h2>
      <form className="inline-fields" onSubmit={rename}>
        <div className="field">
          <label htmlFor={`${id}-name`}>Field name</label>
          <input id={`${id}-name`} value={name} required maxLength={255} onChange={(e) => setName(e.target.value)} />
        </div>
        <div className="field field-submit">
          <button type="submit" disabled={busy || name === field.name}>
            Rename
          </button>
        </div>
      </form>
      <div className="button-row">
        <button type="button" disabled={busy} onClick={toggle}>
          {field.is_disabled ? 'Enable field' : 'Disable field'}
        </button>
        {!confirming ? (
          <button type="button" className="button-danger" disabled={busy} onClick={() => setConfirming(true)}>
            Delete field
          </button>
        ) : (
          <span className="confirm" role="group" aria-label="Delete the field?">
            <span>Delete {field.name} and all its values?</span>
            <button
              type="button"
              className="button-danger"
              autoFocus
              disabled={busy}
              onClick={() => remove.mutate(undefined, { onSuccess: onDeleted })}
            >
              {remove.isPending ? 'Deleting…' : 'Yes, delete the field'}
            </button>
            <button type="button" disabled={busy} onClick={() => setConfirming(false)}>
              Keep it
            </button>
          </span>
        )}
      </div>
      <p className="hint">A disabled field keeps its values and codings; it is no longer offered for coding lines.</p>
      {done && (
        <p className="notice notice-success" role="status">
          {done}
        </p>
      )}
      {update.isError && <ErrorMessage title="The field was not changed." error={update.error} />}
      {remove.isError && <ErrorMessage title="The field was not deleted." error={remove.error} />}
    </section>
  );
}
