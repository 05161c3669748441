import { Type, type Static } from 'typebox';
import { BALANCING_ACCOUNT_TYPES } from '../accounting/export-selection.service.js';
import { CSV_COLUMNS, DIMENSION_COLUMN } from './exports.csv.js';
import { EXPORT_FORMATS, type ExportFormat } from './exports.formats.js';
import { ACCOUNT_PATH } from './exports.mapping.js';

const RecordId = Type.String({ minLength: 1, maxLength: 255 });
const Day = (description: string) =>
  Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', maxLength: 10, description, examples: ['2026-06-01'] });
export const AccountPath = Type.String({
  pattern: ACCOUNT_PATH,
  maxLength: 200,
  description: 'Root and one name of capitalised words, digits and dashes, e.g. Liabilities:Amex-Corporate',
});

/** The one cap of a file export's selection by ids and of its exclusions. */
export const MAX_EXPORT_IDS = 1000;

export const ExportBody = Type.Object(
  {
    format: Type.Unsafe<ExportFormat>(
      Type.String({
        enum: [...EXPORT_FORMATS],
        description:
          'hledger (or ledger) journal, Beancount, CSV with the chosen columns, or the journal-entry CSV of QuickBooks Online, Xero or NetSuite (docs/exports.md)',
      }),
    ),
    accounting_record_ids: Type.Optional(
      Type.Array(RecordId, {
        minItems: 1,
        maxItems: MAX_EXPORT_IDS,
        description:
          'These records, each of which must be READY_FOR_EXPORT and fully mapped (else 422 EXPORT_REFUSED naming each)',
      }),
    ),
    posted_from: Type.Optional(Day('READY_FOR_EXPORT records whose ERP posting date (UTC) is on or after this day')),
    posted_to: Type.Optional(Day('… and on or before this day')),
    exclude_accounting_record_ids: Type.Optional(
      Type.Array(RecordId, {
        maxItems: MAX_EXPORT_IDS,
        description: 'Left out of the selection (e.g. already refused)',
      }),
    ),
    account_field_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        description:
          "The svc field whose values are the GL accounts (default: the stored export mapping's, else the field named GL Account, or remotely GL_ACCOUNT)",
      }),
    ),
    balancing_accounts: Type.Optional(
      Type.Object(Object.fromEntries(BALANCING_ACCOUNT_TYPES.map((t) => [t, Type.Optional(AccountPath)])), {
        additionalProperties: false,
        description:
          "The account of the balancing line, by balancing_account_type; a type not given takes the account's stored export mapping, else the default (docs/exports.md)",
      }),
    ),
    columns: Type.Optional(
      Type.Array(
        Type.Union([
          Type.Union(CSV_COLUMNS.map((c) => Type.Literal(c))),
          Type.String({ pattern: DIMENSION_COLUMN, maxLength: 120 }),
        ]),
        { minItems: 1, maxItems: 40, description: 'CSV only: the columns, reference always first (docs/exports.md)' },
      ),
    ),
  },
  { additionalProperties: false },
);
export type ExportInput = Static<typeof ExportBody>;

export const ExportFile = Type.String({
  description:
    'The file: a journal (text/plain) or CSV (text/csv), with Content-Disposition attachment; X-Svc-Exported-Count says how many records it holds',
});
