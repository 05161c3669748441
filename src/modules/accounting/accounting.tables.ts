// Tables of the accounting module (filled in with migration 0003).
export interface AccountingTables {}
