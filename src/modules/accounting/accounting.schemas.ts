import { Type, type Static } from 'typebox';
import { Cursor, Limit, Nullable, Timestamp } from '../../http/schemas.js';
import {
  oneOf,
  OrNull,
  RecordTypeSchema,
  ReviewStatusSchema,
  SourceTypeSchema,
  Text,
  userProperties,
  vendorProperties,
} from './accounting.schema-parts.js';
import { INITIAL_STATUSES, REVIEW_STATUSES } from './lifecycle.js';
import { SOURCE_STATUSES } from './source-status.js';

export { AccountingRecord, AccountingRecordShape, storedForm, type AccountingRecordDto } from './record.shape.js';

// ---- responses -------------------------------------------------------------------------------------------

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
    review_status: Type.Optional(
      oneOf(
        REVIEW_STATUSES,
        'Records in this review stage. Without source_type it matches card and reimbursement records only: bills are polled by source_type=BILL and updated_at[gt]',
      ),
    ),
    source_type: Type.Optional(SourceTypeSchema),
    single_entry: Type.Optional(
      Type.Boolean({ default: false, description: 'true: only the economic-impact lines, without the balancing ones' }),
    ),
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

export const MoneyInput = Type.Object(
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
    // Refused rather than dropped: a schedule sent must not vanish. A one-branch union, for the message's sake.
    amortization: Type.Optional(
      Type.Union([Type.Null()], {
        description: 'null or absent: svc takes no amortization schedules yet',
        errorMessage: 'must be null: amortization schedules are not supported yet',
      }),
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
    billing_amount: Type.Optional(
      Type.Union([MoneyInput, Type.Null()], {
        description: "What the card holder's billing currency was charged (any currency); default: amount",
      }),
    ),
    status: Type.Optional(
      oneOf(
        SOURCE_STATUSES,
        "State of the source activity, one its type allows (docs/accounting.md); default: the type's",
      ),
    ),
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
    receipt_ids: Type.Optional(
      Type.Array(Text(), {
        maxItems: 50,
        description:
          "Receipts uploaded to svc (POST /internal/v1/receipts) to attach to this record, each a receipt of the account that no record lists yet (a receipt named here belongs to this record), named once in the batch: 400 at the id's pointer otherwise. Attached after the record is written, in its transaction (RECEIPT_ATTACHED each); they count toward the receipt policy.",
      }),
    ),
    merchant_category_code: Type.Optional(
      Nullable(
        Type.String({
          pattern: '^[0-9]{4}$',
          description:
            "A card record's merchant category code (ISO 18245, four digits), for coding rules; card types only. Kept, not shown in the record's answers",
        }),
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
