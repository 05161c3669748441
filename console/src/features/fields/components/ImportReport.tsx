import { useEffect, useMemo } from 'react';
import { ScrollRegion } from '../../../components/ScrollRegion';
import { countOf } from '../../../lib/format';
import { writeCsv } from '../import/csv';
import { CSV_COLUMNS, type ImportBatch } from '../import/import-file';
import type { RefusedBatch } from '../import/refusals';
import type { ImportProgress } from '../import/use-value-import';

const n = (count: number) => count.toLocaleString('en-US');

/** The rows of the refused batches as a CSV of the import's columns, to fix and import again. */
function refusedCsv(batches: ImportBatch[], refused: RefusedBatch[]): string {
  const rows = refused
    .filter((r) => !r.unanswered)
    .flatMap((r) => batches[r.index]?.rows ?? [])
    .map(({ item }) => [item.value, item.remote_id ?? '', item.value_id ?? '', item.is_disabled ? 'true' : '']);
  return writeCsv(CSV_COLUMNS, rows);
}

function RefusedBatchReport({ refused }: { refused: RefusedBatch }) {
  const span = `rows ${n(refused.firstRow)}–${n(refused.lastRow)}`;
  return (
    <section className="refused-batch" aria-label={`Batch ${refused.index + 1}, ${span}`}>
      <h3>
        Batch {refused.index + 1} ({span}, {countOf(refused.count, 'row')}):{' '}
        {refused.unanswered ? 'no answer — it may or may not have been stored' : 'refused, nothing of it was stored'}
      </h3>
      <p>{refused.message}</p>
      {refused.requestId && (
        <p className="notice-meta">
          Request id: <code>{refused.requestId}</code>
        </p>
      )}
      {refused.rows.length > 0 && (
        <ScrollRegion label={`Refused rows of batch ${refused.index + 1}`}>
          <table className="data-table">
            <caption className="visually-hidden">
              Rows of batch {refused.index + 1} the service refused, and why
            </caption>
            <thead>
              <tr>
                <th scope="col">Row</th>
                <th scope="col">Why</th>
              </tr>
            </thead>
            <tbody>
              {refused.rows.map((row, i) => (
                <tr key={`${row.row}-${i}`}>
                  <td className="numeric">{n(row.row)}</td>
                  <td>{row.reason}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      )}
    </section>
  );
}

/** What an import did: the rows created, each refused batch with its rows and reasons, the rows not sent. */
export function ImportReport({ progress, batches }: { progress: ImportProgress; batches: ImportBatch[] }) {
  const refusedRows = progress.refused.filter((r) => !r.unanswered).reduce((sum, r) => sum + r.count, 0);
  const download = useMemo(
    () =>
      refusedRows > 0
        ? URL.createObjectURL(new Blob([refusedCsv(batches, progress.refused)], { type: 'text/csv' }))
        : null,
    [batches, progress.refused, refusedRows],
  );
  useEffect(() => () => (download ? URL.revokeObjectURL(download) : undefined), [download]);

  const stopped = progress.state === 'stopped';
  const unanswered = progress.refused.filter((r) => r.unanswered).length;
  const refused = progress.refused.length - unanswered;
  const summary = [
    `${stopped ? 'Import stopped' : 'Import finished'}: ${countOf(progress.created, 'value')} created of ${countOf(progress.total, 'row')}.`,
    refused > 0
      ? `${countOf(refused, 'batch was', 'batches were')} refused and stored nothing (below, row by row).`
      : '',
    unanswered > 0 ? `${countOf(unanswered, 'batch', 'batches')} got no answer and may or may not be stored.` : '',
    progress.notSent > 0 ? `${countOf(progress.notSent, 'row was', 'rows were')} not sent.` : '',
  ]
    .filter(Boolean)
    .join(' ');
  const clean = progress.refused.length === 0 && progress.notSent === 0;

  return (
    <div className="import-report">
      <p className={clean ? 'notice notice-success' : 'notice notice-warning'} role="status">
        {summary}
      </p>
      {progress.refused.map((refused) => (
        <RefusedBatchReport key={refused.index} refused={refused} />
      ))}
      {download && (
        <p>
          <a href={download} download="refused-rows.csv">
            Download the {countOf(refusedRows, 'row')} of the refused batches
          </a>{' '}
          <span className="muted">(fix them and import that file: the other batches are already stored)</span>
        </p>
      )}
    </div>
  );
}
