/** A console user's named view of the review queue (migration 0032). */
export interface SavedViewsTable {
  account_id: string;
  id: string;
  user_id: string;
  name: string;
  /** the name as compared: trimmed, lower case (unique per user) */
  name_key: string;
  /** the search query's members: SavedViewFilters as JSON */
  filters_json: string;
  /** 1: every user of the account sees it (only its owner changes it); 0: its owner's alone */
  shared: number;
  created_at: number;
  updated_at: number;
}

declare module '../../db/database.js' {
  interface Database {
    saved_views: SavedViewsTable;
  }
}
