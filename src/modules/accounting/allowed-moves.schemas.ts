import { Type, type Static } from 'typebox';
import { oneOf, ReviewStatusSchema, Text } from './accounting.schema-parts.js';
import type { CodingEditable } from './coding-editable.js';
import type { AccountingRecordDto } from './record.shape.js';

const Direction = oneOf(['FORWARD', 'BACK'] as const, 'FORWARD: towards EXPORTED (submit, approve); BACK: send back');

const AllowedMoveSchema = Type.Union(
  [
    Type.Object(
      { to: ReviewStatusSchema, direction: Direction, allowed: Type.Literal(true) },
      { additionalProperties: false, title: 'AllowedReviewMove' },
    ),
    Type.Object(
      {
        to: ReviewStatusSchema,
        direction: Direction,
        allowed: Type.Literal(false),
        reason_code: oneOf(
          ['FORBIDDEN', 'INVALID_TRANSITION', 'CODING_REQUIRED', 'RECEIPT_REQUIRED'] as const,
          "The error_code the move would be refused with (FORBIDDEN: the caller's scopes or role)",
        ),
        reason: Type.String({ description: 'Why not, in plain words for a person' }),
        allowed_via: Type.Optional(
          Type.Array(ReviewStatusSchema, {
            description: 'The states to move through first, one allowed move each, to get there (submit, then approve)',
          }),
        ),
      },
      { additionalProperties: false, title: 'RefusedReviewMove' },
    ),
  ],
  { title: 'ReviewMove' },
);

export type AllowedMove = Static<typeof AllowedMoveSchema>;

const CodingEditableSchema = Type.Union(
  [
    Type.Object({ editable: Type.Literal(true) }, { additionalProperties: false, title: 'EditableCoding' }),
    Type.Object(
      {
        editable: Type.Literal(false),
        reason_code: oneOf(
          ['FORBIDDEN', 'RECORD_NOT_EDITABLE'] as const,
          "The error_code a change of its coding (coding, split, merge) would be refused with (FORBIDDEN: the caller's scopes or role)",
        ),
        reason: Type.String({ description: 'Why not, in plain words for a person' }),
      },
      { additionalProperties: false, title: 'LockedCoding' },
    ),
  ],
  {
    title: 'CodingEditable',
    description:
      "Whether this caller may change the record's coding now (code its lines, split or merge them), as those requests would decide it: their scopes, and the review state (PREPARE or REVIEW). A stale version aside.",
  },
);

export const AllowedMoves = Type.Array(AllowedMoveSchema, {
  description:
    'Every review state other than the current one, in lifecycle order: whether a move there would be accepted now, for this caller, and why not. The same rules the move applies.',
});

export const RecordWithAllowedMovesSchema = Type.Object(
  {
    record: Type.Ref('AccountingRecord'),
    single_entry: Type.Ref('AccountingRecord', { description: 'The same record as single_entry=true shows it' }),
    allowed_moves: AllowedMoves,
    coding: CodingEditableSchema,
    suggestions: Type.Union([Type.Array(Type.Ref('CodingSuggestion')), Type.Null()], {
      description:
        "The record's coding suggestions at this version (as GET …/records/{record_id}/suggestions answers them), for a caller who may code (accounting.record.review or accounting.record.admin); null for any other",
    }),
  },
  { title: 'AccountingRecordForReview' },
);
export interface RecordWithAllowedMoves {
  record: AccountingRecordDto;
  single_entry: AccountingRecordDto;
  allowed_moves: AllowedMove[];
  coding: CodingEditable;
  suggestions: object[] | null;
}

export const AllowedMovesQuery = Type.Object(
  {
    ids: Type.Array(Text(255), {
      minItems: 1,
      maxItems: 500,
      description: 'Record ids, as a repeated parameter; at most 500',
    }),
  },
  { additionalProperties: false },
);

const RecordMovesSchema = Type.Object(
  {
    id: Type.String(),
    review_status: ReviewStatusSchema,
    version: Type.Integer(),
    allowed_moves: AllowedMoves,
  },
  { title: 'AccountingRecordMoves' },
);
export type RecordMoves = Static<typeof RecordMovesSchema>;

export const AllowedMovesPage = Type.Object(
  {
    items: Type.Array(RecordMovesSchema, {
      description: "In the order named; ids that are not the caller's records are left out",
    }),
  },
  { title: 'AccountingRecordsMoves' },
);
