/** A console user's unsaved coding of one record (migration 0023). */
export interface RecordDraftsTable {
  account_id: string;
  user_id: string;
  record_id: string;
  /** the record's version the edits started from */
  version: number;
  /** the edited cells: DraftLine[] as JSON */
  lines_json: string;
  updated_at: number;
}

declare module '../../db/database.js' {
  interface Database {
    record_drafts: RecordDraftsTable;
  }
}
