import type { Field } from '@svc/client';

export type FieldGroup = Field['group'];

export const FIELD_GROUP_LABELS = {
  ACCOUNTING: 'Accounting',
  USER: 'User',
  ERP: 'ERP',
} as const satisfies Record<FieldGroup, string>;

export const FIELD_GROUPS: readonly FieldGroup[] = ['ACCOUNTING', 'USER', 'ERP'];

export function isFieldGroup(value: string): value is FieldGroup {
  return FIELD_GROUPS.some((g) => g === value);
}
