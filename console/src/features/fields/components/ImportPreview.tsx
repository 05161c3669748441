import { ScrollRegion } from '../../../components/ScrollRegion';
import { countOf } from '../../../lib/format';
import { countOutcomes, type PlannedRow, type RowOutcome } from '../import/plan';

const SHOWN_ROWS = 200;

export const OUTCOME_WORDS: Readonly<Record<RowOutcome, string>> = {
  create: 'Create',
  update: 'Update',
  unchanged: 'Unchanged',
  skip: 'Skip (exists)',
  invalid: 'Invalid',
};

/**
 * What the import would do, row by row, before anything is written: the counts of each outcome, and the rows that
 * are not plainly created (updated, skipped, unchanged, invalid with why), by their row of the file.
 */
export function ImportPreview({ planned }: { planned: PlannedRow[] }) {
  const counts = countOutcomes(planned);
  const listed = planned.filter((p) => p.outcome !== 'create');
  return (
    <div className="import-preview">
      <p role="status" aria-label="Import preview">
        Preview: {countOf(counts.create, 'row')} to create, {countOf(counts.update, 'row')} to update by remote_id,{' '}
        {counts.unchanged.toLocaleString('en-US')} unchanged, {counts.skip.toLocaleString('en-US')} skipped (they
        exist), {counts.invalid.toLocaleString('en-US')} invalid. Nothing is written until you import.
      </p>
      {listed.length > 0 && (
        <ScrollRegion label="Rows the import does not simply create">
          <table className="data-table">
            <caption>Rows the import does not simply create</caption>
            <thead>
              <tr>
                <th scope="col">Row</th>
                <th scope="col">Outcome</th>
                <th scope="col">Value</th>
                <th scope="col">Why</th>
              </tr>
            </thead>
            <tbody>
              {listed.slice(0, SHOWN_ROWS).map((p) => (
                <tr key={p.row}>
                  <td className="numeric">{p.row.toLocaleString('en-US')}</td>
                  <td>{OUTCOME_WORDS[p.outcome]}</td>
                  <td>
                    {p.outcome === 'update' && p.existing
                      ? `${p.existing.value} → ${p.item?.value ?? ''}`
                      : (p.item?.value ?? '')}
                  </td>
                  <td>{p.reason ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      )}
      {listed.length > SHOWN_ROWS && <p>…and {countOf(listed.length - SHOWN_ROWS, 'more row')}.</p>}
    </div>
  );
}
