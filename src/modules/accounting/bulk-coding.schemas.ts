import { Type, type Static } from 'typebox';
import { Text } from './accounting.schema-parts.js';
import type { AccountingRecordDto } from './record.shape.js';
import { CodeLinesBody } from './review.schemas.js';

/** Bulk coding (the console's coding grid): many records' lines in one request, each record saved on its own. */

export const MAX_BULK_CODING_ITEMS = 200;

export const BulkCodingBody = Type.Object(
  {
    items: Type.Array(
      Type.Object(
        {
          record_id: Text(255, 'A record under review (PREPARE or REVIEW), once in the request'),
          version: CodeLinesBody.properties.version,
          lines: CodeLinesBody.properties.lines,
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: MAX_BULK_CODING_ITEMS, description: 'Up to 200 records, each coded as one coding does' },
    ),
  },
  { additionalProperties: false, title: 'BulkCodingRequest' },
);
export type BulkCodingInput = Static<typeof BulkCodingBody>;

const ItemError = Type.Object(
  {
    error_code: Type.String({
      description: 'VERSION_CONFLICT, RECORD_NOT_EDITABLE, INVALID_CODING, INVALID_REQUEST or NOT_FOUND',
    }),
    message: Type.String(),
    details: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]),
  },
  {
    title: 'BulkCodingItemError',
    description:
      "The error the one-record coding would answer for this item (its paths are the item's own: /lines/0/…)",
  },
);

const Saved = Type.Object(
  {
    record_id: Type.String(),
    status: Type.Literal('SAVED'),
    record: Type.Ref('AccountingRecord', { description: 'The record as coded: its new version and updated_at' }),
  },
  { title: 'BulkCodingItemSaved', additionalProperties: false },
);
const Refused = Type.Object(
  { record_id: Type.String(), status: Type.Literal('REFUSED'), error: ItemError },
  { title: 'BulkCodingItemRefused', additionalProperties: false },
);

export const BulkCodingResponse = Type.Object(
  { items: Type.Array(Type.Union([Saved, Refused]), { description: 'One per item, in request order' }) },
  { title: 'BulkCodingResponse' },
);

export type BulkCodingItemResult =
  | { record_id: string; status: 'SAVED'; record: AccountingRecordDto }
  | {
      record_id: string;
      status: 'REFUSED';
      error: { error_code: string; message: string; details: Record<string, unknown> | null };
    };
