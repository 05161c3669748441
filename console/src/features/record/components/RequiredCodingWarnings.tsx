import type { AccountingRecord, RequiredCoding } from '@svc/client';

/**
 * The account's required fields each economic line still lacks (the service checks the same when the record
 * moves to Ready for export, and refuses with CODING_REQUIRED).
 */
export function RequiredCodingWarnings({
  singleEntry,
  required,
}: {
  singleEntry: AccountingRecord;
  required: RequiredCoding['items'];
}) {
  if (required.length === 0) return null;
  const missing = singleEntry.line_items.flatMap((line, index) => {
    const coded = new Set(line.accounting_field_values.map((c) => c.svc_field_id));
    const lacking = required.filter((f) => !coded.has(f.field_id));
    return lacking.length > 0 ? [{ number: index + 1, fields: lacking.map((f) => f.field_name) }] : [];
  });
  const names = required.map((f) => f.field_name).join(', ');
  if (missing.length === 0) {
    return <p className="notice notice-success">Every line has the coding required for approval ({names}).</p>;
  }
  return (
    <div className="notice notice-warning" role="note" aria-labelledby="required-coding-title">
      <p className="notice-title" id="required-coding-title">
        Coding required before approval
      </p>
      <ul>
        {missing.map((line) => (
          <li key={line.number}>
            Line {line.number} lacks {line.fields.join(', ')}
          </li>
        ))}
      </ul>
    </div>
  );
}
