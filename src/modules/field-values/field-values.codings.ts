import type { Executor } from '../../db/database.js';
import { errors } from '../../errors.js';
import type { Tenant } from '../auth/auth.service.js';
import { fieldsService } from '../fields/fields.service.js';
import { fieldValuesRepository as repo } from './field-values.repository.js';

/** What a record's line shows of a value it is coded with, and whether the value (or its field) is disabled. */
export interface Coding {
  field_id: string;
  field_name: string;
  field_remote_id: string | null;
  svc_id: string;
  value: string;
  remote_id: string | null;
  is_disabled: boolean;
  field_is_disabled: boolean;
}

/** A value named by its field and svc_id. */
export interface ValueRef {
  field_id: string;
  svc_id: string;
}

/** A value named either by its field's and its own svc_id, or by its field's and its own remote_id. */
export type CodingRef = ValueRef | { field_remote_id: string; remote_id: string };

/** What a reference names: the coding, or why none (unknown or deleted; a remote id that two fields share). */
export type CodingLookup = { coding: Coding } | { problem: 'NOT_FOUND' | 'AMBIGUOUS_FIELD' };

const key = (a: string, b: string) => `${a}\u0000${b}`;

/** The codings of field values, for the accounting module's lines (it never reads the values' tables itself). */
export const codingsService = {
  /** What each reference names, in order; whether disabled values may be used is the caller's rule. */
  async lookupCodings(ex: Executor, tenant: Tenant, refs: readonly CodingRef[]): Promise<CodingLookup[]> {
    const bySvc = refs.filter((r): r is ValueRef => 'svc_id' in r);
    const byRemote = refs.filter((r): r is { field_remote_id: string; remote_id: string } => 'remote_id' in r);

    const remoteFields = byRemote.length
      ? await fieldsService.findByRemoteIds(ex, tenant, [...new Set(byRemote.map((r) => r.field_remote_id))])
      : [];
    const fieldsByRemote = new Map<string, typeof remoteFields>();
    for (const f of remoteFields) fieldsByRemote.set(f.remote_id!, [...(fieldsByRemote.get(f.remote_id!) ?? []), f]);

    const fieldIds = [...new Set([...bySvc.map((r) => r.field_id), ...remoteFields.map((f) => f.svc_id)])];
    const fields = new Map((await fieldsService.findMany(ex, tenant, fieldIds)).map((f) => [f.svc_id, f]));
    const values = bySvc.length
      ? await repo.findValues(
          ex,
          tenant.accountId,
          [...new Set(bySvc.map((r) => r.field_id))],
          [...new Set(bySvc.map((r) => r.svc_id))],
        )
      : [];
    const remoteValues = byRemote.length
      ? await repo.findByRemoteIds(
          ex,
          tenant.accountId,
          [...new Set(remoteFields.map((f) => f.svc_id))],
          [...new Set(byRemote.map((r) => r.remote_id))],
        )
      : [];
    const valueBySvc = new Map(values.map((v) => [key(v.field_id, v.svc_id), v]));
    const valueByRemote = new Map(remoteValues.map((v) => [key(v.field_id, v.remote_id ?? ''), v]));

    return refs.map((ref): CodingLookup => {
      let fieldId: string;
      let value;
      if ('svc_id' in ref) {
        fieldId = ref.field_id;
        value = valueBySvc.get(key(ref.field_id, ref.svc_id));
      } else {
        const candidates = fieldsByRemote.get(ref.field_remote_id) ?? [];
        if (candidates.length > 1) return { problem: 'AMBIGUOUS_FIELD' };
        if (candidates.length === 0) return { problem: 'NOT_FOUND' };
        fieldId = candidates[0]!.svc_id;
        value = valueByRemote.get(key(fieldId, ref.remote_id));
      }
      const field = fields.get(fieldId);
      if (!value || !field) return { problem: 'NOT_FOUND' };
      return {
        coding: {
          field_id: field.svc_id,
          field_name: field.name,
          field_remote_id: field.remote_id,
          svc_id: value.svc_id,
          value: value.value,
          remote_id: value.remote_id,
          is_disabled: value.is_disabled === 1,
          field_is_disabled: field.is_disabled === 1,
        },
      };
    });
  },

  /** The field each of the given values (svc_ids) belongs to, in any field of the account; absent when unknown. */
  async fieldsOfValues(ex: Executor, tenant: Tenant, svcIds: readonly string[]): Promise<Map<string, string>> {
    if (svcIds.length === 0) return new Map();
    const rows = await repo.fieldsOfValues(ex, tenant.accountId, [...new Set(svcIds)]);
    return new Map(rows.map((row) => [row.svc_id, row.field_id]));
  },

  /**
   * The codings the references name, each with its field, in the order given; NOT_FOUND naming every reference
   * that is not a value of that field of the account. Disabled values are answered (is_disabled): whether they
   * may be used is the caller's rule (ingestion books what the source system coded).
   */
  async resolveCodings(ex: Executor, tenant: Tenant, refs: readonly ValueRef[]): Promise<Coding[]> {
    if (refs.length === 0) return [];
    const found = await codingsService.lookupCodings(ex, tenant, refs);
    const missing = new Map<string, ValueRef>();
    const out: Coding[] = [];
    found.forEach((result, i) => {
      const ref = refs[i]!;
      if ('coding' in result) out.push(result.coding);
      else missing.set(key(ref.field_id, ref.svc_id), { field_id: ref.field_id, svc_id: ref.svc_id });
    });
    if (missing.size > 0) {
      const list = [...missing.values()];
      throw errors.notFound(`Field values ${list.map((r) => `${r.svc_id} (field ${r.field_id})`).join(', ')}`, {
        not_found_field_values: list,
      });
    }
    return out;
  },
};
