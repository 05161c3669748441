/** An account's export mapping (migration 0031; docs/exports.md, "The stored mapping"). */
export interface AccountExportMappingsTable {
  account_id: string;
  /** StoredMapping (export-mapping.service.ts) as JSON. */
  mapping_json: string;
  updated_at: number;
}

// Joined into the service's Database (db/database.ts) by declaration merging, as every module's tables are.
declare module '../../db/database.js' {
  interface Database {
    account_export_mappings: AccountExportMappingsTable;
  }
}
