import type { SavedView } from '@svc/client';
import { useId, useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import { ConfirmInline } from '../../../components/ConfirmInline';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { useDeleteSavedView, useUpdateSavedView } from '../api/saved-views';

/**
 * One saved view: a link that opens it; for the user's own, Rename, Delete (after a confirmation) and, for an
 * account admin, Share or Stop sharing; a colleague's shared view says whose it is.
 */
export function SavedViewItem({
  view,
  href,
  current,
  mayShare,
}: {
  view: SavedView;
  href: string;
  current: boolean;
  mayShare: boolean;
}) {
  const [mode, setMode] = useState<'show' | 'rename' | 'delete'>('show');
  const [name, setName] = useState(view.name);
  const id = useId();
  const update = useUpdateSavedView();
  const remove = useDeleteSavedView();

  const rename = (event: FormEvent) => {
    event.preventDefault();
    update.mutate({ id: view.id, change: { name: name.trim() } }, { onSuccess: () => setMode('show') });
  };
  const cancel = () => {
    update.reset();
    remove.reset();
    setName(view.name);
    setMode('show');
  };

  return (
    <li>
      <Link href={href} aria-current={current ? 'page' : undefined}>
        {view.name}
      </Link>
      {!view.mine && <span className="muted">shared by {view.owner.name ?? 'a former user'}</span>}
      {view.mine && view.shared && <span className="muted">shared with the account</span>}
      {view.mine && mode === 'show' && (
        <span className="row-actions">
          <button type="button" aria-label={`Rename ${view.name}`} onClick={() => setMode('rename')}>
            Rename
          </button>
          <button type="button" aria-label={`Delete ${view.name}`} onClick={() => setMode('delete')}>
            Delete
          </button>
          {mayShare && (
            <button
              type="button"
              aria-label={`${view.shared ? 'Stop sharing' : 'Share'} ${view.name}`}
              disabled={update.isPending}
              onClick={() => update.mutate({ id: view.id, change: { shared: !view.shared } })}
            >
              {view.shared ? 'Stop sharing' : 'Share'}
            </button>
          )}
        </span>
      )}
      {mode === 'rename' && (
        <form className="inline-form" onSubmit={rename} noValidate aria-label={`Rename ${view.name}`}>
          <label htmlFor={`${id}-name`}>New name</label>
          <input
            id={`${id}-name`}
            value={name}
            maxLength={100}
            required
            autoFocus
            aria-invalid={update.isError || undefined}
            aria-describedby={update.isError ? `${id}-error` : undefined}
            onChange={(e) => setName(e.target.value)}
          />
          <button type="submit" className="button-primary" disabled={update.isPending || name.trim() === ''}>
            {update.isPending ? 'Saving…' : 'Save name'}
          </button>
          <button type="button" onClick={cancel}>
            Cancel
          </button>
          {update.isError && (
            <div id={`${id}-error`}>
              <ErrorMessage title={`${view.name} was not renamed.`} error={update.error} />
            </div>
          )}
        </form>
      )}
      {mode === 'delete' && (
        <>
          <ConfirmInline
            question={`Delete ${view.name}?`}
            warning="The view is deleted; no record changes."
            confirm="Yes, delete"
            confirmAccessibleName={`Yes, delete ${view.name}`}
            busyLabel="Deleting…"
            busy={remove.isPending}
            danger
            onConfirm={() => remove.mutate(view.id)}
            onCancel={cancel}
          />
          {remove.isError && <ErrorMessage title={`${view.name} was not deleted.`} error={remove.error} />}
        </>
      )}
    </li>
  );
}
