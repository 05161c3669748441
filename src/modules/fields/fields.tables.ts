export type FieldGroup = 'ACCOUNTING' | 'USER' | 'ERP';

export interface FieldsTable {
  account_id: string;
  svc_id: string;
  name: string;
  field_group: FieldGroup;
  remote_id: string | null;
  integration_id: string | null;
  is_disabled: number;
  created_at: number;
  updated_at: number;
}

export interface FieldTables {
  fields: FieldsTable;
}
