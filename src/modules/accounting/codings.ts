import type { Coding } from '../field-values/field-values.service.js';
import type { AccountingFieldValue } from './ledger.js';

/** A line's coding as a record keeps it (names included: a record shows the coding it was booked with). */
export const codingOf = (coding: Coding): AccountingFieldValue => ({
  svc_field_id: coding.field_id,
  remote_field_id: coding.field_remote_id,
  svc_field_value_id: coding.svc_id,
  remote_field_value_id: coding.remote_id,
  field_name: coding.field_name,
  field_value_name: coding.value,
  type: 'IDENTIFIER',
});
