import { useId, useState, type FormEvent } from 'react';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { useSessionScopes } from '../../auth/api/session';
import { queueSearchString, type QueueView } from '../queue-params';
import { useCreateSavedView, useSavedViews } from '../api/saved-views';
import { savedFiltersOf, savedViewHref } from '../saved-view-filters';
import { SavedViewItem } from './SavedViewItem';

/** The user's saved views of the queue (each opens it so filtered and sorted), and saving the one on screen. */
export function SavedViews({ view }: { view: QueueView }) {
  const id = useId();
  const views = useSavedViews();
  const create = useCreateSavedView();
  const [name, setName] = useState('');
  const [saved, setSaved] = useState<string | null>(null);
  const [shared, setShared] = useState(false);
  // Sharing with the account is an account admin's (scope account.admin): the service checks it again.
  const mayShare = useSessionScopes().includes('account.admin');
  const query = queueSearchString(view);
  const here = query ? `/queue?${query}` : '/queue';

  const save = (event: FormEvent) => {
    event.preventDefault();
    setSaved(null);
    create.mutate(
      { name: name.trim(), filters: savedFiltersOf(view), ...(mayShare ? { shared } : {}) },
      {
        onSuccess: (created) => {
          setSaved(created.name);
          setName('');
          setShared(false);
        },
      },
    );
  };

  return (
    <section className="saved-views" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Saved views</h2>
      {views.isError && <ErrorMessage title="Your saved views could not be loaded." error={views.error} />}
      {views.data && views.data.length === 0 && (
        <p className="hint">None yet: choose filters and a sort, then save them under a name.</p>
      )}
      {views.data && views.data.length > 0 && (
        <ul className="saved-views-list">
          {views.data.map((saved) => {
            const href = savedViewHref(saved.filters, view.limit);
            return (
              <SavedViewItem key={saved.id} view={saved} href={href} current={href === here} mayShare={mayShare} />
            );
          })}
        </ul>
      )}
      <form className="inline-form" onSubmit={save} noValidate aria-label="Save this view">
        <label htmlFor={`${id}-name`}>Name of this view</label>
        <input
          id={`${id}-name`}
          value={name}
          maxLength={100}
          required
          aria-invalid={create.isError || undefined}
          aria-describedby={create.isError ? `${id}-error` : undefined}
          onChange={(e) => setName(e.target.value)}
        />
        {mayShare && (
          <label className="check">
            <input type="checkbox" checked={shared} onChange={(e) => setShared(e.target.checked)} /> Share with everyone
            in the account
          </label>
        )}
        <button type="submit" className="button-primary" disabled={create.isPending || name.trim() === ''}>
          {create.isPending ? 'Saving…' : 'Save view'}
        </button>
      </form>
      {create.isError && (
        <div id={`${id}-error`}>
          <ErrorMessage title="The view was not saved." error={create.error} />
        </div>
      )}
      {saved && (
        <p className="notice notice-success" role="status">
          Saved “{saved}”.
        </p>
      )}
    </section>
  );
}
