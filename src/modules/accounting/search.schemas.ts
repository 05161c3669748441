import { Type, type Static } from 'typebox';
import { Cursor, Limit } from '../../http/schemas.js';
import { OrNull, oneOf, ReviewStatusSchema, SourceTypeSchema, Text } from './accounting.schema-parts.js';

/** The review queue's search (GET /internal/v1/accounting/records): its query and its page. */
/** The search's receipt filter: records without any receipt, or with at least one. */
export const RECEIPT_FILTERS = ['missing', 'present'] as const;
/** The outcomes of an export report, as the queue's exported_on filter takes them. */
export const EXPORT_OUTCOMES = ['SUCCESS', 'FAILURE'] as const;
export const SORTS = ['updated_at', '-updated_at', 'posted_at', '-posted_at', 'amount', '-amount'] as const;
const Bound = (description: string) => Type.Optional(Type.String({ format: 'date-time', description }));
const AmountBound = (description: string) => Type.Optional(Type.Number({ minimum: 0, description }));

export const RecordSearchQuery = Type.Object(
  {
    review_status: Type.Optional(ReviewStatusSchema),
    source_type: Type.Optional(SourceTypeSchema),
    'amount[gte]': AmountBound("Amount at least this, in major units of the record's own currency"),
    'amount[lte]': AmountBound("Amount at most this, in major units of the record's own currency"),
    'posted_at[gte]': Bound('Posted at or after'),
    'posted_at[lt]': Bound('Posted before'),
    vendor: Type.Optional(Text(255, "Text the vendor's name contains (case-insensitive)")),
    user: Type.Optional(Text(255, "Text the user's email contains (case-insensitive)")),
    q: Type.Optional(
      Text(
        200,
        "Free text: records with a word beginning with each of its words, among their id, memo, vendor name and invoice or bill number (case-insensitive); or, when it is a number, records of that amount (in major units of the record's own currency)",
      ),
    ),
    has_export_failure: Type.Optional(Type.Boolean({ description: 'true: the last export report was a failure' })),
    exported_on: Type.Optional(
      Type.String({
        format: 'date',
        description:
          'A UTC day (YYYY-MM-DD): records with an export report on that day (of export_outcome when given); the overview counts them so',
      }),
    ),
    export_outcome: Type.Optional(
      oneOf(EXPORT_OUTCOMES, 'With exported_on: only records whose report that day was a SUCCESS, or a FAILURE'),
    ),
    uncoded: Type.Optional(Type.Boolean({ description: 'true: at least one economic line carries no coding' })),
    receipt: Type.Optional(
      oneOf(
        RECEIPT_FILTERS,
        'missing: records with no receipt (none ingested, none attached, or all removed); present: records with at least one',
      ),
    ),
    sort: Type.Optional(oneOf(SORTS, 'Order of the results (- for descending); ties by id. Default updated_at')),
    single_entry: Type.Optional(
      Type.Boolean({ default: false, description: 'true: only the economic-impact lines, without the balancing ones' }),
    ),
    cursor: Type.Optional(Cursor),
    limit: Type.Optional(Limit(500)),
  },
  { additionalProperties: false },
);
export type RecordSearchInput = Static<typeof RecordSearchQuery>;

export const RecordSearchPage = Type.Object(
  {
    items: Type.Array(Type.Ref('AccountingRecord')),
    has_next_page: Type.Boolean(),
    next_cursor: OrNull(Type.String()),
  },
  { title: 'AccountingRecordSearchResponse' },
);
