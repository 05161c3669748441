import { Type, type Static } from 'typebox';
import { Nullable, Timestamp } from '../../http/schemas.js';

const Id = (description: string) => Type.String({ minLength: 1, maxLength: 255, description });

/** A draft's request body is at most this many bytes (the route's body limit): 413 PAYLOAD_TOO_LARGE beyond. */
export const DRAFT_LIMIT_BYTES = 64 * 1024;

export const RecordParams = Type.Object({ record_id: Id('The accounting record id') }, { additionalProperties: false });

export const DraftValue = Type.Object(
  {
    field_id: Id('The field of the cell'),
    svc_id: Nullable(Id('The value chosen; null: the cell was emptied (the field removed from the line)')),
    label: Type.String({ maxLength: 255, description: "The value's name, as the console showed it" }),
  },
  { title: 'RecordDraftValue', additionalProperties: false },
);

export const DraftLine = Type.Object(
  {
    line_id: Id('An economic line of the record'),
    values: Type.Array(DraftValue, { maxItems: 100, description: 'The cells of the line that were edited' }),
  },
  { title: 'RecordDraftLine', additionalProperties: false },
);

export const DraftBody = Type.Object(
  {
    version: Type.Integer({ minimum: 1, description: "The record's version the edits started from" }),
    lines: Type.Array(DraftLine, { maxItems: 1000 }),
  },
  { additionalProperties: false },
);

export const RecordDraft = Type.Object(
  {
    accounting_record_id: Type.String(),
    version: Type.Integer({ description: "The record's version the edits started from" }),
    lines: Type.Array(DraftLine),
    updated_at: Timestamp,
  },
  { title: 'RecordDraft', additionalProperties: false },
);

export const DraftAnswer = Type.Object(
  { draft: Nullable(RecordDraft) },
  { title: 'RecordDraftAnswer', additionalProperties: false },
);

export const Deleted = Type.Object({}, { additionalProperties: false });

export type DraftInput = Static<typeof DraftBody>;
export type DraftLineDto = Static<typeof DraftLine>;
export type RecordDraftDto = Static<typeof RecordDraft>;
