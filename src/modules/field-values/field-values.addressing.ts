import { type AppError, errors, type ValidationProblem } from '../../errors.js';
import type { AddressLists, AddressRow } from './field-values.repository.js';
import { ADDRESS_KEYS, type Address, type AddressKey } from './field-values.schemas.js';

/**
 * Update and delete items name their value by exactly one of svc_id, remote_id, value_id (the schema
 * guarantees exactly one). These helpers turn a batch of addresses into svc_ids, or into the errors of
 * CONVENTIONS.md: an unknown address → 404 naming the items; one value addressed twice → 400.
 */
export interface ItemAddress {
  key: AddressKey;
  id: string;
}

export function addressOf(item: Address): ItemAddress {
  const record = item as Record<string, unknown>;
  for (const key of ADDRESS_KEYS) {
    const id = record[key];
    if (typeof id === 'string') return { key, id };
  }
  throw errors.internal(); // unreachable: the schema requires exactly one address
}

/** The distinct identifiers of each kind, for one IN list per kind. */
export function addressLists(addresses: readonly ItemAddress[]): AddressLists {
  const sets = { svc_id: new Set<string>(), remote_id: new Set<string>(), value_id: new Set<string>() };
  for (const a of addresses) sets[a.key].add(a.id);
  return { svcIds: [...sets.svc_id], remoteIds: [...sets.remote_id], valueIds: [...sets.value_id] };
}

function repeated(path: (i: number) => string, firsts: Map<string, number>, token: string, index: number) {
  const first = firsts.get(token);
  if (first === undefined) {
    firsts.set(token, index);
    return null;
  }
  return { path: path(index), message: `addresses the same field value as ${path(first)}` };
}

function duplicatesError(problems: ValidationProblem[]): AppError {
  return errors.invalidRequest(problems, 'The request addresses the same field value more than once.');
}

const itemPath = (i: number) => `/items/${i}`;

/** The same address twice in one batch: found before any query. */
export function rejectRepeatedAddresses(addresses: readonly ItemAddress[]): void {
  const firsts = new Map<string, number>();
  const problems = addresses
    .map((a, i) => repeated(itemPath, firsts, `${a.key}\u0000${a.id}`, i))
    .filter((p): p is ValidationProblem => p !== null);
  if (problems.length > 0) throw duplicatesError(problems);
}

/**
 * The svc_id of each item, in item order, from the stored rows that the batch's addresses matched.
 * Throws 404 listing every unknown address (nothing may change then), or 400 when two different
 * addresses name the same value.
 */
export function resolveAddresses(
  fieldId: string,
  addresses: readonly ItemAddress[],
  rows: readonly AddressRow[],
): string[] {
  const index = {
    svc_id: new Map<string, string>(),
    remote_id: new Map<string, string>(),
    value_id: new Map<string, string>(),
  };
  for (const row of rows) {
    index.svc_id.set(row.svc_id, row.svc_id);
    if (row.remote_id !== null) index.remote_id.set(row.remote_id, row.svc_id);
    if (row.value_id !== null) index.value_id.set(row.value_id, row.svc_id);
  }
  const found = addresses.map((a) => index[a.key].get(a.id));
  const missing = addresses.flatMap((a, i) => (found[i] === undefined ? [{ index: i, [a.key]: a.id }] : []));
  const svcIds = found.filter((id) => id !== undefined);
  if (missing.length > 0 || svcIds.length !== addresses.length) throw notFound(fieldId, missing);

  const firsts = new Map<string, number>();
  const problems = svcIds
    .map((svcId, i) => repeated(itemPath, firsts, svcId, i))
    .filter((p): p is ValidationProblem => p !== null);
  if (problems.length > 0) throw duplicatesError(problems);
  return svcIds;
}

/** 404 naming each item whose address matches no value of the field; the batch changes nothing. */
export function notFound(fieldId: string, missing: Record<string, unknown>[]): AppError {
  return errors.addressedValuesNotFound(fieldId, missing);
}
