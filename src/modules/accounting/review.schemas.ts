import { Type, type Static } from 'typebox';
import { Cursor, Limit, Nullable, PageLinks, Timestamp } from '../../http/schemas.js';
import { defineShape, members } from '../../lib/shape.js';
import { oneOf, RecordTypeSchema, ReviewStatusSchema, Text } from './accounting.schema-parts.js';
import { MoneyInput } from './accounting.schemas.js';
import type { AccountingRecordEventsTable } from './accounting.tables.js';
import type { AccountingRecordDto } from './record.shape.js';
import { isOneOf } from '../../lib/guards.js';
import { RECORD_EVENT_TYPES } from './lifecycle.js';

// ---- coding -------------------------------------------------------------------------------------------------

const Version = Type.Integer({
  minimum: 1,
  description: 'The version the caller saw; another one → 409 VERSION_CONFLICT',
});

const CodingRefSchema = Type.Union(
  [
    Type.Object(
      { field_id: Text(255, 'The field'), svc_id: Text(255, "The value's svc_id") },
      { additionalProperties: false, title: 'CodingBySvcId' },
    ),
    Type.Object(
      { field_remote_id: Text(255, "The field's remote_id"), remote_id: Text(255, "The value's remote_id") },
      { additionalProperties: false, title: 'CodingByRemoteId' },
    ),
  ],
  { errorMessage: 'must be {field_id, svc_id} or {field_remote_id, remote_id}' },
);
const FieldValueRefs = (description: string) => Type.Array(CodingRefSchema, { maxItems: 50, description });

export const CodeLinesBody = Type.Object(
  {
    version: Version,
    lines: Type.Array(
      Type.Object(
        {
          line_id: Text(255, 'An economic line of the record'),
          field_values: FieldValueRefs('The whole coding of the line: at most one value per field; [] uncodes it'),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 100 },
    ),
  },
  { additionalProperties: false, title: 'CodeLinesRequest' },
);
export type CodeLinesInput = Static<typeof CodeLinesBody>;

export const SplitLineBody = Type.Object(
  {
    version: Version,
    parts: Type.Array(
      Type.Object(
        {
          amount: MoneyInput,
          memo: Type.Optional(Nullable(Text(1000))),
          field_values: Type.Optional(FieldValueRefs("The part's coding; absent: the line's")),
        },
        { additionalProperties: false },
      ),
      { minItems: 2, maxItems: 100, description: "Amounts in the record's currency, summing exactly to the line's" },
    ),
  },
  { additionalProperties: false, title: 'SplitLineRequest' },
);
export type SplitLineInput = Static<typeof SplitLineBody>;

export const MergeLinesBody = Type.Object(
  {
    version: Version,
    line_ids: Type.Array(Text(255), { minItems: 2, maxItems: 100, description: 'Economic lines of the record' }),
    memo: Type.Optional(Nullable(Text(1000))),
    field_values: Type.Optional(FieldValueRefs("The merged line's coding; absent: the values all the lines share")),
  },
  { additionalProperties: false, title: 'MergeLinesRequest' },
);
export type MergeLinesInput = Static<typeof MergeLinesBody>;

export const LineParams = Type.Object(
  { record_id: Text(255, 'The accounting record id'), line_id: Text(255, 'An economic line of the record') },
  { additionalProperties: false },
);

export const RecordWithSingleEntry = Type.Object(
  {
    record: Type.Ref('AccountingRecord'),
    single_entry: Type.Ref('AccountingRecord', { description: 'The same record as single_entry=true shows it' }),
  },
  { title: 'AccountingRecordWithSingleEntry' },
);
export interface RecordWithSingleEntry {
  record: AccountingRecordDto;
  single_entry: AccountingRecordDto;
}

// ---- bulk moves -----------------------------------------------------------------------------------------

export const BulkMoveBody = Type.Object(
  {
    review_status: ReviewStatusSchema,
    records: Type.Array(
      Type.Object(
        { id: Text(255, 'An accounting record id'), version: Type.Optional(Version) },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 1000 },
    ),
    partial: Type.Optional(
      Type.Boolean({
        description:
          'true: move the records that may move and name the others in not_moved (200 all the same). Absent or false: all or nothing',
      }),
    ),
  },
  { additionalProperties: false, title: 'BulkReviewMoveRequest' },
);
export type BulkMoveInput = Static<typeof BulkMoveBody>;

export const MovedRecord = Type.Object(
  { id: Type.String(), review_status: ReviewStatusSchema, version: Type.Integer(), updated_at: Timestamp },
  { title: 'MovedAccountingRecord' },
);
const NotMoved = Type.Object(
  {
    accounting_record_id: Type.String(),
    error_code: oneOf([
      'NOT_FOUND',
      'VERSION_CONFLICT',
      'INVALID_TRANSITION',
      'CODING_REQUIRED',
      'RECEIPT_REQUIRED',
    ] as const),
    message: Type.String(),
    reason: Type.String({ description: 'The same, in plain words for a person' }),
    from: Type.Optional(ReviewStatusSchema),
    to: Type.Optional(ReviewStatusSchema),
    expected_version: Type.Optional(Type.Integer()),
    current_version: Type.Optional(Type.Integer()),
    lines: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }))),
    record_type: Type.Optional(RecordTypeSchema),
    currency: Type.Optional(Type.String({ description: 'RECEIPT_REQUIRED: the currency of the record and the rule' })),
    amount_minor: Type.Optional(
      Type.Integer({ description: "RECEIPT_REQUIRED: the record's amount, in minor units of its currency" }),
    ),
    above_minor: Type.Optional(
      Type.Integer({ description: "RECEIPT_REQUIRED: the policy's threshold, which the amount is above" }),
    ),
  },
  { title: 'NotMovedAccountingRecord' },
);
export const BulkMoveResponse = Type.Object(
  {
    items: Type.Array(MovedRecord, { description: 'The records moved, in request order' }),
    not_moved: Type.Optional(
      Type.Array(NotMoved, {
        description: 'Only with partial: each record that did not move, in request order, with why (as a refusal)',
      }),
    ),
  },
  { title: 'BulkReviewMoveResponse' },
);

// ---- required coding --------------------------------------------------------------------------------------

export const RequiredFieldsBody = Type.Object(
  { field_ids: Type.Array(Text(255), { maxItems: 50, description: 'Fields of the account; [] requires none' }) },
  { additionalProperties: false, title: 'RequiredCodingRequest' },
);
export const RequiredFieldsResponse = Type.Object(
  { items: Type.Array(Type.Object({ field_id: Type.String(), field_name: Type.String() })) },
  { title: 'RequiredCoding' },
);

// ---- review settings --------------------------------------------------------------------------------------

const AutoSubmit = Type.Boolean({
  description:
    "Records ingested in PREPARE that coding rules coded (a rule set at least one value) and whose every economic line then carries every field of the account's required coding go on to REVIEW in the ingestion itself (a MOVED event with auto_submitted: true). A record sent coded with no rule setting a value stays in PREPARE. With no required coding, nothing moves.",
});
export const ReviewSettingsBody = Type.Object(
  { auto_submit: AutoSubmit },
  { additionalProperties: false, title: 'ReviewSettingsRequest' },
);
export const ReviewSettingsResponse = Type.Object(
  {
    auto_submit: AutoSubmit,
    updated_at: Type.Union([Timestamp, Type.Null()], {
      description: 'When a setting was last set; null: never (the defaults)',
    }),
  },
  { title: 'ReviewSettings' },
);
export type ReviewSettingsDto = Static<typeof ReviewSettingsResponse>;

// ---- history ----------------------------------------------------------------------------------------------

const event = members<AccountingRecordEventsTable>();
const ACTOR_TYPES = ['client', 'user', 'system'] as const;

/** One change of a record, as answered. */
export const RecordEventShape = defineShape<AccountingRecordEventsTable>()(
  {
    event_id: event.text('event_id', Type.String()),
    version: event.integer('version', Type.Integer({ description: 'The version the change produced' })),
    type: event.text('type', oneOf(RECORD_EVENT_TYPES, 'What happened')),
    occurred_at: event.time('occurred_at', Timestamp),
    actor: event.computed(
      Type.Object({
        type: oneOf(ACTOR_TYPES, 'Who acted'),
        id: Type.String(),
        name: Type.Optional(
          Type.String({
            description:
              "A user's name as people know them (the email they sign in with), when the actor is a user of the account",
          }),
        ),
      }),
      (row) => ({
        type: isOneOf(ACTOR_TYPES, row.actor_type) ? row.actor_type : 'system',
        id: row.actor_id,
      }),
    ),
    changes: event.storedJson(
      'changes_json',
      Type.Object({}, { additionalProperties: true, description: "What changed, in the type's form (docs)" }),
    ),
  },
  { $id: 'AccountingRecordEvent', title: 'AccountingRecordEvent' },
);

export const HistoryQuery = Type.Object(
  { cursor: Type.Optional(Cursor), limit: Type.Optional(Limit(500)) },
  { additionalProperties: false },
);
export const HistoryPage = Type.Object(
  { items: Type.Array(Type.Ref('AccountingRecordEvent')), ...PageLinks },
  { title: 'AccountingRecordHistory' },
);
