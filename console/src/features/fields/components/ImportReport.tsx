import { useEffect, useMemo } from 'react';
import { ScrollRegion } from '../../../components/ScrollRegion';
import { countOf } from '../../../lib/format';
import { writeCsv } from '../import/csv';
import { CSV_COLUMNS } from '../import/import-file';
import type { ImportProgress, RowResult, RowResultKind } from '../import/use-value-import';

const RESULT_WORDS: Readonly<Record<RowResultKind, string>> = {
  created: 'Created',
  updated: 'Updated',
  unchanged: 'Unchanged',
  skipped: 'Skipped (exists)',
  invalid: 'Invalid',
  refused: 'Refused',
  not_sent: 'Not sent',
  unknown: 'No answer: may or may not be stored',
  before_resume: 'Answered before the import was resumed',
};

/** Rows that were not stored for certain: to fix and import again. */
const NOT_STORED: ReadonlySet<RowResultKind> = new Set(['invalid', 'refused', 'not_sent']);

/** The rows not stored, as a CSV of the import's columns (rows the file could not read are left out). */
function notStoredCsv(results: RowResult[]): string {
  const rows = results
    .filter((r) => NOT_STORED.has(r.result) && r.item)
    .map(({ item }) => [item!.value, item!.remote_id ?? '', item!.value_id ?? '', item!.is_disabled ? 'true' : '']);
  return writeCsv(CSV_COLUMNS, rows);
}

/** What an import did, row by row: a summary of each result, and every row not created or updated with why. */
export function ImportReport({ progress }: { progress: ImportProgress }) {
  const count = (kind: RowResultKind) => progress.results.filter((r) => r.result === kind).length;
  const problems = progress.results.filter(
    (r) => r.result !== 'created' && r.result !== 'updated' && r.result !== 'before_resume',
  );
  const retry = progress.results.filter((r) => NOT_STORED.has(r.result) && r.item).length;
  const download = useMemo(
    () => (retry > 0 ? URL.createObjectURL(new Blob([notStoredCsv(progress.results)], { type: 'text/csv' })) : null),
    [progress.results, retry],
  );
  useEffect(() => () => (download ? URL.revokeObjectURL(download) : undefined), [download]);

  const summary = [
    `${progress.state === 'stopped' ? 'Import stopped' : 'Import finished'}: ${countOf(count('created'), 'value')} created, ${count('updated').toLocaleString('en-US')} updated`,
    `${count('unchanged').toLocaleString('en-US')} unchanged, ${count('skipped').toLocaleString('en-US')} skipped`,
    `${count('invalid').toLocaleString('en-US')} invalid, ${count('refused').toLocaleString('en-US')} refused`,
    count('not_sent') > 0 ? `${count('not_sent').toLocaleString('en-US')} not sent` : '',
    count('unknown') > 0 ? `${count('unknown').toLocaleString('en-US')} without an answer` : '',
    count('before_resume') > 0 ? `${count('before_resume').toLocaleString('en-US')} answered before resuming` : '',
  ]
    .filter(Boolean)
    .join(', ');
  const clean = count('invalid') + count('refused') + count('not_sent') + count('unknown') === 0;

  return (
    <div className="import-report">
      <p className={clean ? 'notice notice-success' : 'notice notice-warning'} role="status">
        {summary}.
      </p>
      {progress.requestId && !clean && (
        <p className="notice-meta">
          Request id of the last refusal: <code>{progress.requestId}</code>
        </p>
      )}
      {problems.length > 0 && (
        <ScrollRegion label="Rows not created or updated">
          <table className="data-table">
            <caption>Rows not created or updated, and why</caption>
            <thead>
              <tr>
                <th scope="col">Row</th>
                <th scope="col">Result</th>
                <th scope="col">Why</th>
              </tr>
            </thead>
            <tbody>
              {problems.map((r) => (
                <tr key={r.row}>
                  <td className="numeric">{r.row.toLocaleString('en-US')}</td>
                  <td>{RESULT_WORDS[r.result]}</td>
                  <td>{r.reason ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      )}
      {download && (
        <p>
          <a href={download} download="rows-not-imported.csv">
            Download the {countOf(retry, 'row')} not imported
          </a>{' '}
          <span className="muted">(fix them and import that file: the other rows are stored)</span>
        </p>
      )}
    </div>
  );
}
