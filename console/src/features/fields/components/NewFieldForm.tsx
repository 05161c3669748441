import type { Field } from '@svc/client';
import { useId, useState, type FormEvent } from 'react';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { useCreateField } from '../api/fields';
import { FIELD_GROUP_LABELS, FIELD_GROUPS, isFieldGroup, type FieldGroup } from '../labels';

/** Creates a custom field (fields.write). */
export function NewFieldForm({ onCreated }: { onCreated: (field: Field) => void }) {
  const id = useId();
  const [name, setName] = useState('');
  const [group, setGroup] = useState<FieldGroup>('ACCOUNTING');
  const [remoteId, setRemoteId] = useState('');
  const create = useCreateField();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(
      { name, group, ...(remoteId.trim() ? { remote_id: remoteId.trim() } : {}) },
      { onSuccess: (field) => onCreated(field) },
    );
  };

  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>New field</h2>
      <form className="inline-fields" onSubmit={submit}>
        <div className="field">
          <label htmlFor={`${id}-name`}>Field name</label>
          <input id={`${id}-name`} value={name} required maxLength={255} onChange={(e) => setName(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor={`${id}-group`}>Group</label>
          <select
            id={`${id}-group`}
            value={group}
            onChange={(e) => isFieldGroup(e.target.value) && setGroup(e.target.value)}
          >
            {FIELD_GROUPS.map((g) => (
              <option key={g} value={g}>
                {FIELD_GROUP_LABELS[g]}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${id}-remote`}>Remote id (optional)</label>
          <input id={`${id}-remote`} value={remoteId} maxLength={255} onChange={(e) => setRemoteId(e.target.value)} />
        </div>
        <div className="field field-submit">
          <button type="submit" className="button-primary" disabled={create.isPending}>
            {create.isPending ? 'Creating…' : 'Create field'}
          </button>
        </div>
      </form>
      {create.isError && <ErrorMessage title="The field was not created." error={create.error} />}
    </section>
  );
}
