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

export interface FieldValueTables {
  field_values: FieldValuesTable;
}
