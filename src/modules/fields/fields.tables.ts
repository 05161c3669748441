export type FieldGroup = 'ACCOUNTING' | 'USER' | 'ERP';

export interface FieldsTable {
  account_id: string;
  svc_id: string;
  name: string;
  field_group: FieldGroup;
  remote_id: string | null;
  /** Always written null: svc has no integrations yet (the create body refuses an id). */
  integration_id: string | null;
  is_disabled: number;
  created_at: number;
  updated_at: number;
}

// The module's tables, joined into the service's Database (db/database.ts) by declaration merging: db/ imports
// no module, each module plugs its own tables in.
declare module '../../db/database.js' {
  interface Database {
    fields: FieldsTable;
  }
}
