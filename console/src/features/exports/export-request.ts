import type { ExportFileRequest, ExportFormat } from '@svc/client';

/**
 * The formats of the export route, in the order the page offers them, with what each is (docs/exports.md). The
 * compiler holds the list complete: a format the API adds and this list lacks fails the build.
 */
export const FORMATS = {
  hledger: { label: 'hledger or ledger journal', hint: 'A plain-text journal; hledger and ledger read it.' },
  beancount: { label: 'Beancount', hint: 'A Beancount file, accounts opened at their first use.' },
  csv: { label: 'CSV with chosen columns', hint: 'One row per posting; choose the columns below.' },
  quickbooks: { label: 'QuickBooks Online journal entries (CSV)', hint: 'QuickBooks Online’s journal-entry import.' },
  xero: { label: 'Xero manual journals (CSV)', hint: 'Xero’s manual-journal import.' },
  netsuite: { label: 'NetSuite journal entries (CSV)', hint: 'NetSuite’s CSV import of journal entries.' },
} as const satisfies Record<ExportFormat, { label: string; hint: string }>;
export const FORMAT_ORDER = Object.keys(FORMATS).filter((f): f is ExportFormat => Object.hasOwn(FORMATS, f));
export const isFormat = (value: string): value is ExportFormat => Object.hasOwn(FORMATS, value);

/** The generic CSV's columns (exports.csv.ts), with the default ones ticked; `reference` is always first. */
export const CSV_COLUMNS = [
  { column: 'reference', label: 'Reference (the record id)', byDefault: true },
  { column: 'date', label: 'Date', byDefault: true },
  { column: 'type', label: 'Record type', byDefault: false },
  { column: 'payee', label: 'Payee', byDefault: true },
  { column: 'narration', label: 'Narration', byDefault: true },
  { column: 'invoice_number', label: 'Invoice number', byDefault: false },
  { column: 'account', label: 'Account (full path)', byDefault: false },
  { column: 'account_code', label: 'Account code', byDefault: true },
  { column: 'account_name', label: 'Account name', byDefault: true },
  { column: 'account_root', label: 'Account root', byDefault: false },
  { column: 'debit', label: 'Debit', byDefault: true },
  { column: 'credit', label: 'Credit', byDefault: true },
  { column: 'amount', label: 'Signed amount', byDefault: false },
  { column: 'currency', label: 'Currency', byDefault: true },
  { column: 'memo', label: 'Memo', byDefault: true },
] as const;
export type CsvColumn = (typeof CSV_COLUMNS)[number]['column'];
export const DEFAULT_COLUMNS: readonly CsvColumn[] = CSV_COLUMNS.filter((c) => c.byDefault).map((c) => c.column);

/** The route's caps (exports.schemas.ts): ids of a selection, columns of a CSV. */
export const MAX_IDS = 1000;
const MAX_COLUMNS = 40;
const DIMENSION = /^[a-z][a-z0-9-]*$/;

export type Selection = 'ready' | 'range' | 'ids';

/** The form as typed; turned into the route's body by `requestOf`, which says what is wrong next to each input. */
export interface ExportDraft {
  format: ExportFormat;
  selection: Selection;
  postedFrom: string;
  postedTo: string;
  /** Record ids separated by commas, spaces or lines. */
  ids: string;
  columns: readonly CsvColumn[];
  /** Dimension keys separated by commas or spaces (each becomes a `dimension:<key>` column). */
  dimensions: string;
}

export const emptyDraft = (): ExportDraft => ({
  format: 'hledger',
  selection: 'ready',
  postedFrom: '',
  postedTo: '',
  ids: '',
  columns: DEFAULT_COLUMNS,
  dimensions: '',
});

export type DraftProblems = Partial<Record<'range' | 'ids' | 'columns', string>>;

const split = (text: string) => [...new Set(text.split(/[\s,;]+/).filter((x) => x !== ''))];

/** The route's body for the draft, or what keeps it from being sent (the service checks again). */
export function requestOf(
  draft: ExportDraft,
): { body: ExportFileRequest; problems: null } | { body: null; problems: DraftProblems } {
  const problems: DraftProblems = {};
  const body: ExportFileRequest = { format: draft.format };
  if (draft.selection === 'range') {
    if (draft.postedFrom === '' && draft.postedTo === '') problems.range = 'Give a first day, a last day, or both.';
    else if (draft.postedFrom !== '' && draft.postedTo !== '' && draft.postedTo < draft.postedFrom) {
      problems.range = 'The last day must be on or after the first.';
    }
    if (draft.postedFrom !== '') body.posted_from = draft.postedFrom;
    if (draft.postedTo !== '') body.posted_to = draft.postedTo;
  }
  if (draft.selection === 'ids') {
    const ids = split(draft.ids);
    if (ids.length === 0) problems.ids = 'Give at least one record id.';
    else if (ids.length > MAX_IDS) problems.ids = `Give at most ${MAX_IDS} record ids (${ids.length} given).`;
    else if (ids.some((id) => id.length > 255)) problems.ids = 'A record id is at most 255 characters.';
    body.accounting_record_ids = ids;
  }
  if (draft.format === 'csv') {
    const dimensions = split(draft.dimensions.toLowerCase());
    const wrong = dimensions.filter((d) => !DIMENSION.test(d) || d.length > 110);
    const columns = [
      'reference',
      ...CSV_COLUMNS.map((c) => c.column).filter((c) => c !== 'reference' && draft.columns.includes(c)),
      ...dimensions.map((d) => `dimension:${d}`),
    ];
    if (wrong.length > 0) {
      problems.columns = `A dimension is a lower-case key of letters, digits and dashes: not ${wrong.join(', ')}.`;
    } else if (columns.length > MAX_COLUMNS) problems.columns = `Choose at most ${MAX_COLUMNS} columns.`;
    body.columns = columns;
  }
  return Object.keys(problems).length > 0 ? { body: null, problems } : { body, problems: null };
}
