import { Type, type Static } from 'typebox';
import { Nullable, Timestamp } from '../../http/schemas.js';
import { RECEIPT_TYPES } from './receipts.types.js';

const Id = (description: string) => Type.String({ minLength: 1, maxLength: 255, description });

export const RecordParams = Type.Object({ record_id: Id('The accounting record id') }, { additionalProperties: false });
export const RecordReceiptParams = Type.Object(
  { record_id: Id('The accounting record id'), receipt_id: Id('The receipt id') },
  { additionalProperties: false },
);
export const ReceiptParams = Type.Object({ receipt_id: Id('The receipt id') }, { additionalProperties: false });

/** What a signed link carries besides the receipt's id (receipt-links.service.ts). */
export const LinkQuery = Type.Object(
  {
    account: Id('The account the link was signed for'),
    expires: Type.Integer({ minimum: 0, description: 'Seconds since the epoch when the link stops working' }),
    signature: Type.String({
      minLength: 1,
      maxLength: 100,
      pattern: '^[A-Za-z0-9_-]+$',
      description: "The link's HMAC signature (base64url)",
    }),
  },
  { additionalProperties: false },
);

export const Receipt = Type.Object(
  {
    id: Type.String({ examples: ['rcpt_01j0...'] }),
    content_type: Type.String({ description: `As recognised from the bytes: ${RECEIPT_TYPES.join(', ')}` }),
    size_bytes: Type.Integer(),
    sha256: Type.String({ description: 'Hex SHA-256 of the bytes: the same file uploaded again is the same receipt' }),
    created_at: Timestamp,
    download_uri: Type.String({ description: 'A signed link to the bytes, valid for RECEIPT_LINK_TTL_SECONDS' }),
    thumbnail_uri: Nullable(Type.String({ description: 'A signed link to a JPEG thumbnail (images; null for a PDF)' })),
  },
  { title: 'Receipt', additionalProperties: false },
);

export const UploadAnswer = Type.Object(
  {
    receipt: Receipt,
    record: Type.Ref('AccountingRecord', { description: 'The record with the receipt attached' }),
  },
  { title: 'ReceiptUploadAnswer' },
);

export const RemoveAnswer = Type.Object(
  { record: Type.Ref('AccountingRecord', { description: 'The record without the receipt' }) },
  { title: 'ReceiptRemoveAnswer' },
);

export type LinkQueryInput = Static<typeof LinkQuery>;
