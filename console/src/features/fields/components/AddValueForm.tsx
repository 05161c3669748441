import { useId, useState, type FormEvent } from 'react';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { useCreateValue } from '../api/values';

/** Adds one value; the ids are optional, and unique within the field when given (the service says so if not). */
export function AddValueForm({ fieldId, fieldName }: { fieldId: string; fieldName: string }) {
  const id = useId();
  const [value, setValue] = useState('');
  const [remoteId, setRemoteId] = useState('');
  const [valueId, setValueId] = useState('');
  const [added, setAdded] = useState<string | null>(null);
  const create = useCreateValue(fieldId);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setAdded(null);
    create.mutate(
      {
        value,
        ...(remoteId.trim() ? { remote_id: remoteId.trim() } : {}),
        ...(valueId.trim() ? { value_id: valueId.trim() } : {}),
      },
      {
        onSuccess: (created) => {
          setAdded(`Added “${created?.value ?? value}” to ${fieldName}.`);
          setValue('');
          setRemoteId('');
          setValueId('');
        },
      },
    );
  };

  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Add a value</h2>
      <form className="inline-fields" onSubmit={submit}>
        <div className="field">
          <label htmlFor={`${id}-value`}>Value</label>
          <input id={`${id}-value`} value={value} required maxLength={255} onChange={(e) => setValue(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor={`${id}-remote`}>Remote id (optional)</label>
          <input id={`${id}-remote`} value={remoteId} maxLength={255} onChange={(e) => setRemoteId(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor={`${id}-vid`}>Value id (optional)</label>
          <input id={`${id}-vid`} value={valueId} maxLength={255} onChange={(e) => setValueId(e.target.value)} />
        </div>
        <div className="field field-submit">
          <button type="submit" className="button-primary" disabled={create.isPending}>
            {create.isPending ? 'Adding…' : 'Add value'}
          </button>
        </div>
      </form>
      {added && (
        <p className="notice notice-success" role="status">
          {added}
        </p>
      )}
      {create.isError && <ErrorMessage title="The value was not added." error={create.error} />}
    </section>
  );
}
