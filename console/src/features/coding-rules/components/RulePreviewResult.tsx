import type { CodingRulePreview, Field } from '@svc/client';
import { Link } from 'wouter';
import { ScrollRegion } from '../../../components/ScrollRegion';
import { plural } from '../../../lib/format';
import { fieldNameOf } from './RuleActionsText';

interface Row {
  key: string;
  recordId: string;
  lineId: string;
  what: string;
  before: string;
  after: string;
}

function rowsOf(preview: CodingRulePreview, fields: readonly Field[] | undefined): Row[] {
  return preview.sample.flatMap((record) =>
    record.lines.flatMap((line) => [
      ...line.field_values.map((v) => ({
        key: `${record.accounting_record_id}-${line.line_id}-${v.field_id}`,
        recordId: record.accounting_record_id,
        lineId: line.line_id,
        what: fieldNameOf(fields, v.field_id),
        before: v.before?.value ?? '—',
        after: v.after?.value ?? '—',
      })),
      ...(line.memo
        ? [
            {
              key: `${record.accounting_record_id}-${line.line_id}-memo`,
              recordId: record.accounting_record_id,
              lineId: line.line_id,
              what: 'Memo',
              before: line.memo.before ?? '—',
              after: line.memo.after,
            },
          ]
        : []),
    ]),
  );
}

/** What a rule would change now, before it is saved: how many records, and a sample line by line. */
export function RulePreviewResult({
  preview,
  fields,
}: {
  preview: CodingRulePreview;
  fields: readonly Field[] | undefined;
}) {
  const rows = rowsOf(preview, fields);
  return (
    <section className="card" aria-labelledby="rule-preview-title">
      <h2 id="rule-preview-title">Preview</h2>
      <p role="status">
        {preview.records_changed === 0
          ? 'The rule would change no record under review now.'
          : `The rule would change ${plural(preview.records_changed, 'record')} under review now.`}
        {preview.sample.length > 0 && preview.sample.length < preview.records_changed
          ? ` A sample of ${preview.sample.length}:`
          : ''}
      </p>
      {rows.length > 0 && (
        <ScrollRegion label="Preview sample">
          <table className="data-table">
            <caption className="visually-hidden">What the rule would change, line by line</caption>
            <thead>
              <tr>
                <th scope="col">Record</th>
                <th scope="col">Line</th>
                <th scope="col">Field</th>
                <th scope="col">Before</th>
                <th scope="col">After</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.key}>
                  <td>
                    <Link href={`/records/${encodeURIComponent(row.recordId)}`}>
                      <code>{row.recordId}</code>
                    </Link>
                  </td>
                  <td>
                    <code>{row.lineId}</code>
                  </td>
                  <td>{row.what}</td>
                  <td>{row.before}</td>
                  <td>{row.after}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      )}
    </section>
  );
}
