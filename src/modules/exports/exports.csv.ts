import { decimal, signed, type Entry, type Posting } from './exports.mapping.js';
import { hledgerAccount } from './exports.hledger.js';

/**
 * The generic CSV: one row per posting, the columns the caller chooses (reference, the record id, always first).
 * RFC 4180: comma separated, CRLF line ends, a field quoted when it holds a comma, a quote or a line break.
 */

export const CSV_COLUMNS = [
  'reference',
  'date',
  'type',
  'payee',
  'narration',
  'invoice_number',
  'account',
  'account_code',
  'account_name',
  'account_root',
  'debit',
  'credit',
  'amount',
  'currency',
  'memo',
] as const;
export type CsvColumn = (typeof CSV_COLUMNS)[number];
/** A dimension's column: `dimension:<key>` (docs/exports.md), e.g. dimension:department. */
export const DIMENSION_COLUMN = '^dimension:[a-z][a-z0-9-]*$';

export const DEFAULT_CSV_COLUMNS: readonly string[] = [
  'reference',
  'date',
  'payee',
  'narration',
  'account_code',
  'account_name',
  'debit',
  'credit',
  'currency',
  'memo',
];

export const csvField = (text: string): string => (/[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);

function cell(column: string, entry: Entry, p: Posting): string {
  const amount = (minor: number) => decimal(minor, p.exponent);
  switch (column) {
    case 'reference':
      return entry.recordId;
    case 'date':
      return entry.date;
    case 'type':
      return entry.type;
    case 'payee':
      return entry.payee ?? '';
    case 'narration':
      return entry.narration;
    case 'invoice_number':
      return entry.invoiceNumber ?? '';
    case 'account':
      return hledgerAccount(p.account);
    case 'account_code':
      return p.account.code ?? '';
    case 'account_name':
      return p.account.name;
    case 'account_root':
      return p.account.root;
    case 'debit':
      return p.side === 'DEBIT' ? amount(p.minor) : '';
    case 'credit':
      return p.side === 'CREDIT' ? amount(p.minor) : '';
    case 'amount':
      return amount(signed(p));
    case 'currency':
      return p.currency;
    case 'memo':
      return p.memo ?? '';
    default: {
      const key = column.slice('dimension:'.length);
      return p.dimensions.find((d) => d.key === key)?.value ?? '';
    }
  }
}

/** The columns as written: reference first, each once. */
export const csvColumns = (chosen: readonly string[]): string[] => [
  'reference',
  ...new Set(chosen.filter((c) => c !== 'reference')),
];

export const csvHeader = (columns: readonly string[]): string => columns.map(csvField).join(',');

export const csvEntry = (columns: readonly string[], entry: Entry): string =>
  entry.postings.map((p) => columns.map((c) => csvField(cell(c, entry, p))).join(',')).join('\r\n');
