import { Type, type Static, type TSchema, type TUnsafe } from 'typebox';
import { Cursor, Limit, Nullable, Timestamp } from '../../http/schemas.js';
import { defineShape, members } from '../../lib/shape.js';
import type { FieldValuesTable } from './field-values.tables.js';

export const MAX_BATCH = 1000;

const SvcIdDescription = 'The service identifier of the field value';
const RemoteIdDescription = 'Remote/external ID of the field value in an external system (e.g. ERP or HRIS)';
const ValueIdDescription = 'The value ID or code of the field value, usually its identifier in the remote system';

const Text255 = (description: string, examples: string[]) =>
  Type.String({ minLength: 1, maxLength: 255, description, examples });
const ValueText = Text255('The display name of the field value', ['Marketing']);
/** A union gets one message of its own (a failed union is reported once, at its path). */
const NullableText = <T extends TSchema>(text: T) =>
  Type.Union([text, Type.Null()], { errorMessage: 'must be a string of 1 to 255 characters, or null' });

/** The columns a value's answer shows (its field comes with the request: `ctx.fieldId`). */
export type ShownValueRow = Pick<
  FieldValuesTable,
  'svc_id' | 'value' | 'remote_id' | 'value_id' | 'is_disabled' | 'updated_at'
>;
export const SHOWN_VALUE_COLUMNS = ['svc_id', 'value', 'remote_id', 'value_id', 'is_disabled', 'updated_at'] as const;

const value = members<ShownValueRow, { fieldId: string }>();

/** A field value as answered: its schema, object and JSON text (and, for pages on SQLite, SQL) from one list. */
export const FieldValueShape = defineShape<ShownValueRow, { fieldId: string }>()(
  {
    svc_id: value.text('svc_id', Type.String({ description: SvcIdDescription, examples: ['efo_01j0...'] })),
    field_id: value.contextText(
      (ctx) => ctx.fieldId,
      Type.String({ description: 'The field the value belongs to', examples: ['extended_field_01j0...'] }),
    ),
    value: value.text('value', Type.String({ description: 'The display name of the field value' })),
    is_disabled: value.flag('is_disabled', Type.Boolean({ description: 'Whether the value is disabled' })),
    remote_id: value.nullableText('remote_id', Nullable(Type.String({ description: RemoteIdDescription }))),
    value_id: value.nullableText('value_id', Nullable(Type.String({ description: ValueIdDescription }))),
    updated_at: value.time('updated_at', Timestamp),
  },
  { $id: 'FieldValue', title: 'Field value' },
);
export const FieldValue = FieldValueShape.schema;
export type FieldValueDto = Static<typeof FieldValue>;

const ItemsOf = <T extends TSchema>(item: T, description: string) =>
  Type.Array(item, { minItems: 1, maxItems: MAX_BATCH, description });

export const FieldValueCreateItem = Type.Object(
  {
    value: ValueText,
    remote_id: Type.Optional(NullableText(Text255(RemoteIdDescription, ['foo_bar']))),
    value_id: Type.Optional(NullableText(Text255(ValueIdDescription, ['FooBar']))),
    is_disabled: Type.Optional(
      Nullable(Type.Boolean({ description: 'Whether the value is disabled (default false)' })),
    ),
  },
  { additionalProperties: false, title: 'Field value creation' },
);
export type FieldValueCreate = Static<typeof FieldValueCreateItem>;

export const FieldValueCreateBody = Type.Object(
  { items: ItemsOf(FieldValueCreateItem, 'The values to create, 1 to 1000') },
  { additionalProperties: false, title: 'Field value list creation' },
);

export const FieldValueItems = Type.Object(
  { items: Type.Array(Type.Ref('FieldValue')) },
  { title: 'Field value list' },
);

export const FieldValueUpdateData = Type.Object(
  {
    value: Type.Optional(NullableText(ValueText)),
    is_disabled: Type.Optional(Nullable(Type.Boolean({ description: 'Whether the value is disabled' }))),
  },
  {
    additionalProperties: false,
    title: 'Field value update data',
    description: 'Absent or null members are left unchanged.',
  },
);

/** How an update or delete item names its value: exactly one of these. */
export type Address = { svc_id: string } | { remote_id: string } | { value_id: string };
export const ADDRESS_KEYS = ['svc_id', 'remote_id', 'value_id'] as const;
export type AddressKey = (typeof ADDRESS_KEYS)[number];

const addressDescriptions: Record<AddressKey, string> = {
  svc_id: SvcIdDescription,
  remote_id: RemoteIdDescription,
  value_id: ValueIdDescription,
};
const addressProperties = {
  svc_id: Text255(SvcIdDescription, ['efo_01j0...']),
  remote_id: Text255(RemoteIdDescription, ['foo_bar']),
  value_id: Text255(ValueIdDescription, ['FooBar']),
};

export type FieldValueUpdate = Address & { data: Static<typeof FieldValueUpdateData> };

/**
 * An item addressed by exactly one of svc_id, remote_id, value_id. The members are validated once, by the
 * item's own properties, so a bad member is reported at its own path; the `oneOf` only decides which address
 * is present (its branches require one key each), so "none" or "two" is reported once, at the item.
 * The branches are the three variants of the reference document.
 */
function addressed<Item>(name: string, data: TSchema | null): TUnsafe<Item> {
  const variant = (key: AddressKey) => ({
    title: `by \`${key}\``,
    type: 'object',
    required: [key],
    properties: { [key]: { description: addressDescriptions[key] } },
  });
  return Type.Unsafe<Item>({
    title: `Field value to ${name}`,
    type: 'object',
    properties: { ...addressProperties, ...(data ? { data } : {}) },
    required: data ? ['data'] : [],
    additionalProperties: false,
    oneOf: [variant('svc_id'), variant('value_id'), variant('remote_id')],
    errorMessage: 'must have exactly one of svc_id, remote_id, value_id',
  });
}

export const FieldValueUpdateBody = Type.Object(
  { items: ItemsOf(addressed<FieldValueUpdate>('update', FieldValueUpdateData), 'The values to update, 1 to 1000') },
  { additionalProperties: false, title: 'Field value list update' },
);

export const FieldValueDeleteBody = Type.Object(
  { items: ItemsOf(addressed<Address>('delete', null), 'The values to delete, 1 to 1000') },
  { additionalProperties: false, title: 'Field value list deletion' },
);

export const FieldValueParams = Type.Object(
  { field_id: Type.String({ minLength: 1, maxLength: 255, description: 'The service identifier of the field' }) },
  { additionalProperties: false },
);

export const FieldValueIdParams = Type.Object(
  {
    field_id: Type.String({ minLength: 1, maxLength: 255, description: 'The service identifier of the field' }),
    svc_id: Type.String({ minLength: 1, maxLength: 255, description: SvcIdDescription }),
  },
  { additionalProperties: false },
);

const Filter = (description: string) =>
  Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 255 }), {
      maxItems: MAX_BATCH,
      description: `${description} (repeat the parameter; any entry matches)`,
    }),
  );

export const FieldValueSearchQuery = Type.Object(
  {
    q: Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'Text the value starts with or contains (in value or remote_id), case-insensitive',
    }),
    limit: Type.Optional(Limit(100, 20)),
    include_disabled: Type.Optional(
      Type.Boolean({ default: false, description: 'true: disabled values too (they cannot code a line)' }),
    ),
  },
  { additionalProperties: false },
);

export const FieldValueListQuery = Type.Object(
  {
    'svc_id[]': Filter('Value identifiers to filter by'),
    'remote_id[]': Filter('Remote identifiers to filter by'),
    'value_id[]': Filter('value_id identifiers to filter by'),
    value: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Exact value text to filter by' })),
    cursor: Type.Optional(Cursor),
    limit: Type.Optional(Limit(MAX_BATCH)),
  },
  { additionalProperties: false },
);

export const FieldValuePage = Type.Object(
  { items: Type.Array(Type.Ref('FieldValue')), next_cursor: Nullable(Type.String()) },
  { title: 'Page_FieldValue_' },
);

export const Empty = Type.Object({}, { additionalProperties: false, title: 'Field value deleted response' });
