import type { ReviewSettings } from '@svc/client';
import { useId, useState, type FormEvent } from 'react';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { formatDateTime } from '../../../lib/format';
import { useSaveReviewSettings } from '../api/settings';

/** The review settings (auto-submit): a checkbox, saved by an admin; shown, disabled, to other roles. */
export function ReviewSettingsForm({ settings, mayWrite }: { settings: ReviewSettings; mayWrite: boolean }) {
  const id = useId();
  const save = useSaveReviewSettings();
  const [autoSubmit, setAutoSubmit] = useState(settings.auto_submit);
  const [saved, setSaved] = useState(false);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    save.mutate({ auto_submit: autoSubmit }, { onSuccess: () => setSaved(true) });
  };

  return (
    <form className="form-stack settings-section" onSubmit={submit} aria-labelledby={`${id}-title`} noValidate>
      <h2 id={`${id}-title`}>Review</h2>
      <label className="check">
        <input
          type="checkbox"
          checked={autoSubmit}
          disabled={!mayWrite}
          aria-describedby={`${id}-hint`}
          onChange={(e) => setAutoSubmit(e.target.checked)}
        />
        <span>Submit records coded by rules for review when they arrive</span>
      </label>
      <p className="hint" id={`${id}-hint`}>
        Records that arrive in Prepare, are coded by the coding rules and then have every field the account requires on
        every line go straight to Review; records that arrive coded with no rule involved stay in Prepare. With no
        required coding, nothing moves. Last changed: {formatDateTime(settings.updated_at)}.
      </p>
      {save.isError && <ErrorMessage title="The review settings were not saved." error={save.error} />}
      {saved && (
        <p className="notice notice-success" role="status">
          The review settings are saved.
        </p>
      )}
      {mayWrite && (
        <div className="button-row">
          <button type="submit" className="button-primary" disabled={save.isPending}>
            {save.isPending ? 'Saving…' : 'Save review settings'}
          </button>
        </div>
      )}
    </form>
  );
}
