/** A receipt uploaded to svc (migration 0025): one per account and content (SHA-256). */
export interface ReceiptsTable {
  account_id: string;
  id: string;
  /** hex SHA-256 of the bytes: the name they are stored under */
  sha256: string;
  /** as recognised from the bytes (receipts.types.ts), never as declared */
  content_type: string;
  size_bytes: number;
  created_at: number;
}

/** The bytes of a receipt, on PostgreSQL (receipts.store-pg.ts). */
export interface ReceiptContentsTable {
  account_id: string;
  sha256: string;
  content: Buffer;
}

declare module '../../db/database.js' {
  interface Database {
    receipts: ReceiptsTable;
    receipt_contents: ReceiptContentsTable;
  }
}
