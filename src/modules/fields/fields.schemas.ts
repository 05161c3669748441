import { Type, type Static } from 'typebox';
import { Cursor, Limit, Nullable, Timestamp } from '../../http/schemas.js';
import { defineShape, members } from '../../lib/shape.js';
import type { FieldsTable } from './fields.tables.js';

export const FieldGroupSchema = Type.Union([Type.Literal('ACCOUNTING'), Type.Literal('USER'), Type.Literal('ERP')], {
  description: 'The category of the field: accounting-, user- or ERP-related.',
  errorMessage: 'must be one of: ACCOUNTING, USER, ERP',
});

const Name = Type.String({ minLength: 1, maxLength: 255, description: 'The name of the field' });
const RemoteId = Type.String({
  minLength: 1,
  maxLength: 255,
  description: 'Remote/external ID of the field in an external system (e.g. ERP or HRIS)',
});

const field = members<FieldsTable>();

/** A field as answered, from its stored row. */
export const FieldShape = defineShape<FieldsTable>()(
  {
    svc_id: field.text(
      'svc_id',
      Type.String({ description: 'The service identifier of the field', examples: ['extended_field_01j0...'] }),
    ),
    name: field.text('name', Type.String({ description: 'The name of the field' })),
    group: field.text('field_group', FieldGroupSchema),
    remote_id: field.nullableText('remote_id', Nullable(Type.String())),
    is_disabled: field.flag('is_disabled', Type.Boolean({ description: 'Whether the field is disabled' })),
    updated_at: field.time('updated_at', Timestamp),
  },
  { $id: 'Field', title: 'Field' },
);
export const Field = FieldShape.schema;
export type FieldDto = Static<typeof Field>;

export const FieldCreateBody = Type.Object(
  {
    name: Name,
    group: FieldGroupSchema,
    remote_id: Type.Optional(Nullable(RemoteId)),
    // The reference takes an integration's id here. svc has no integrations yet, so an id could name nothing: it
    // is refused rather than dropped (a one-branch union, for the message's sake). null is "no integration".
    integration_id: Type.Optional(
      Type.Union([Type.Null()], {
        description: 'null or absent: svc has no integrations yet, so a field cannot be created for one',
        errorMessage: 'must be null: svc has no integrations yet, so a field cannot be created for one',
      }),
    ),
    is_disabled: Type.Optional(Nullable(Type.Boolean())),
  },
  { additionalProperties: false, title: 'FieldCreateBody' },
);
export type FieldCreate = Static<typeof FieldCreateBody>;

export const FieldUpdateBody = Type.Object(
  {
    name: Type.Optional(Nullable(Name)),
    is_disabled: Type.Optional(Nullable(Type.Boolean())),
  },
  { additionalProperties: false, title: 'FieldUpdateBody', description: 'Absent or null members are left unchanged.' },
);
export type FieldUpdate = Static<typeof FieldUpdateBody>;

export const FieldIdParams = Type.Object(
  { id: Type.String({ minLength: 1, maxLength: 255, description: 'The service identifier of the field' }) },
  { additionalProperties: false },
);

export const FieldListQuery = Type.Object(
  {
    'field_id[]': Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 255 }), {
        maxItems: 1000,
        description: 'Field identifiers to filter by (repeat the parameter)',
      }),
    ),
    cursor: Type.Optional(Cursor),
    limit: Type.Optional(Limit(1000)),
  },
  { additionalProperties: false },
);

export const FieldPage = Type.Object(
  { items: Type.Array(Type.Ref('Field')), next_cursor: Nullable(Type.String()) },
  { title: 'Page_Field_' },
);

export const Empty = Type.Object({}, { additionalProperties: false, title: 'Empty' });
