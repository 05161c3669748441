import { useEffect, useRef } from 'react';
import { shownError } from '../../../lib/errors';

/**
 * Someone else changed the record since it was read: nothing was saved; reload to see their change. It takes the
 * focus when it appears (so it is scrolled into view, wherever on the page the user was, and read out).
 */
export function VersionConflictNotice({
  error,
  detail,
  reloading,
  onReload,
}: {
  error: unknown;
  /** The service's words for this record ("The record is at version 3, not 2."), when the answer is a bulk one. */
  detail?: string;
  reloading: boolean;
  onReload: () => void;
}) {
  const shown = shownError(error);
  const notice = useRef<HTMLDivElement>(null);
  useEffect(() => {
    notice.current?.scrollIntoView({ block: 'center' });
    notice.current?.focus({ preventScroll: true });
  }, []);
  return (
    <div className="notice notice-error" role="alert" ref={notice} tabIndex={-1} aria-labelledby="version-conflict">
      <p className="notice-title" id="version-conflict">
        Someone else changed this record since you opened it.
      </p>
      <p>
        Nothing was saved. Reload the record to see its current version; your unsaved coding is kept as your draft and
        comes back over it.
      </p>
      <p className="notice-meta">
        {detail ?? shown.message}
        {shown.requestId && (
          <>
            {' '}
            Request id: <code>{shown.requestId}</code>
          </>
        )}
      </p>
      <button type="button" className="button-primary" disabled={reloading} onClick={onReload}>
        {reloading ? 'Reloading…' : 'Reload'}
      </button>
    </div>
  );
}
