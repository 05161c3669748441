import { Type, type Static } from 'typebox';
import { Timestamp } from '../../http/schemas.js';
import { BALANCING_ACCOUNT_TYPES } from '../accounting/export-selection.service.js';
import { AccountPath } from './exports.schemas.js';

/** An account's stored export mapping (docs/exports.md, "The stored mapping"). */

const FieldId = (description: string) => Type.String({ minLength: 1, maxLength: 255, description });
const FieldOrNone = (description: string) => Type.Union([FieldId(description), Type.Null()]);

const SLOT_OF = {
  department: 'NetSuite Department',
  class: 'QuickBooks Online and NetSuite Class',
  location: 'QuickBooks Online and NetSuite Location',
} as const;

export const ExportMappingBody = Type.Object(
  {
    account_field_id: Type.Optional(
      FieldOrNone(
        'The field whose values are the GL accounts; null or absent: the field named GL Account, or remotely GL_ACCOUNT',
      ),
    ),
    balancing_accounts: Type.Optional(
      Type.Object(Object.fromEntries(BALANCING_ACCOUNT_TYPES.map((t) => [t, Type.Optional(AccountPath)])), {
        additionalProperties: false,
        description:
          'The account of the balancing line, by balancing_account_type; a type not given books its default (docs/exports.md)',
      }),
    ),
    dimension_fields: Type.Optional(
      Type.Object(
        Object.fromEntries(
          Object.entries(SLOT_OF).map(([slot, column]) => [
            slot,
            Type.Optional(
              FieldOrNone(`The field whose value fills ${column}; null or absent: the field named "${slot}"`),
            ),
          ]),
        ),
        { additionalProperties: false, description: "The fields that fill the ERPs' dimension columns" },
      ),
    ),
    tracking_fields: Type.Optional(
      Type.Array(FieldId('A field'), {
        maxItems: 2,
        uniqueItems: true,
        description:
          "Xero's two tracking categories, in order; []: a line's first two dimensions (a line with more is refused)",
      }),
    ),
    home_currency: Type.Optional(
      Type.String({
        pattern: '^[A-Z]{3}$',
        description:
          "The company's home (base) currency, ISO 4217; absent: USD. Xero's import, and QuickBooks Online's without Multicurrency, book it alone: a record in another currency is refused for them",
        examples: ['EUR'],
      }),
    ),
    quickbooks_multicurrency: Type.Optional(
      Type.Boolean({
        description:
          'Whether the QuickBooks Online company has Multicurrency on: then its Currency column books records in any currency; absent: false (records outside home_currency refused)',
      }),
    ),
  },
  { additionalProperties: false, title: 'ExportMappingRequest' },
);
export type ExportMappingInput = Static<typeof ExportMappingBody>;

export const ExportMappingResponse = Type.Object(
  {
    account_field_id: Type.Union([Type.String(), Type.Null()], {
      description: 'The GL account field; null: the field named GL Account, or remotely GL_ACCOUNT',
    }),
    balancing_accounts: Type.Object(Object.fromEntries(BALANCING_ACCOUNT_TYPES.map((t) => [t, Type.String()])), {
      description: 'The account each balancing line books, by balancing_account_type: the stored one or the default',
    }),
    dimension_fields: Type.Object(
      {
        department: Type.Union([Type.String(), Type.Null()]),
        class: Type.Union([Type.String(), Type.Null()]),
        location: Type.Union([Type.String(), Type.Null()]),
      },
      { description: 'The field of each ERP dimension column; null: the field named as the column' },
    ),
    tracking_fields: Type.Array(Type.String(), { description: "Xero's tracking categories' fields, in order" }),
    home_currency: Type.String({ description: 'The home (base) currency: the stored one or USD' }),
    quickbooks_multicurrency: Type.Boolean({ description: 'Whether QuickBooks Online books other currencies' }),
    updated_at: Type.Union([Timestamp, Type.Null()], {
      description: 'When the mapping was last set; null: never (the defaults)',
    }),
  },
  { title: 'ExportMapping' },
);
export type ExportMappingDto = Static<typeof ExportMappingResponse>;
