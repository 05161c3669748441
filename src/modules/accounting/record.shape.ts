import { Type, type Static } from 'typebox';
import { Timestamp } from '../../http/schemas.js';
import { microsToIso } from '../../lib/clock.js';
import { defineShape, members, storedJsonWriter } from '../../lib/shape.js';
import {
  oneOf,
  OrNull,
  RecordTypeSchema,
  ReviewStatusSchema,
  SourceStatusSchema,
  SourceTypeSchema,
  userProperties,
  vendorProperties,
} from './accounting.schema-parts.js';
import type { LastExportResult, ShownRecordRow } from './accounting.tables.js';
import {
  BALANCING_ACCOUNT_TYPES,
  balancingAccountOf,
  balancingSideOf,
  CODING_TYPES,
  economicLines,
  type LineItem,
} from './ledger.js';
import { fromMinor } from './money.js';
import { receiptLinksService } from '../receipts/receipt-links.service.js';

const Money = (description?: string) =>
  Type.Object(
    {
      amount: Type.Number({ description: 'In major units, e.g. 171.75' }),
      currency: Type.String({ description: 'ISO 4217 code' }),
    },
    { title: 'Amount', ...(description === undefined ? {} : { description }) },
  );
export const MoneySchema = Money();

const AccountingFieldValueSchema = Type.Object(
  {
    svc_field_id: Type.String(),
    remote_field_id: OrNull(Type.String()),
    svc_field_value_id: Type.String(),
    remote_field_value_id: OrNull(Type.String()),
    field_name: Type.String(),
    field_value_name: Type.String(),
    type: oneOf(
      CODING_TYPES,
      "How the coding identifies its value: IDENTIFIER, a value of the field's list named by its ids",
    ),
  },
  { title: 'AccountingFieldValue' },
);

const LineItemSchema = Type.Object(
  {
    id: Type.String(),
    type: oneOf(['DEBIT', 'CREDIT'], 'Side of the entry'),
    amount: MoneySchema,
    original_amount: OrNull(MoneySchema),
    billing_amount: Type.Optional(
      Money("The line's part of the record's billing_amount; economic lines only (the balancing line has none)"),
    ),
    memo: OrNull(Type.String()),
    accounting_field_values: Type.Array(AccountingFieldValueSchema),
    amortization: Type.Null({ description: 'Always null: svc takes no amortization schedules' }),
  },
  { title: 'AccountingRecordLineItem', description: 'Amounts are always positive.' },
);

const UserSchema = Type.Object(
  {
    ...userProperties(() => Type.String()),
    account_id: Type.String({ description: "The account the user belongs to: the record's own" }),
  },
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
/**
 * What an answer of records knows beyond their rows: single-entry mode, and the account they are answered to
 * (the receipts svc stores get download links signed for it, written as the answer is).
 */
export interface RecordAnswer {
  singleEntry: boolean;
  accountId: string;
}
const record = members<ShownRecordRow, RecordAnswer>();

/**
 * The writers of the members stored in the answer's form: the schema serializer's own (lib/shape.ts), so that what
 * is stored, and spliced into pages, is what the serializer writes.
 */
export const storedForm = {
  lineItems: storedJsonWriter(Type.Array(LineItemSchema)),
  user: storedJsonWriter(UserSchema),
  vendor: storedJsonWriter(VendorSchema),
  receipts: storedJsonWriter(Type.Array(ReceiptSchema)),
};

/**
 * A record as answered, from its stored row: schema, object and JSON text from this one list (pages of 500 are
 * written as text: parsing, building and re-serializing objects was most of their cost). Line items, receipts,
 * user and vendor are stored in the answer's form (written by `storedForm`) and spliced in as they are.
 * `singleEntry` drops the balancing lines.
 */
export const AccountingRecordShape = defineShape<ShownRecordRow, RecordAnswer>()(
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
    billing_amount: record.computed(
      Money("What the card holder's billing currency was charged; amount when there was no conversion"),
      (row) =>
        row.billing_currency === null
          ? fromMinor(Number(row.amount_minor), row.currency)
          : fromMinor(Number(row.billing_amount_minor), row.billing_currency),
      (row) =>
        row.billing_currency === null
          ? money(Number(row.amount_minor), row.currency)
          : money(Number(row.billing_amount_minor), row.billing_currency),
    ),
    type: record.text('type', RecordTypeSchema),
    source_type: record.text('source_type', SourceTypeSchema),
    source_id: record.nullableText('source_id', OrNull(Type.String())),
    review_status: record.text('review_status', ReviewStatusSchema),
    status: record.text('status', SourceStatusSchema),
    posted_at: record.time('posted_at', Timestamp),
    erp_posting_date: record.time('erp_posting_date', Timestamp),
    due_at: record.nullableTime('due_at', OrNull(Timestamp)),
    updated_at: record.time('updated_at', Timestamp),
    invoice_number: record.nullableText('invoice_number', OrNull(Type.String())),
    memo: record.nullableText('memo', OrNull(Type.String())),
    line_items: record.computed(
      Type.Array(LineItemSchema, { description: 'Double entry: debits and credits each sum to amount' }),
      (row, ctx) => (ctx.singleEntry ? economicLines(row.type, lineItems(row)) : lineItems(row)),
      (row, ctx) =>
        ctx.singleEntry ? storedForm.lineItems(economicLines(row.type, lineItems(row))) : row.line_items_json,
    ),
    balancing_line_type: record.computed(
      oneOf(
        ['DEBIT', 'CREDIT'],
        'The side of the balancing line: line_items holds exactly one line of this type, the others carry the economic impact (docs/integration.md)',
      ),
      (row) => balancingSideOf(row.type),
    ),
    balancing_account_type: record.computed(
      oneOf(
        BALANCING_ACCOUNT_TYPES,
        "The account the balancing line books, fixed by the record's type (docs/integration.md maps every type); the list may grow",
      ),
      (row) => balancingAccountOf(row.type),
    ),
    // Stored in the answer's form; the receipts svc holds get their signed links here, as the answer is written.
    receipts: record.computed(
      OrNull(Type.Array(ReceiptSchema)),
      (row, ctx) =>
        row.receipts_json === null
          ? null
          : receiptLinksService.objectsWithLinks(JSON.parse(row.receipts_json), ctx.accountId),
      (row, ctx) =>
        row.receipts_json === null ? 'null' : receiptLinksService.withLinks(row.receipts_json, ctx.accountId),
    ),
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
