import { Type, type Static } from 'typebox';
import { Timestamp } from '../../http/schemas.js';
import { RecordTypeSchema } from './accounting.schema-parts.js';
import { RECORD_TYPES } from './ledger.js';

/** The account's receipt policy (docs/receipts.md, "Receipt policy"): one rule per currency. */

const ReceiptRuleSchema = Type.Object(
  {
    currency: Type.String({
      minLength: 3,
      maxLength: 3,
      description: 'ISO 4217 currency code: the rule applies to records in this currency',
      examples: ['USD'],
    }),
    above_minor: Type.Integer({
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      description:
        'In minor units of the currency (cents for USD): a record whose amount is strictly greater needs a receipt',
      examples: [7500],
    }),
    record_types: Type.Array(RecordTypeSchema, {
      minItems: 1,
      maxItems: RECORD_TYPES.length,
      uniqueItems: true,
      description: 'The record types the rule applies to',
    }),
  },
  { additionalProperties: false, title: 'ReceiptRule' },
);
export type ReceiptRule = Static<typeof ReceiptRuleSchema>;

const Rules = Type.Array(ReceiptRuleSchema, {
  maxItems: 200,
  description:
    "At most one rule per currency. A record of a listed type, in the rule's currency, with an amount above above_minor and no receipt cannot move (or be created) READY_FOR_EXPORT: 422 RECEIPT_REQUIRED. []: no receipt is required.",
});

export const ReceiptPolicyBody = Type.Object(
  { rules: Rules },
  { additionalProperties: false, title: 'ReceiptPolicyRequest' },
);
export const ReceiptPolicyResponse = Type.Object(
  {
    rules: Rules,
    updated_at: Type.Union([Timestamp, Type.Null()], {
      description: 'When the policy was last set; null: never (no receipt is required)',
    }),
  },
  { title: 'ReceiptPolicy' },
);
export type ReceiptPolicyDto = Static<typeof ReceiptPolicyResponse>;
