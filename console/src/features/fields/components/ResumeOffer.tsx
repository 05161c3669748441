import { countOf } from '../../../lib/format';
import { fromRanges, type UnfinishedImport } from '../import/resume';

/**
 * An import of this field that stopped before its end (a lost connection, a closed tab, Stop): with its file
 * chosen again, Resume goes on from the first row not applied; without it, how to.
 */
export function ResumeOffer({
  unfinished,
  fileChosen,
  firstRow,
  onResume,
  onStartOver,
}: {
  unfinished: UnfinishedImport;
  /** The same file is chosen and previewed. */
  fileChosen: boolean;
  firstRow: number | null;
  onResume: () => void;
  onStartOver: () => void;
}) {
  const stored = fromRanges(unfinished.done).size;
  const lost = unfinished.inFlight
    ? ` The answer to the last request (${countOf(unfinished.inFlight.rows.length, 'row')}) never came: it is sent again first under the same key, so its rows are never stored twice.`
    : '';
  return (
    <div className="notice notice-warning" role="region" aria-label="Unfinished import">
      <p className="notice-title">
        The import of {unfinished.fileName} stopped before its end: {stored.toLocaleString('en-US')} of{' '}
        {countOf(unfinished.total, 'row')} to send were answered.
      </p>
      <p>
        {fileChosen
          ? `Resume goes on from row ${firstRow?.toLocaleString('en-US') ?? '—'}, with the rows whose remote_id exists handled as before (${unfinished.mode === 'update' ? 'updated' : 'skipped'}).${lost}`
          : `Choose ${unfinished.fileName} again to resume from the first row not applied.`}
      </p>
      <div className="button-row">
        {fileChosen && firstRow !== null && (
          <button type="button" className="button-primary" onClick={onResume}>
            Resume from row {firstRow.toLocaleString('en-US')}
          </button>
        )}
        <button type="button" onClick={onStartOver}>
          Forget it and start over
        </button>
      </div>
    </div>
  );
}
