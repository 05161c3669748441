import type { RecordDraft } from '@svc/client';
import type { DraftStatus } from '../api/drafts';
import { formatDateTime } from '../../../lib/format';

/** The page opened on the user's unsaved coding, kept on the server: from when, and whether the record moved on. */
export function DraftRestoredNotice({ draft, version }: { draft: RecordDraft; version: number }) {
  const changed = draft.version < version;
  return (
    <div className={changed ? 'notice notice-warning' : 'notice notice-info'} role="status">
      <p className="notice-title">Draft restored from {formatDateTime(draft.updated_at)} — Save or Discard.</p>
      {changed ? (
        <p>
          The record changed since this draft was made (version {draft.version} then, version {version} now): check the
          coding below before you save it.
        </p>
      ) : (
        <p>These are your unsaved changes to the coding, as you left them.</p>
      )}
    </div>
  );
}

/** Whether the unsaved changes are kept as the user's draft on the server, in words (a polite live region). */
export function DraftStatusWords({ status }: { status: DraftStatus | undefined }) {
  let words = '';
  if (status?.kind === 'kept') words = `Kept as your draft (${formatDateTime(status.at)}).`;
  else if (status?.kind === 'failed') words = `Your draft could not be kept: ${status.message}`;
  return (
    <span className={status?.kind === 'failed' ? 'field-error' : 'muted'} role="status">
      {words}
    </span>
  );
}
