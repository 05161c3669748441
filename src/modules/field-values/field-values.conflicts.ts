import type { AddressRow } from './field-values.repository.js';
import type { FieldValueCreate } from './field-values.schemas.js';

/**
 * A create item whose remote_id or value_id is already taken within the field: by a stored value
 * (`with.svc_id`) or by an earlier item of the same batch (`with.index`).
 */
export interface Conflict {
  index: number;
  field: 'remote_id' | 'value_id';
  value: string;
  with: { svc_id: string } | { index: number };
}

const UNIQUE = ['remote_id', 'value_id'] as const;

const distinct = (items: FieldValueCreate[], field: (typeof UNIQUE)[number]) => [
  ...new Set(items.flatMap((item) => (typeof item[field] === 'string' ? [item[field]] : []))),
];

/** Every clash of the batch, in item order; one query for the stored ones. */
export async function findConflicts(
  items: FieldValueCreate[],
  lookup: (lists: { remoteIds: string[]; valueIds: string[] }) => Promise<AddressRow[]>,
): Promise<Conflict[]> {
  const remoteIds = distinct(items, 'remote_id');
  const valueIds = distinct(items, 'value_id');
  const stored = remoteIds.length + valueIds.length > 0 ? await lookup({ remoteIds, valueIds }) : [];
  const taken = { remote_id: new Map<string, string>(), value_id: new Map<string, string>() };
  for (const row of stored) {
    if (row.remote_id !== null) taken.remote_id.set(row.remote_id, row.svc_id);
    if (row.value_id !== null) taken.value_id.set(row.value_id, row.svc_id);
  }

  const conflicts: Conflict[] = [];
  for (const field of UNIQUE) {
    const firsts = new Map<string, number>();
    items.forEach((item, index) => {
      const value = item[field];
      if (typeof value !== 'string') return;
      const svcId = taken[field].get(value);
      const first = firsts.get(value);
      if (svcId !== undefined) conflicts.push({ index, field, value, with: { svc_id: svcId } });
      else if (first !== undefined) conflicts.push({ index, field, value, with: { index: first } });
      else firsts.set(value, index);
    });
  }
  // Item order, remote_id before value_id within an item.
  return conflicts.sort((a, b) => a.index - b.index || (a.field < b.field ? -1 : a.field > b.field ? 1 : 0));
}
