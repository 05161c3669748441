import type { FieldValue } from '@svc/client';
import { ScrollRegion } from '../../../components/ScrollRegion';
import { ValueRow } from './ValueRow';

interface ValuesTableProps {
  fieldId: string;
  fieldName: string;
  values: FieldValue[];
  canEdit: boolean;
  canDelete: boolean;
  onDone: (words: string) => void;
}

/** A field's values: text, ids, state, last change, and what the role may do to each. */
export function ValuesTable({ fieldId, fieldName, values, canEdit, canDelete, onDone }: ValuesTableProps) {
  const actions = canEdit || canDelete;
  const columns = actions ? 6 : 5;
  return (
    <ScrollRegion label={`Values of ${fieldName}`}>
      <table className="data-table values-table">
        <caption className="visually-hidden">Values of {fieldName}</caption>
        <thead>
          <tr>
            <th scope="col">Value</th>
            <th scope="col">Remote id</th>
            <th scope="col">Value id</th>
            <th scope="col">State</th>
            <th scope="col">Updated</th>
            {actions && (
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {values.map((value) => (
            <ValueRow
              key={value.svc_id}
              fieldId={fieldId}
              value={value}
              canEdit={canEdit}
              canDelete={canDelete}
              columns={columns}
              onDone={onDone}
            />
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}
