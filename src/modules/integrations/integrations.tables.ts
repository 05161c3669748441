/** The ERP vendors the operator creates (`svc vendors`): a catalogue of the whole service, not of one account. */
export interface VendorsTable {
  /** The id partners send as `vendor` (ERP_A): chosen by the operator, compared exactly. */
  vendor_id: string;
  name: string;
  created_at: number;
  updated_at: number;
  /** microseconds; null while the vendor may be used for new and reactivated integrations */
  disabled_at: number | null;
}

export const INTEGRATION_STATUSES = ['ACTIVE', 'DISABLED'] as const;
export type IntegrationStatus = (typeof INTEGRATION_STATUSES)[number];

/** An account's connection to an ERP vendor's account; at most one ACTIVE per account (a partial unique index). */
export interface IntegrationsTable {
  account_id: string;
  integration_id: string;
  vendor: string;
  vendor_account_id: string;
  status: IntegrationStatus;
  created_at: number;
  updated_at: number;
  /** when it was last disconnected; null while ACTIVE */
  disconnected_at: number | null;
}

declare module '../../db/database.js' {
  interface Database {
    vendors: VendorsTable;
    integrations: IntegrationsTable;
  }
}
