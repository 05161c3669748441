import type { ExportMapping, ExportMappingRequest } from '@svc/client';

/** The balancing account types in words, in the order the form shows them (the API's BALANCING_ACCOUNT_TYPES). */
export const BALANCING_TYPES = {
  CARD_LIABILITY: 'Card liability',
  BANK: 'Bank',
  REIMBURSEMENTS_PAYABLE: 'Reimbursements payable',
  REIMBURSEMENT_CLEARING: 'Reimbursement clearing',
  ACCOUNTS_RECEIVABLE: 'Accounts receivable',
  ACCOUNTS_PAYABLE: 'Accounts payable',
  BILL_PAY_CLEARING: 'Bill pay clearing',
} as const satisfies Record<keyof ExportMapping['balancing_accounts'], string>;
export type BalancingType = keyof typeof BALANCING_TYPES;
export const BALANCING_ORDER = Object.keys(BALANCING_TYPES).filter((t): t is BalancingType =>
  Object.hasOwn(BALANCING_TYPES, t),
);

/** The ERPs' dimension columns a field fills. */
export const SLOTS = {
  department: { label: 'Department', columns: 'NetSuite' },
  class: { label: 'Class', columns: 'QuickBooks Online and NetSuite' },
  location: { label: 'Location', columns: 'QuickBooks Online and NetSuite' },
} as const satisfies Record<keyof ExportMapping['dimension_fields'], { label: string; columns: string }>;
export type Slot = keyof typeof SLOTS;
export const SLOT_ORDER = Object.keys(SLOTS).filter((s): s is Slot => Object.hasOwn(SLOTS, s));

/** The form as typed: '' is "the default" for each choice of a field. */
export interface MappingDraft {
  accountFieldId: string;
  balancing: Record<BalancingType, string>;
  slots: Record<Slot, string>;
  tracking: [string, string];
  homeCurrency: string;
  quickbooksMulticurrency: boolean;
}

export function draftOf(mapping: ExportMapping): MappingDraft {
  return {
    accountFieldId: mapping.account_field_id ?? '',
    balancing: { ...mapping.balancing_accounts },
    slots: {
      department: mapping.dimension_fields.department ?? '',
      class: mapping.dimension_fields.class ?? '',
      location: mapping.dimension_fields.location ?? '',
    },
    tracking: [mapping.tracking_fields[0] ?? '', mapping.tracking_fields[1] ?? ''],
    homeCurrency: mapping.home_currency,
    quickbooksMulticurrency: mapping.quickbooks_multicurrency,
  };
}

/** The request for the draft; the service checks every member (and says which is wrong). */
export function requestOfMapping(draft: MappingDraft): ExportMappingRequest {
  return {
    account_field_id: draft.accountFieldId === '' ? null : draft.accountFieldId,
    // A blank account books the type's default.
    balancing_accounts: Object.fromEntries(
      BALANCING_ORDER.filter((t) => draft.balancing[t].trim() !== '').map((t) => [t, draft.balancing[t].trim()]),
    ),
    dimension_fields: Object.fromEntries(SLOT_ORDER.map((s) => [s, draft.slots[s] === '' ? null : draft.slots[s]])),
    tracking_fields: [...new Set(draft.tracking.filter((id) => id !== ''))],
    // Blank: the default (USD).
    ...(draft.homeCurrency.trim() === '' ? {} : { home_currency: draft.homeCurrency.trim().toUpperCase() }),
    quickbooks_multicurrency: draft.quickbooksMulticurrency,
  };
}
