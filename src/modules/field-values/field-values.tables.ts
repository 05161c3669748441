export interface FieldValuesTable {
  account_id: string;
  field_id: string;
  svc_id: string;
  value: string;
  remote_id: string | null;
  value_id: string | null;
  is_disabled: number;
  created_at: number;
  updated_at: number;
}

// The module's tables, joined into the service's Database (db/database.ts) by declaration merging: db/ imports
// no module, each module plugs its own tables in.
declare module '../../db/database.js' {
  interface Database {
    field_values: FieldValuesTable;
  }
}
