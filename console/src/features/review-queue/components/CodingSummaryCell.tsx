import type { AccountingRecord } from '@svc/client';
import { plural } from '../../../lib/format';
import { codingSummary } from '../coding-summary';

/** A queue row's coding: each field's value, "mixed" where the lines differ, and how many lines lack coding. */
export function CodingSummaryCell({ record }: { record: AccountingRecord }) {
  const summary = codingSummary(record);
  if (summary.fields.length === 0) return <span className="muted">Not coded</span>;
  return (
    <ul className="coding-summary">
      {summary.lines > 1 && <li className="muted">{plural(summary.lines, 'line')}</li>}
      {summary.fields.map((f) => (
        <li key={f.field}>
          {f.field}: {f.value ?? <em>mixed</em>}
        </li>
      ))}
      {summary.uncoded > 0 && (
        <li className="muted">{`${summary.uncoded} of ${plural(summary.lines, 'line')} not coded`}</li>
      )}
    </ul>
  );
}
