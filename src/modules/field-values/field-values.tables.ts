// Tables of the field-values module (filled in with migration 0002).
export interface FieldValueTables {}
