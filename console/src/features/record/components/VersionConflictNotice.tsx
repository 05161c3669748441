import { useId, useLayoutEffect, useRef } from 'react';
import { shownError } from '../../../lib/errors';
import type { ConflictChanges } from '../conflict-words';

/**
 * Someone else changed the record since it was read: nothing was saved. It says what changed and who changed it
 * (once read), and offers the two ways on: keep mine (the current version with the user's unsaved coding over it,
 * so that the next save is of the current version) or reload (the current version, the unsaved coding dropped).
 * It takes the focus when it appears (so it is scrolled into view, wherever on the page the user was, and read out).
 */
export function VersionConflictNotice({
  error,
  detail,
  changes,
  reloading,
  onKeepMine,
  onDiscardMine,
}: {
  error: unknown;
  /** The service's words for this record ("The record is at version 3, not 2."), when the answer is a bulk one. */
  detail?: string;
  /** What changed since the version edited; undefined while it is read (or when it could not be). */
  changes: ConflictChanges | undefined;
  reloading: boolean;
  onKeepMine: () => void;
  onDiscardMine: () => void;
}) {
  const shown = shownError(error);
  const notice = useRef<HTMLDivElement>(null);
  const id = useId();
  useLayoutEffect(() => {
    notice.current?.scrollIntoView({ block: 'center' });
    notice.current?.focus({ preventScroll: true });
  }, []);
  return (
    <div className="notice notice-error" role="alert" ref={notice} tabIndex={-1} aria-labelledby="version-conflict">
      <p className="notice-title" id="version-conflict">
        Someone else changed this record since you opened it.
      </p>
      {changes ? (
        <>
          <p>
            Version {changes.from} (yours) → version {changes.to} (now)
            {changes.who.length > 0 && <>, changed by {changes.who.join(', ')}</>}.
          </p>
          {changes.what.length > 0 ? (
            <ul aria-label="What changed">
              {changes.what.map((line) => (
                <li key={line}>{line}</li>
              ))}
            </ul>
          ) : (
            <p>Nothing shown on this page differs (its version moved on).</p>
          )}
        </>
      ) : (
        <p className="muted">Reading what changed…</p>
      )}
      <p>Nothing was saved.</p>
      <p className="notice-meta">
        {detail ?? shown.message}
        {shown.requestId && (
          <>
            {' '}
            Request id: <code>{shown.requestId}</code>
          </>
        )}
      </p>
      <p className="hint" id={`${id}-keep`}>
        Keep mine: the current version, with your unsaved coding put back over it, to save again. Reload: the current
        version as it is, your unsaved coding dropped.
      </p>
      <div className="button-row">
        <button
          type="button"
          className="button-primary"
          disabled={reloading}
          onClick={onKeepMine}
          aria-describedby={`${id}-keep`}
        >
          {reloading ? 'Reloading…' : 'Keep mine'}
        </button>
        <button type="button" disabled={reloading} onClick={onDiscardMine} aria-describedby={`${id}-keep`}>
          Reload (discard mine)
        </button>
      </div>
    </div>
  );
}
