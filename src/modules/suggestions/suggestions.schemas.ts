import { Type, type Static } from 'typebox';
import { oneOf } from '../../http/schemas.js';
import { SIGNALS } from './suggestions.engine.js';

const Text = (max: number, description: string) => Type.String({ minLength: 1, maxLength: max, description });
const Confidence = Type.Number({
  minimum: 0,
  maximum: 1,
  description: "The share of the signal's records coded with the value, times the signal's weight (docs)",
});
const SignalSchema = oneOf(
  SIGNALS,
  'What it was learned from: records of the same VENDOR, USER, of the same type with memo words in common (MEMO), in the same AMOUNT band, or of the same RECORD_TYPE',
);

export const RecordParams = Type.Object(
  { record_id: Text(255, 'The accounting record id') },
  { additionalProperties: false },
);

export const Suggestion = Type.Object(
  {
    line_id: Type.String({ description: 'An economic line with no value in the field' }),
    field_id: Type.String(),
    field_name: Type.String(),
    svc_id: Type.String({ description: 'The value suggested: active, of an active field' }),
    value: Type.String({ description: "The value's name" }),
    confidence: Confidence,
    signal: SignalSchema,
    reason: Type.String({ examples: ['23 of the last 25 records of vendor Uber were coded 6010 Travel'] }),
    matching_records: Type.Integer({ description: "Records of the signal's history coded with the value" }),
    coded_records: Type.Integer({ description: "Records of the signal's history coded in the field" }),
  },
  // Shared (registered at the root, src/app.ts): the console's record answer carries suggestions too.
  { $id: 'CodingSuggestion', title: 'CodingSuggestion', additionalProperties: false },
);
const SuggestionRef = Type.Ref('CodingSuggestion');

export const RecordSuggestions = Type.Object(
  {
    accounting_record_id: Type.String(),
    version: Type.Integer({ description: "The record's version the suggestions are for" }),
    suggestions: Type.Array(SuggestionRef, {
      description: 'By line, then field (in creation order); empty when the history says nothing',
    }),
  },
  { title: 'RecordCodingSuggestions', additionalProperties: false },
);

export const BatchBody = Type.Object(
  {
    accounting_record_ids: Type.Array(Text(255, 'An accounting record id'), {
      minItems: 1,
      maxItems: 200,
      uniqueItems: true,
      description: 'Up to 200 records (a grid page), each once',
    }),
  },
  { additionalProperties: false, title: 'CodingSuggestionsRequest' },
);

export const BatchResponse = Type.Object(
  { items: Type.Array(RecordSuggestions, { description: 'In the order asked' }) },
  { title: 'CodingSuggestionsPage' },
);

const Ids = (description: string) =>
  Type.Optional(Type.Array(Text(255, description), { minItems: 1, maxItems: 500, uniqueItems: true }));

export const AcceptBody = Type.Object(
  {
    version: Type.Integer({
      minimum: 1,
      description: 'The version the caller saw; another one → 409 VERSION_CONFLICT',
    }),
    line_ids: Ids('Accept only for these economic lines (default: every line)'),
    field_ids: Ids('Accept only in these fields (default: every field)'),
  },
  { additionalProperties: false, title: 'AcceptCodingSuggestionsRequest' },
);
export type AcceptInput = Static<typeof AcceptBody>;

export const AcceptResponse = Type.Object(
  {
    record: Type.Ref('AccountingRecord'),
    single_entry: Type.Ref('AccountingRecord', { description: 'The same record as single_entry=true shows it' }),
    accepted: Type.Array(
      Type.Object(
        {
          line_id: Type.String(),
          field_id: Type.String(),
          svc_id: Type.String(),
          confidence: Confidence,
          signal: SignalSchema,
          reason: Type.String(),
        },
        { additionalProperties: false, title: 'AcceptedCodingSuggestion' },
      ),
      { description: 'The values set, each with why it was suggested (the CODED event names them too)' },
    ),
  },
  { title: 'AcceptedCodingSuggestions' },
);
