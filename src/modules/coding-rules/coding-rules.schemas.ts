import { Type, type Static } from 'typebox';
import { Cursor, Limit, Nullable, oneOf, PageLinks, Timestamp } from '../../http/schemas.js';
import { RECORD_TYPES, SOURCE_TYPES } from '../accounting/accounting.service.js';
import { RULE_CHANGES } from './coding-rules.tables.js';

const Text = (max: number, description: string) => Type.String({ minLength: 1, maxLength: max, description });
const List = <T extends ReturnType<typeof Text> | ReturnType<typeof oneOf>>(
  item: T,
  max: number,
  description: string,
) => Type.Array(item, { minItems: 1, maxItems: max, uniqueItems: true, description });

/** Every condition given must match (AND); a list matches when any of its entries does (OR). */
export const RuleConditions = Type.Object(
  {
    record_types: Type.Optional(List(oneOf(RECORD_TYPES), RECORD_TYPES.length, "The record's type is one of these")),
    source_types: Type.Optional(List(oneOf(SOURCE_TYPES), SOURCE_TYPES.length, "The record's source is one of these")),
    vendor_name: Type.Optional(
      Type.Object(
        {
          operator: oneOf(['EQUALS', 'CONTAINS'] as const, 'Compared without regard to case'),
          value: Text(255, "The text compared with the record's vendor (merchant) name"),
        },
        { additionalProperties: false },
      ),
    ),
    merchant_category_codes: Type.Optional(
      List(
        Type.String({ pattern: '^[0-9]{4}$', description: 'A merchant category code (ISO 18245, four digits)' }),
        100,
        "The record's merchant category code (card records, as the card system sent it) is one of these",
      ),
    ),
    user_ids: Type.Optional(
      List(Text(255, 'A user id'), 100, "The record's user is one of these (by the source's id)"),
    ),
    user_emails: Type.Optional(
      List(Text(255, 'An email'), 100, "The record's user is one of these (by email, without regard to case)"),
    ),
    user_department_ids: Type.Optional(
      List(Text(255, 'A department id'), 100, "The record's user is in one of these departments (department_id)"),
    ),
    user_location_ids: Type.Optional(
      List(Text(255, 'A location id'), 100, "The record's user is at one of these locations (location_id)"),
    ),
    line_field_values: Type.Optional(
      Type.Array(
        Type.Object(
          {
            field_id: Text(255, 'A field of the account'),
            svc_ids: List(Text(255, 'A value of that field'), 100, 'The line carries one of these values'),
          },
          { additionalProperties: false },
        ),
        {
          minItems: 1,
          maxItems: 20,
          description:
            'Each entry must match (AND): some economic line of the record carries one of its values for its field, as the record is before rules apply (department is Sales, …). One entry per field',
        },
      ),
    ),
    amount: Type.Optional(
      Type.Object(
        {
          currency: Type.String({ pattern: '^[A-Z]{3}$', description: "The record's currency (ISO 4217)" }),
          min: Type.Optional(Type.Number({ minimum: 0, description: 'Inclusive lower bound, in major units' })),
          max: Type.Optional(Type.Number({ minimum: 0, description: 'Inclusive upper bound, in major units' })),
        },
        { additionalProperties: false, description: "The record's amount is in this currency and range" },
      ),
    ),
    memo_contains: Type.Optional(Text(255, "The record's memo contains this text (without regard to case)")),
    has_receipt: Type.Optional(Type.Boolean({ description: 'The record has at least one receipt (true) or none' })),
  },
  { additionalProperties: false, title: 'CodingRuleConditions' },
);
export type RuleConditionsInput = Static<typeof RuleConditions>;

export const RuleActions = Type.Object(
  {
    field_values: Type.Array(
      Type.Object(
        { field_id: Text(255, 'The field to set'), svc_id: Text(255, 'The value of that field to set it to') },
        { additionalProperties: false },
      ),
      { maxItems: 50, description: 'Set on each economic line of a matching record; one value per field' },
    ),
    memo: Type.Optional(Text(1000, 'Set as the memo of each economic line that has none')),
  },
  { additionalProperties: false, title: 'CodingRuleActions' },
);
export type RuleActionsInput = Static<typeof RuleActions>;

const Name = Text(255, 'What the rule is for, as people read it');
const Position = Type.Integer({
  minimum: 0,
  maximum: 1_000_000,
  description: 'Precedence: lower first, ties in creation order. Default: after every rule of the account',
});

export const CreateRuleBody = Type.Object(
  {
    name: Name,
    position: Type.Optional(Position),
    enabled: Type.Optional(Type.Boolean({ description: 'Default true' })),
    conditions: RuleConditions,
    actions: RuleActions,
  },
  { additionalProperties: false, title: 'CodingRuleCreate' },
);
export type CreateRuleInput = Static<typeof CreateRuleBody>;

export const UpdateRuleBody = Type.Object(
  {
    version: Type.Integer({ minimum: 1, description: "The rule's version the caller saw; another → 409" }),
    name: Type.Optional(Name),
    position: Type.Optional(Position),
    enabled: Type.Optional(Type.Boolean()),
    conditions: Type.Optional(RuleConditions),
    actions: Type.Optional(RuleActions),
  },
  { additionalProperties: false, title: 'CodingRuleUpdate' },
);
export type UpdateRuleInput = Static<typeof UpdateRuleBody>;

const Actor = Type.Object(
  {
    type: oneOf(['client', 'user', 'system'] as const),
    id: Type.String(),
    name: Type.Optional(
      Type.String({
        description:
          "A user's name as people know them (the email they sign in with), when the actor is a user of the account",
      }),
    ),
  },
  { description: 'An API client (its client_id) or a console user (their user id)' },
);

const Problem = Type.Object({
  path: Type.String(),
  reason: Type.String(),
  message: Type.String(),
  field_id: Type.String(),
  svc_id: Type.String(),
});

export const CodingRule = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    position: Type.Integer(),
    enabled: Type.Boolean(),
    status: oneOf(
      ['ACTIVE', 'DISABLED', 'BROKEN'] as const,
      'BROKEN: a value it sets was deleted or disabled since (problems says which); a broken rule applies nowhere',
    ),
    problems: Type.Array(Problem),
    version: Type.Integer(),
    conditions: RuleConditions,
    actions: RuleActions,
    created_at: Timestamp,
    updated_at: Timestamp,
    created_by: Actor,
    updated_by: Actor,
  },
  { title: 'CodingRule' },
);
export type CodingRuleDto = Static<typeof CodingRule>;

export const RuleIdParams = Type.Object(
  { rule_id: Type.String({ minLength: 1, maxLength: 255, description: 'The rule (its id)' }) },
  { additionalProperties: false },
);

export const RuleListQuery = Type.Object(
  { cursor: Type.Optional(Cursor), limit: Type.Optional(Limit(1000)) },
  { additionalProperties: false },
);

export const RulePage = Type.Object({ items: Type.Array(CodingRule), ...PageLinks }, { title: 'CodingRulePage' });

export const RuleVersion = Type.Object(
  {
    version: Type.Integer(),
    change: oneOf(RULE_CHANGES),
    name: Type.String(),
    position: Type.Integer(),
    enabled: Type.Boolean(),
    conditions: RuleConditions,
    actions: RuleActions,
    changed_at: Timestamp,
    changed_by: Actor,
  },
  { title: 'CodingRuleVersion' },
);
export const RuleVersionPage = Type.Object(
  { items: Type.Array(RuleVersion), ...PageLinks },
  { title: 'CodingRuleVersionPage' },
);
export const RuleVersionQuery = RuleListQuery;

export const Deleted = Type.Object({}, { additionalProperties: false });

// ---- preview and apply -------------------------------------------------------------------------------------

const ValueShown = Nullable(Type.Object({ svc_id: Type.String(), value: Type.String() }));

export const LineChange = Type.Object({
  line_id: Type.String(),
  field_values: Type.Array(Type.Object({ field_id: Type.String(), before: ValueShown, after: ValueShown })),
  memo: Type.Optional(Type.Object({ before: Nullable(Type.String()), after: Type.String() })),
});

export const PreviewBody = Type.Object(
  {
    rule: Type.Object(
      { conditions: RuleConditions, actions: RuleActions },
      { additionalProperties: false, description: 'An unsaved rule: only what it matches and sets' },
    ),
    overwrite: Type.Optional(Type.Boolean({ description: 'Replace values a person set too (default false)' })),
  },
  { additionalProperties: false, title: 'CodingRulePreviewRequest' },
);
export type PreviewInput = Static<typeof PreviewBody>;

export const PreviewResponse = Type.Object(
  {
    records_changed: Type.Integer({ description: 'PREPARE and REVIEW records whose lines the rule would change' }),
    sample: Type.Array(
      Type.Object({ accounting_record_id: Type.String(), version: Type.Integer(), lines: Type.Array(LineChange) }),
      { description: 'Up to 10 of them, in creation order, with each line change' },
    ),
  },
  { title: 'CodingRulePreview' },
);
export type PreviewDto = Static<typeof PreviewResponse>;

export const ApplyBody = Type.Object(
  {
    rule_ids: Type.Optional(
      List(Text(255, 'A rule'), 1000, 'Only these rules (in their precedence); default every enabled rule'),
    ),
    accounting_record_ids: Type.Optional(
      List(Text(255, 'A record'), 1000, 'Only these records (those in PREPARE or REVIEW); default all of them'),
    ),
    overwrite: Type.Optional(Type.Boolean({ description: 'Replace values a person set too (default false)' })),
  },
  { additionalProperties: false, title: 'CodingRulesApplyRequest' },
);
export type ApplyInput = Static<typeof ApplyBody>;

export const ApplyResponse = Type.Object(
  {
    records_changed: Type.Integer(),
    updated_accounting_record_ids: Type.Array(Type.String(), { description: 'In creation order' }),
  },
  { title: 'CodingRulesApplied' },
);
export type ApplyDto = Static<typeof ApplyResponse>;
