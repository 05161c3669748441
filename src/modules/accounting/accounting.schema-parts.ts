import { Type, type Static, type TSchema } from 'typebox';
import { oneOf } from '../../http/schemas.js';
import { RECORD_TYPES, SOURCE_TYPES } from './ledger.js';
import { REVIEW_STATUSES } from './lifecycle.js';
import { SOURCE_STATUSES } from './source-status.js';

export { oneOf };

/**
 * Nullable for responses: `type: [t, 'null']` is serialized with a typeof check, where a union makes
 * fast-json-stringify validate the value against each branch (the record pages' main cost).
 */
export const OrNull = <T extends TSchema>(schema: T) =>
  Type.Unsafe<Static<T> | null>({ ...schema, type: [(schema as { type?: string }).type, 'null'] });

export const Text = (max = 255, description?: string) => Type.String({ minLength: 1, maxLength: max, description });

export const RecordTypeSchema = oneOf(RECORD_TYPES, 'The kind of activity the record books');
export const ReviewStatusSchema = oneOf(REVIEW_STATUSES, 'Review stage of the record');
export const SourceTypeSchema = oneOf(SOURCE_TYPES, 'The system the record comes from; maps from type');
export const SourceStatusSchema = oneOf(
  SOURCE_STATUSES,
  'State of the source activity (the expense, bill or money movement) at ingestion; not the review state',
);

const USER_ROLES = [
  'ACCOUNT_ADMIN',
  'AP_CLERK',
  'BOOKKEEPER',
  'CARD_ADMIN',
  'EMPLOYEE',
  'EMPLOYEE_WITHOUT_CORP_CARDS',
  'EXPENSE_ADMIN',
  'SUPER_ADMIN',
  'USER_MANAGEMENT_ADMIN',
];
const USER_STATUSES = ['ACTIVE', 'DISABLED', 'ARCHIVED', 'DELETED', 'INACTIVE', 'INVITED', 'PENDING_ACTIVATION'];
const USER_OPTIONAL = [
  'department_id',
  'department_name',
  'location_id',
  'location_name',
  'manager_id',
  'manager_first_name',
  'manager_last_name',
  'manager_title_id',
  'manager_title_name',
  'title_id',
  'title_name',
] as const;

export const userProperties = (text: () => TSchema) => ({
  id: text(),
  email: text(),
  first_name: text(),
  last_name: text(),
  role: oneOf(USER_ROLES, "The user's role"),
  status: oneOf(USER_STATUSES, "The user's status"),
  ...Object.fromEntries(USER_OPTIONAL.map((name) => [name, Type.Optional(text())])),
});

export const vendorProperties = (text: () => TSchema, orNull: (schema: TSchema) => TSchema) => ({
  id: text(),
  name: text(),
  contact_name: Type.Optional(orNull(text())),
  email: Type.Optional(orNull(text())),
  phone: Type.Optional(orNull(text())),
  website: Type.Optional(orNull(text())),
});
