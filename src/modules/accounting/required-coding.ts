import { auditService, type AuditSource } from '../audit/audit.service.js';
import type { Executor } from '../../db/database.js';
import { errors } from '../../errors.js';
import { nowMicros } from '../../lib/clock.js';
import type { Tenant } from '../auth/auth.service.js';
import { fieldsService } from '../fields/fields.service.js';
import type { AccountingFieldValue } from './ledger.js';
import { requiredCodingRepository as repo } from './required-coding.repository.js';

/**
 * Required coding: an account may name fields (a GL account, say) that every economic line of a record must be
 * coded with before the record may be READY_FOR_EXPORT. Checked when a record moves there (one or in bulk) and
 * when one is created there; a deleted field leaves the list with it.
 */
export interface RequiredField {
  field_id: string;
  field_name: string;
}

/** A record (or an item being created) and the codings of its economic lines. */
export interface CodedRecord {
  /** How the error names it: `{ accounting_record_id }`, or `{ path }` for an item of a request. */
  ref: { accounting_record_id: string } | { path: string };
  lines: readonly { lineId: string | null; codings: readonly AccountingFieldValue[] }[];
}

export interface MissingCoding {
  ref: CodedRecord['ref'];
  lines: { index: number; line_id: string | null; missing_fields: RequiredField[] }[];
}

export const requiredCoding = {
  /** The account's required fields, with their names, in field id order. */
  async fields(ex: Executor, tenant: Tenant): Promise<RequiredField[]> {
    const ids = await repo.fieldIds(ex, tenant.accountId);
    if (ids.length === 0) return [];
    const fields = new Map((await fieldsService.findMany(ex, tenant, ids)).map((f) => [f.svc_id, f]));
    return ids.flatMap((id) => {
      const field = fields.get(id);
      return field ? [{ field_id: id, field_name: field.name }] : [];
    });
  },

  /** The lines of each record that lack a required field. */
  missing(required: readonly RequiredField[], records: readonly CodedRecord[]): MissingCoding[] {
    if (required.length === 0) return [];
    return records.flatMap((record) => {
      const lines = record.lines.flatMap((line, index) => {
        const coded = new Set(line.codings.map((c) => c.svc_field_id));
        const missing = required.filter((f) => !coded.has(f.field_id));
        return missing.length > 0 ? [{ index, line_id: line.lineId, missing_fields: missing }] : [];
      });
      return lines.length > 0 ? [{ ref: record.ref, lines }] : [];
    });
  },

  /** 422 CODING_REQUIRED naming every record and line that lacks a required field. */
  async assertCoded(ex: Executor, tenant: Tenant, records: readonly CodedRecord[]): Promise<void> {
    if (records.length === 0) return;
    const missing = requiredCoding.missing(await requiredCoding.fields(ex, tenant), records);
    if (missing.length > 0) throw errors.codingRequired(missing.map((m) => ({ ...m.ref, lines: m.lines })));
  },

  /** Replaces the account's required fields; each must be a field of the account (404 naming those that are not). */
  async set(ex: Executor, source: AuditSource, fieldIds: readonly string[]): Promise<{ items: RequiredField[] }> {
    const wanted = [...new Set(fieldIds)];
    const found = new Set((await fieldsService.findMany(ex, source, wanted)).map((f) => f.svc_id));
    const unknown = wanted.filter((id) => !found.has(id));
    if (unknown.length > 0) throw errors.notFound(`Fields ${unknown.join(', ')}`, { not_found_field_ids: unknown });
    const before = (await requiredCoding.fields(ex, source)).map((f) => f.field_id);
    await repo.replace(ex, source.accountId, wanted, nowMicros());
    await auditService.record(
      ex,
      source,
      'account.required_coding_changed',
      { type: 'account', id: source.accountId },
      { field_ids_before: before, field_ids: wanted },
    );
    return { items: await requiredCoding.fields(ex, source) };
  },
};
