import type { AccountUserSettings } from '@svc/client';
import { useId, useState, type FormEvent } from 'react';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { useUpdateAccountUserSettings } from '../api/users';

/** The account's requirement of two-step sign-in: a checkbox and Save (the service ends the sessions it must). */
export function RequireMfaSetting({ settings }: { settings: AccountUserSettings }) {
  const id = useId();
  const update = useUpdateAccountUserSettings();
  const [required, setRequired] = useState(settings.mfa_required);
  const [saved, setSaved] = useState(false);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    update.mutate({ mfa_required: required }, { onSuccess: () => setSaved(true) });
  };

  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Two-step sign-in for everyone</h2>
      <form onSubmit={submit}>
        <label className="check">
          <input
            type="checkbox"
            checked={required}
            aria-describedby={`${id}-hint`}
            onChange={(e) => {
              setRequired(e.target.checked);
              setSaved(false);
            }}
          />
          <span>Require two-step sign-in for every user of this account</span>
        </label>
        <p className="hint" id={`${id}-hint`}>
          Users who have not set it up are signed out at once, and set it up at their next sign-in before anything else.
          Set it up for yourself first.
        </p>
        {update.isError && <ErrorMessage title="The setting was not saved." error={update.error} />}
        <div className="button-row">
          <button
            type="submit"
            className="button-primary"
            disabled={update.isPending || required === settings.mfa_required}
          >
            {update.isPending ? 'Saving…' : 'Save'}
          </button>
        </div>
        <p role="status">
          {saved &&
            (settings.mfa_required
              ? 'Saved: two-step sign-in is required.'
              : 'Saved: two-step sign-in is each user’s choice.')}
        </p>
      </form>
    </section>
  );
}
