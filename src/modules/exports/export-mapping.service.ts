import type { Executor } from '../../db/database.js';
import { errors, type ValidationProblem } from '../../errors.js';
import { microsToIso, nowMicros } from '../../lib/clock.js';
import { auditService, type AuditSource } from '../audit/audit.service.js';
import type { Tenant } from '../auth/auth.service.js';
import {
  BALANCING_ACCOUNT_TYPES,
  CURRENCY_EXPONENTS,
  type BalancingAccountType,
} from '../accounting/export-selection.service.js';
import { fieldsService } from '../fields/fields.service.js';
import { exportMappingRepository as repo } from './export-mapping.repository.js';
import type { ExportMappingDto, ExportMappingInput } from './export-mapping.schemas.js';
import {
  accountFromPath,
  DEFAULT_BALANCING_ACCOUNTS,
  DEFAULT_HOME_CURRENCY,
  DIMENSION_SLOTS,
  pathOf,
  type BookAccount,
  type DimensionSlot,
  type MappingOptions,
} from './exports.mapping.js';

/**
 * An account's export mapping, stored once (docs/exports.md, "The stored mapping"): the GL account field, the
 * balancing account of each balancing_account_type, and the fields of the ERPs' dimension columns. Every export
 * (API, `svc export`, the console) books with it where the request does not say otherwise.
 */

/** As stored: only what was set (a balancing type not set books its default; a slot not set, its named field). */
interface StoredMapping {
  account_field_id: string | null;
  balancing_accounts: Partial<Record<BalancingAccountType, string>>;
  dimension_fields: Partial<Record<DimensionSlot, string>>;
  tracking_fields: string[];
  /** Absent in a mapping stored before it existed: the default. */
  home_currency?: string;
  quickbooks_multicurrency?: boolean;
}
const NOTHING_SET: StoredMapping = {
  account_field_id: null,
  balancing_accounts: {},
  dimension_fields: {},
  tracking_fields: [],
};

/** What a request may say instead of the stored mapping (the export route's body). */
export interface MappingOverrides {
  account_field_id?: string | undefined;
  balancing_accounts?: Partial<Record<string, string | undefined>> | undefined;
}

const storedOf = (json: string | undefined): StoredMapping => (json === undefined ? NOTHING_SET : JSON.parse(json));

function answerOf(stored: StoredMapping, updatedAt: number | null): ExportMappingDto {
  const balancing = Object.fromEntries(
    BALANCING_ACCOUNT_TYPES.map((t) => [t, stored.balancing_accounts[t] ?? pathOf(DEFAULT_BALANCING_ACCOUNTS[t])]),
  );
  return {
    account_field_id: stored.account_field_id,
    balancing_accounts: balancing,
    dimension_fields: {
      department: stored.dimension_fields.department ?? null,
      class: stored.dimension_fields.class ?? null,
      location: stored.dimension_fields.location ?? null,
    },
    tracking_fields: stored.tracking_fields,
    home_currency: stored.home_currency ?? DEFAULT_HOME_CURRENCY,
    quickbooks_multicurrency: stored.quickbooks_multicurrency ?? false,
    updated_at: updatedAt === null ? null : microsToIso(updatedAt),
  };
}

/** The mapping the input sets: each balancing account given, and only the slots given a field. */
function storedFrom(input: ExportMappingInput): StoredMapping {
  const balancing: Partial<Record<BalancingAccountType, string>> = {};
  for (const type of BALANCING_ACCOUNT_TYPES) {
    const path = input.balancing_accounts?.[type];
    if (path !== undefined) balancing[type] = path;
  }
  const slots: Partial<Record<DimensionSlot, string>> = {};
  for (const slot of DIMENSION_SLOTS) {
    const fieldId = input.dimension_fields?.[slot];
    if (fieldId !== undefined && fieldId !== null) slots[slot] = fieldId;
  }
  return {
    account_field_id: input.account_field_id ?? null,
    balancing_accounts: balancing,
    dimension_fields: slots,
    tracking_fields: [...(input.tracking_fields ?? [])],
    ...(input.home_currency === undefined ? {} : { home_currency: input.home_currency }),
    ...(input.quickbooks_multicurrency === undefined
      ? {}
      : { quickbooks_multicurrency: input.quickbooks_multicurrency }),
  };
}

/** Each field id the mapping names, by its pointer in the body. */
function fieldRefs(stored: StoredMapping): { path: string; fieldId: string }[] {
  return [
    ...(stored.account_field_id === null ? [] : [{ path: '/account_field_id', fieldId: stored.account_field_id }]),
    ...DIMENSION_SLOTS.flatMap((slot) => {
      const fieldId = stored.dimension_fields[slot];
      return fieldId === undefined ? [] : [{ path: `/dimension_fields/${slot}`, fieldId }];
    }),
    ...stored.tracking_fields.map((fieldId, i) => ({ path: `/tracking_fields/${i}`, fieldId })),
  ];
}

/**
 * The fields the mapping names that the account lacks: 404 NOT_FOUND, as every route naming another account's (or
 * no) object answers, each by its member; then the GL account field given as a dimension too: 400, by its member.
 */
async function check(ex: Executor, tenant: Tenant, stored: StoredMapping): Promise<void> {
  const refs = fieldRefs(stored);
  const known = new Set(
    (await fieldsService.findMany(ex, tenant, [...new Set(refs.map((r) => r.fieldId))])).map((f) => f.svc_id),
  );
  const unknown = refs.filter((r) => !known.has(r.fieldId));
  if (unknown.length > 0) {
    throw errors.notFound(`Fields ${unknown.map((r) => `${r.fieldId} (${r.path})`).join(', ')}`, {
      not_found_field_ids: [...new Set(unknown.map((r) => r.fieldId))],
      errors: unknown.map(({ path, fieldId }) => ({ path, message: `is not a field of the account (${fieldId})` })),
    });
  }
  const problems = refs.flatMap(({ path, fieldId }): ValidationProblem[] =>
    path !== '/account_field_id' && fieldId === stored.account_field_id
      ? [{ path, message: 'is the GL account field (account_field_id), which is never a dimension' }]
      : [],
  );
  if (stored.home_currency !== undefined && !CURRENCY_EXPONENTS.has(stored.home_currency)) {
    problems.push({ path: '/home_currency', message: 'is not an ISO 4217 currency svc knows' });
  }
  if (problems.length > 0) throw errors.invalidRequest(problems);
}

export const exportMapping = {
  async get(ex: Executor, tenant: Tenant): Promise<ExportMappingDto> {
    const row = await repo.find(ex, tenant.accountId);
    return answerOf(storedOf(row?.mapping_json), row ? Number(row.updated_at) : null);
  },

  /**
   * Replaces the mapping (404 NOT_FOUND naming each field the account lacks, 400 INVALID_REQUEST each other wrong
   * member; nothing stored then); the change is in the account's audit log (account.settings_changed), in the same
   * transaction.
   */
  async set(ex: Executor, source: AuditSource, input: ExportMappingInput): Promise<ExportMappingDto> {
    const stored = storedFrom(input);
    await check(ex, source, stored);
    const before = storedOf((await repo.find(ex, source.accountId))?.mapping_json);
    const now = nowMicros();
    await repo.upsert(ex, { account_id: source.accountId, mapping_json: JSON.stringify(stored), updated_at: now });
    await auditService.record(
      ex,
      source,
      'account.settings_changed',
      { type: 'account', id: source.accountId },
      { export_mapping_before: before, export_mapping: stored },
    );
    return answerOf(stored, now);
  },

  /** Forgets the mapping (a sandbox reset: the fields it names go too). */
  async purgeAccount(ex: Executor, tenant: Tenant): Promise<void> {
    await repo.delete(ex, tenant.accountId);
  },

  /** The mapping an export books with: the request's account field and balancing accounts, else the stored ones. */
  async options(ex: Executor, tenant: Tenant, overrides: MappingOverrides): Promise<MappingOptions> {
    const stored = storedOf((await repo.find(ex, tenant.accountId))?.mapping_json);
    const accountOf = (type: BalancingAccountType): BookAccount => {
      const path = overrides.balancing_accounts?.[type] ?? stored.balancing_accounts[type];
      return (path === undefined ? null : accountFromPath(path)) ?? DEFAULT_BALANCING_ACCOUNTS[type];
    };
    return {
      accountFieldId: overrides.account_field_id ?? stored.account_field_id,
      balancingAccounts: {
        CARD_LIABILITY: accountOf('CARD_LIABILITY'),
        BANK: accountOf('BANK'),
        REIMBURSEMENTS_PAYABLE: accountOf('REIMBURSEMENTS_PAYABLE'),
        REIMBURSEMENT_CLEARING: accountOf('REIMBURSEMENT_CLEARING'),
        ACCOUNTS_RECEIVABLE: accountOf('ACCOUNTS_RECEIVABLE'),
        ACCOUNTS_PAYABLE: accountOf('ACCOUNTS_PAYABLE'),
        BILL_PAY_CLEARING: accountOf('BILL_PAY_CLEARING'),
      },
      slots: {
        department: stored.dimension_fields.department ?? null,
        class: stored.dimension_fields.class ?? null,
        location: stored.dimension_fields.location ?? null,
        tracking: stored.tracking_fields,
      },
      homeCurrency: stored.home_currency ?? DEFAULT_HOME_CURRENCY,
      quickbooksMulticurrency: stored.quickbooks_multicurrency ?? false,
    };
  },
};
