import type { Field } from '@svc/client';
import { Link } from 'wouter';
import { ScrollRegion } from '../../../components/ScrollRegion';
import { formatDateTime } from '../../../lib/format';
import { FIELD_GROUP_LABELS } from '../labels';

/** The account's custom fields; each opens its values. */
export function FieldsTable({ fields }: { fields: Field[] }) {
  return (
    <ScrollRegion label="Fields">
      <table className="data-table">
        <caption className="visually-hidden">Custom fields of the account</caption>
        <thead>
          <tr>
            <th scope="col">Field</th>
            <th scope="col">Group</th>
            <th scope="col">Remote id</th>
            <th scope="col">State</th>
            <th scope="col">Updated</th>
          </tr>
        </thead>
        <tbody>
          {fields.map((field) => (
            <tr key={field.svc_id} className={field.is_disabled ? 'row-disabled' : undefined}>
              <td>
                <Link href={`/fields/${encodeURIComponent(field.svc_id)}`}>{field.name}</Link>
              </td>
              <td>{FIELD_GROUP_LABELS[field.group]}</td>
              <td>{field.remote_id ?? '—'}</td>
              <td>
                {field.is_disabled ? (
                  <span className="badge badge-disabled">Disabled</span>
                ) : (
                  <span className="badge badge-active">Active</span>
                )}
              </td>
              <td className="nowrap">{formatDateTime(field.updated_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}
