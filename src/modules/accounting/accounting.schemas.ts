import { Type, type Static, type TSchema } from 'typebox';
import { Cursor, Limit, Nullable, Timestamp } from '../../http/schemas.js';
import { microsToIso } from '../../lib/clock.js';
import { defineShape, members } from '../../lib/shape.js';
import type { LastExportResult, ShownRecordRow } from './accounting.tables.js';
import { economicLines, RECORD_TYPES, SOURCE_TYPES, type LineItem } from './ledger.js';
import { INITIAL_STATUSES, REVIEW_STATUSES } from './lifecycle.js';
import { fromMinor } from './money.js';

// Plain `enum` rather than a union of literals: ajv reports it as "must be one of: ...", and the response
// serializer writes it without trying each branch.
const oneOf = <const T extends readonly string[]>(values: T, description: string) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], description });

/**
 * Nullable for responses: `type: [t, 'null']` is serialized with a typeof check, where a union makes
 * fast-json-stringify validate the value against each branch (the record pages' main cost).
 */
const OrNull = <T extends TSchema>(schema: T) =>
  Type.Unsafe<Static<T> | null>({ ...schema, type: [(schema as { type?: string }).type, 'null'] });

const Text = (max = 255, description?: string) => Type.String({ minLength: 1, maxLength: max, description });

export const RecordTypeSchema = oneOf(RECORD_TYPES, 'The kind of activity the record books');
export const ReviewStatusSchema = oneOf(REVIEW_STATUSES, 'Review stage of the record');
export const SourceTypeSchema = oneOf(SOURCE_TYPES, 'The system the record comes from; maps from type');

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

const userProperties = (text: () => TSchema) => ({
  id: text(),
  email: text(),
  first_name: text(),
  last_name: text(),
  role: oneOf(USER_ROLES, "The user's role"),
  status: oneOf(USER_STATUSES, "The user's status"),
  ...Object.fromEntries(USER_OPTIONAL.map((name) => [name, Type.Optional(text())])),
});

const vendorProperties = (text: () => TSchema, orNull: (schema: TSchema) => TSchema) => ({
  id: text(),
  name: text(),
  contact_name: Type.Optional(orNull(text())),
  email: Type.Optional(orNull(text())),
  phone: Type.Optional(orNull(text())),
  website: Type.Optional(orNull(text())),
});

// ---- responses -------------------------------------------------------------------------------------------

export const MoneySchema = Type.Object(
  {
    amount: Type.Number({ description: 'In major units, e.g. 171.75' }),
    currency: Type.String({ description: 'ISO 4217 code' }),
  },
  { title: 'Amount' },
);

const AccountingFieldValueSchema = Type.Object(
  {
    svc_field_id: Type.String(),
    remote_field_id: OrNull(Type.String()),
    svc_field_value_id: Type.String(),
    remote_field_value_id: OrNull(Type.String()),
    field_name: Type.String(),
    field_value_name: Type.String(),
  },
  { title: 'AccountingFieldValue' },
);

const LineItemSchema = Type.Object(
  {
    id: Type.String(),
    type: oneOf(['DEBIT', 'CREDIT'], 'Side of the entry'),
    amount: MoneySchema,
    original_amount: OrNull(MoneySchema),
    memo: OrNull(Type.String()),
    accounting_field_values: Type.Array(AccountingFieldValueSchema),
  },
  { title: 'AccountingRecordLineItem', description: 'Amounts are always positive.' },
);

const UserSchema = Type.Object(
  userProperties(() => Type.String()),
  { title: 'User' },
);
const VendorSchema = Type.Object(
  vendorProperties(() => Type.String(), OrNull),
  { title: 'Vendor' },
);
const ReceiptSchema = Type.Object(
  { id: Type.String(), download_uris: Type.Optional(OrNull(Type.Array(Type.String()))) },
  { title: 'Receipt' },
);

const LastExportResultSchema = Type.Object(
  {
    status: oneOf(['SUCCESS', 'FAILURE'], 'Outcome of the export'),
    reference_id: OrNull(Type.String()),
    deep_link_url: OrNull(Type.String()),
    error_message: OrNull(Type.String()),
    reported_at: Timestamp,
  },
  { title: 'LastExportResult' },
);

const money = (minor: number, currency: string): string => {
  const m = fromMinor(minor, currency);
  return `{"amount":${m.amount},"currency":${JSON.stringify(currency)}}`;
};
const lineItems = (row: ShownRecordRow): LineItem[] => {
  const lines: LineItem[] = JSON.parse(row.line_items_json);
  return lines;
};
const record = members<ShownRecordRow, { singleEntry: boolean }>();

/**
 * A record as answered, from its stored row: schema, object and JSON text from this one list (pages of 500 are
 * written as text: parsing, building and re-serializing objects was most of their cost). Line items, receipts,
 * user and vendor are stored in the answer's form (written by JSON.stringify) and spliced in as they are.
 * `singleEntry` drops the balancing lines.
 */
export const AccountingRecordShape = defineShape<ShownRecordRow, { singleEntry: boolean }>()(
  {
    id: record.text('id', Type.String({ examples: ['accr_01j0...'] })),
    amount: record.computed(
      MoneySchema,
      (row) => fromMinor(Number(row.amount_minor), row.currency),
      (row) => money(Number(row.amount_minor), row.currency),
    ),
    original_amount: record.computed(
      OrNull(MoneySchema),
      (row) =>
        row.original_currency === null ? null : fromMinor(Number(row.original_amount_minor), row.original_currency),
      (row) =>
        row.original_currency === null ? 'null' : money(Number(row.original_amount_minor), row.original_currency),
    ),
    type: record.text('type', RecordTypeSchema),
    source_type: record.text('source_type', SourceTypeSchema),
    source_id: record.nullableText('source_id', OrNull(Type.String())),
    review_status: record.text('review_status', ReviewStatusSchema),
    posted_at: record.time('posted_at', Timestamp),
    erp_posting_date: record.time('erp_posting_date', Timestamp),
    due_at: record.nullableTime('due_at', OrNull(Timestamp)),
    updated_at: record.time('updated_at', Timestamp),
    invoice_number: record.nullableText('invoice_number', OrNull(Type.String())),
    memo: record.nullableText('memo', OrNull(Type.String())),
    line_items: record.computed(
      Type.Array(LineItemSchema, { description: 'Double entry: debits and credits each sum to amount' }),
      (row, ctx) => (ctx.singleEntry ? economicLines(row.type, lineItems(row)) : lineItems(row)),
      (row, ctx) => (ctx.singleEntry ? JSON.stringify(economicLines(row.type, lineItems(row))) : row.line_items_json),
    ),
    receipts: record.storedJson('receipts_json', OrNull(Type.Array(ReceiptSchema))),
    user: record.storedJson('user_json', OrNull(UserSchema)),
    vendor: record.storedJson('vendor_json', OrNull(VendorSchema)),
    version: record.integer('version', Type.Integer({ description: 'Starts at 1; grows by one with every change' })),
    last_export_result: record.computed(OrNull(LastExportResultSchema), (row) => {
      if (row.last_export_json === null) return null;
      const last: LastExportResult = JSON.parse(row.last_export_json);
      return { ...last, reported_at: microsToIso(last.reported_at) };
    }),
  },
  { $id: 'AccountingRecord', title: 'AccountingRecordDetailed' },
);
export const AccountingRecord = AccountingRecordShape.schema;
export type AccountingRecordDto = Static<typeof AccountingRecord>;

export const RecordPage = Type.Object(
  {
    items: Type.Array(Type.Ref('AccountingRecord')),
    has_next_page: Type.Boolean(),
    next_cursor: OrNull(Type.String()),
    total_count: Type.Integer({ description: 'Every record matching the filters' }),
  },
  { title: 'AccountingRecordsResponse' },
);

export const RecordItems = Type.Object(
  { items: Type.Array(Type.Ref('AccountingRecord')) },
  { title: 'AccountingRecordItems' },
);

export const ExportResultsResponse = Type.Object(
  { updated_accounting_record_ids: Type.Array(Type.String()) },
  { title: 'ExportResultsResponse' },
);

// ---- requests --------------------------------------------------------------------------------------------

export const RecordIdParams = Type.Object(
  { record_id: Text(255, 'The accounting record id') },
  { additionalProperties: false },
);

export const SingleEntryQuery = Type.Object(
  {
    single_entry: Type.Optional(
      Type.Boolean({ default: false, description: 'true: only the economic-impact lines, without the balancing ones' }),
    ),
  },
  { additionalProperties: false },
);

const Bound = (description: string) => Type.Optional(Type.String({ format: 'date-time', description }));

export const RecordQuery = Type.Object(
  {
    ids: Type.Optional(
      Type.Array(Text(), { maxItems: 500, description: 'Record ids, as a repeated parameter; at most 500' }),
    ),
    cursor: Type.Optional(Cursor),
    limit: Type.Optional(Limit(500)),
    review_status: Type.Optional(ReviewStatusSchema),
    source_type: Type.Optional(SourceTypeSchema),
    single_entry: Type.Optional(Type.Boolean({ default: false })),
    'updated_at[gt]': Bound('Exclusive lower bound'),
    'updated_at[gte]': Bound('Inclusive lower bound'),
    'updated_at[lt]': Bound('Exclusive upper bound'),
    'updated_at[lte]': Bound('Inclusive upper bound'),
  },
  { additionalProperties: false },
);
export type RecordQueryInput = Static<typeof RecordQuery>;

const RecordId = Text(255, 'ID of the accounting record the export outcome applies to');
const ExportSuccess = Type.Object(
  {
    accounting_record_id: RecordId,
    success: Type.Object(
      {
        deep_link_url: Type.Optional(Text(2048, 'URL of the record in the ERP')),
        reference_id: Type.Optional(Nullable(Text(255, 'Identifier the ERP assigned'))),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, title: 'SuccessfulExportResult' },
);
const ExportFailure = Type.Object(
  {
    accounting_record_id: RecordId,
    failure: Type.Object({ error_message: Text(4000, 'Why the export failed') }, { additionalProperties: false }),
  },
  { additionalProperties: false, title: 'FailedExportResult' },
);

export const ExportResultsBody = Type.Object(
  {
    results: Type.Array(
      Type.Union([ExportSuccess, ExportFailure], {
        errorMessage:
          'must be {accounting_record_id, success: {deep_link_url?, reference_id?}} or {accounting_record_id, failure: {error_message}}',
      }),
      { minItems: 1, maxItems: 1000 },
    ),
  },
  { additionalProperties: false, title: 'ReportExportResultsRequest' },
);
export type ExportResultsInput = Static<typeof ExportResultsBody>;

export const ReviewStatusBody = Type.Object(
  {
    review_status: ReviewStatusSchema,
    version: Type.Optional(Type.Integer({ minimum: 1, description: 'The version the caller saw; a stale one → 409' })),
  },
  { additionalProperties: false },
);

const MoneyInput = Type.Object(
  {
    amount: Type.Number({ exclusiveMinimum: 0, description: 'Major units; no more decimals than the currency has' }),
    currency: Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code' }),
  },
  { additionalProperties: false },
);

const LineInput = Type.Object(
  {
    amount: MoneyInput,
    memo: Type.Optional(Nullable(Text(1000))),
    field_values: Type.Optional(
      Type.Array(Type.Object({ field_id: Text(), svc_id: Text() }, { additionalProperties: false }), { maxItems: 50 }),
    ),
  },
  { additionalProperties: false },
);

export const IngestItem = Type.Object(
  {
    type: RecordTypeSchema,
    amount: MoneyInput,
    posted_at: Timestamp,
    source_id: Type.Optional(Nullable(Text())),
    original_amount: Type.Optional(Nullable(MoneyInput)),
    erp_posting_date: Type.Optional(Nullable(Timestamp)),
    due_at: Type.Optional(Nullable(Timestamp)),
    invoice_number: Type.Optional(Nullable(Text())),
    memo: Type.Optional(Nullable(Text(1000))),
    user: Type.Optional(
      Nullable(
        Type.Object(
          userProperties(() => Text()),
          { additionalProperties: false },
        ),
      ),
    ),
    vendor: Type.Optional(
      Nullable(
        Type.Object(
          vendorProperties(() => Text(), Nullable),
          { additionalProperties: false },
        ),
      ),
    ),
    receipts: Type.Optional(
      Nullable(
        Type.Array(
          Type.Object(
            { id: Text(), download_uris: Type.Optional(Nullable(Type.Array(Text(2048), { maxItems: 20 }))) },
            { additionalProperties: false },
          ),
          { maxItems: 50 },
        ),
      ),
    ),
    review_status: Type.Optional(oneOf(INITIAL_STATUSES, 'Initial review stage; EXPORTED only through export results')),
    lines: Type.Optional(Type.Array(LineInput, { minItems: 1, maxItems: 100 })),
  },
  { additionalProperties: false },
);
export type IngestItemInput = Static<typeof IngestItem>;

export const IngestBody = Type.Object(
  { items: Type.Array(IngestItem, { minItems: 1, maxItems: 1000 }) },
  { additionalProperties: false },
);
