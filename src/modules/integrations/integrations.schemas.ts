import { Type, type Static } from 'typebox';
import { Cursor, Limit, Nullable, PageLinks } from '../../http/schemas.js';
import { INTEGRATION_STATUSES } from './integrations.tables.js';

/** RFC 3339 UTC with microseconds, as every time of the API. */
const Time = (description: string) =>
  Type.String({ format: 'date-time', description, examples: ['2026-06-11T09:09:10.422192Z'] });

const IntegrationId = Type.String({ description: 'Unique identifier for the integration', examples: ['int_abc123'] });

const members = {
  integration_id: IntegrationId,
  id: Type.String({
    description:
      "The same as integration_id. The reference's examples name the identifier id while its schema requires integration_id: both are answered, always equal, so that clients written from either work.",
  }),
  vendor: Type.String({
    description:
      'The accounting vendor/system. ERP partners must request the service to create a vendor ID for them to use this field.',
  }),
  vendor_account_id: Type.String({ description: 'The vendor account ID this integration is tied to' }),
  status: Type.Unsafe<(typeof INTEGRATION_STATUSES)[number]>({
    type: 'string',
    enum: [...INTEGRATION_STATUSES],
    description: 'Current status of the integration',
  }),
  created_at: Time('Timestamp when the integration was created'),
};

/** The reference's Integration, as the three reference operations answer it. */
export const Integration = Type.Object(members, { title: 'Integration' });
export type IntegrationDto = Static<typeof Integration>;

/** An integration as the account's list shows it: the reference's members, and when its status last changed. */
export const IntegrationListing = Type.Object(
  {
    ...members,
    vendor_name: Nullable(
      Type.String({ description: "The vendor's name as the operator gave it (svc vendors); null: no such vendor" }),
    ),
    updated_at: Time('When the integration was created or its status last changed'),
    disconnected_at: Nullable(Time('When it was last disconnected; null while ACTIVE')),
  },
  { title: 'IntegrationListing' },
);
export type IntegrationListingDto = Static<typeof IntegrationListing>;

export const CreateIntegrationBody = Type.Object(
  {
    vendor: Type.String({
      minLength: 1,
      maxLength: 64,
      description:
        'The accounting vendor/system. ERP partners must request the service to create a vendor ID for them to use this field.',
      examples: ['ERP_A'],
    }),
    vendor_account_id: Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'The vendor account ID to tie this integration to',
      examples: ['vendor_account_id'],
    }),
  },
  { additionalProperties: false, title: 'CreateIntegrationRequest' },
);
export type CreateIntegration = Static<typeof CreateIntegrationBody>;

export const IntegrationIdParams = Type.Object(
  { integration_id: Type.String({ minLength: 1, maxLength: 255, description: 'The integration_id' }) },
  { additionalProperties: false },
);

export const IntegrationListQuery = Type.Object(
  { cursor: Type.Optional(Cursor), limit: Type.Optional(Limit(1000)) },
  { additionalProperties: false },
);

export const IntegrationPage = Type.Object(
  {
    items: Type.Array(IntegrationListing),
    ...PageLinks,
  },
  { title: 'IntegrationPage' },
);
