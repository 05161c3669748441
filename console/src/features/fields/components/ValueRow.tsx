import type { FieldValue } from '@svc/client';
import { useId, useState, type FormEvent } from 'react';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { formatDateTime } from '../../../lib/format';
import { useDeleteValue, useUpdateValue } from '../api/values';

interface ValueRowProps {
  fieldId: string;
  value: FieldValue;
  /** Rename, disable, enable (field_values.write). */
  canEdit: boolean;
  /** Delete (fields.write). */
  canDelete: boolean;
  columns: number;
  onDone: (words: string) => void;
}

/** One value: shown, renamed in place, disabled or enabled, or deleted after a confirmation on its row. */
export function ValueRow({ fieldId, value, canEdit, canDelete, columns, onDone }: ValueRowProps) {
  const id = useId();
  const [mode, setMode] = useState<'view' | 'edit' | 'delete'>('view');
  const [text, setText] = useState(value.value);
  const update = useUpdateValue(fieldId);
  const remove = useDeleteValue(fieldId);
  const busy = update.isPending || remove.isPending;
  const error = update.error ?? remove.error;
  const name = value.value;

  const save = (event: FormEvent) => {
    event.preventDefault();
    if (text === value.value) return setMode('view');
    update.mutate(
      { svc_id: value.svc_id, data: { value: text } },
      {
        onSuccess: () => {
          setMode('view');
          onDone(`Renamed “${name}” to “${text}”.`);
        },
      },
    );
  };
  const toggle = () =>
    update.mutate(
      { svc_id: value.svc_id, data: { is_disabled: !value.is_disabled } },
      { onSuccess: () => onDone(`${value.is_disabled ? 'Enabled' : 'Disabled'} “${name}”.`) },
    );
  const confirmDelete = () =>
    remove.mutate({ svc_id: value.svc_id }, { onSuccess: () => onDone(`Deleted “${name}”.`) });
  const cancel = () => {
    setMode('view');
    setText(value.value);
    update.reset();
    remove.reset();
  };

  return (
    <>
      <tr className={value.is_disabled ? 'row-disabled' : undefined}>
        <td>
          {mode === 'edit' ? (
            <form id={`${id}-form`} className="inline-form" onSubmit={save}>
              <label className="visually-hidden" htmlFor={`${id}-text`}>
                New text of “{name}”
              </label>
              <input
                id={`${id}-text`}
                value={text}
                maxLength={255}
                required
                autoFocus
                onChange={(e) => setText(e.target.value)}
                onKeyDown={(e) => e.key === 'Escape' && cancel()}
              />
            </form>
          ) : (
            name
          )}
        </td>
        <td>{value.remote_id ?? '—'}</td>
        <td>{value.value_id ?? '—'}</td>
        <td>
          {value.is_disabled ? (
            <span className="badge badge-disabled">Disabled</span>
          ) : (
            <span className="badge badge-active">Active</span>
          )}
        </td>
        <td className="nowrap">{formatDateTime(value.updated_at)}</td>
        {(canEdit || canDelete) && (
          <td className="actions-cell">
            {mode === 'view' && (
              <div className="row-actions">
                {canEdit && (
                  <>
                    <button type="button" aria-label={`Edit “${name}”`} disabled={busy} onClick={() => setMode('edit')}>
                      Edit
                    </button>
                    <button
                      type="button"
                      aria-label={`${value.is_disabled ? 'Enable' : 'Disable'} “${name}”`}
                      disabled={busy}
                      onClick={toggle}
                    >
                      {value.is_disabled ? 'Enable' : 'Disable'}
                    </button>
                  </>
                )}
                {canDelete && (
                  <button
                    type="button"
                    aria-label={`Delete “${name}”`}
                    disabled={busy}
                    onClick={() => setMode('delete')}
                  >
                    Delete
                  </button>
                )}
              </div>
            )}
            {mode === 'edit' && (
              <div className="row-actions">
                <button type="submit" form={`${id}-form`} className="button-primary" disabled={busy}>
                  {update.isPending ? 'Saving…' : 'Save'}
                </button>
                <button type="button" onClick={cancel} disabled={busy}>
                  Cancel
                </button>
              </div>
            )}
            {mode === 'delete' && (
              <div className="row-actions" role="group" aria-label={`Delete “${name}”?`}>
                <span>Delete it?</span>
                <button
                  type="button"
                  className="button-danger"
                  aria-label={`Yes, delete “${name}”`}
                  autoFocus
                  disabled={busy}
                  onClick={confirmDelete}
                >
                  {remove.isPending ? 'Deleting…' : 'Yes, delete'}
                </button>
                <button type="button" onClick={cancel} disabled={busy}>
                  Keep it
                </button>
              </div>
            )}
          </td>
        )}
      </tr>
      {error && (
        <tr className="row-error">
          <td colSpan={columns}>
            <ErrorMessage title={`“${name}” was not changed.`} error={error} />
          </td>
        </tr>
      )}
    </>
  );
}
