import { csvField } from './exports.csv.js';
import {
  decimal,
  signed,
  type Dimension,
  type DimensionSlot,
  type DimensionSlots,
  type Entry,
  type MappingOptions,
  type Posting,
} from './exports.mapping.js';

/**
 * The journal-entry CSVs of three ERPs, each to the column specification of its vendor's import (docs/exports.md,
 * "ERP CSVs"): one row per posting, an entry's rows together, the record id where the import keeps it.
 */
interface Column {
  header: string;
  cell(entry: Entry, p: Posting, slots: DimensionSlots): string;
}

export interface VendorCsv {
  columns: readonly Column[];
  /** What keeps an entry out of this import (each problem names its line); none: it fits. */
  refuse(entry: Entry, mapping: MappingOptions): string[];
  /** The most rows (after the header) one file of this import takes; none: no limit. */
  maxLines?: number;
}

const [y, m, d] = [0, 1, 2];
const parts = (date: string) => date.split('-');
const dayMonthYear = (date: string) => `${parts(date)[d]}/${parts(date)[m]}/${parts(date)[y]}`;
const monthDayYear = (date: string) => `${parts(date)[m]}/${parts(date)[d]}/${parts(date)[y]}`;
const debit = (p: Posting) => (p.side === 'DEBIT' ? decimal(p.minor, p.exponent) : '');
const credit = (p: Posting) => (p.side === 'CREDIT' ? decimal(p.minor, p.exponent) : '');
/** The value of the field the mapping puts in a slot, else of the dimension keyed by the slot's name. */
function dimension(p: Posting, slot: DimensionSlot, slots: DimensionSlots): string {
  const fieldId = slots[slot];
  const found =
    fieldId === null ? p.dimensions.find((dim) => dim.key === slot) : p.dimensions.find((d) => d.fieldId === fieldId);
  return found?.value ?? '';
}

/** Xero's tracking categories of a line: the mapping's tracking fields in order, else the line's dimensions. */
function tracking(p: Posting, slots: DimensionSlots): readonly Dimension[] {
  if (slots.tracking.length === 0) return p.dimensions;
  return slots.tracking.flatMap((id) => p.dimensions.filter((d) => d.fieldId === id));
}

/** Where a line's account without a code comes from, and how its code is given. */
function codeMissing(p: Posting, i: number): string {
  if (p.balancing !== null) {
    return `line ${i + 1} books the ${p.balancing} balancing account ${p.account.root}:${p.account.name}, which has no account code; Xero needs one: map ${p.balancing} to an account with its code (balancing_accounts of the export mapping, e.g. ${p.account.root}:800-${p.account.name.replace(/[^A-Za-z0-9]+/g, '-')})`;
  }
  return `line ${i + 1}'s GL account ${p.account.name} has no account code; Xero needs one: a GL value opened by its number ("6010 Meals") or with a remote id`;
}

/** "at most two decimals": the ERPs whose amount fields hold no more. */
function atMostTwoDecimals(vendor: string, entry: Entry): string[] {
  const exponent = entry.postings[0]?.exponent ?? 0;
  return exponent > 2
    ? [`its currency ${entry.postings[0]!.currency} has ${exponent} decimals; ${vendor} takes at most 2`]
    : [];
}

/** QuickBooks Online's Journal No (a journal entry's DocNumber) holds at most this many characters. */
export const QUICKBOOKS_JOURNAL_NO = 21;
/**
 * The record id's last 21 characters: its 80 random bits and the low end of its time (lib/ids.ts), unique in
 * practice, and found again in the id as typed. The whole id is in the Memo column.
 */
export const journalNoOf = (recordId: string): string => recordId.slice(-QUICKBOOKS_JOURNAL_NO);

/** A record in another currency than the home one, where the import books the home currency only. */
function foreignCurrency(entry: Entry, mapping: MappingOptions, vendor: string, remedy: string): string[] {
  const currency = entry.postings[0]?.currency;
  if (currency === undefined || currency === mapping.homeCurrency) return [];
  return [
    `its currency ${currency} is not the home currency ${mapping.homeCurrency} (home_currency of the export mapping); ${vendor} ${remedy}`,
  ];
}

/**
 * QuickBooks Online, Import data → Journal entries (account numbers off: accounts by name). With Multicurrency on,
 * the Currency column books each entry in its currency (at QuickBooks' rate of the day: no Exchange Rate column).
 */
export const QUICKBOOKS: VendorCsv = {
  columns: [
    { header: 'Journal No', cell: (e) => journalNoOf(e.recordId) },
    { header: 'Journal Date', cell: (e) => monthDayYear(e.date) },
    { header: 'Currency', cell: (_, p) => p.currency },
    { header: 'Memo', cell: (e) => e.recordId },
    { header: 'Account Name', cell: (_, p) => p.account.name },
    { header: 'Description', cell: (e, p) => p.memo ?? e.narration },
    { header: 'Debits', cell: (_, p) => debit(p) },
    { header: 'Credits', cell: (_, p) => credit(p) },
    { header: 'Name', cell: (e) => e.payee ?? '' },
    { header: 'Class', cell: (_, p, slots) => dimension(p, 'class', slots) },
    { header: 'Location', cell: (_, p, slots) => dimension(p, 'location', slots) },
  ],
  refuse: (entry, mapping) => [
    ...atMostTwoDecimals('QuickBooks Online', entry),
    ...(mapping.quickbooksMulticurrency
      ? []
      : foreignCurrency(
          entry,
          mapping,
          'QuickBooks Online',
          'books other currencies only with Multicurrency on (then set quickbooks_multicurrency of the export mapping)',
        )),
  ],
};

/** Xero imports at most this many journal lines in one file. */
export const XERO_MAX_LINES = 300;

/** Xero, Manual journals → Import: rows of one journal share Narration and Date; accounts by code. */
export const XERO: VendorCsv = {
  columns: [
    { header: 'Narration', cell: (e) => `${e.recordId} ${e.payee ?? e.narration}` },
    { header: 'Date', cell: (e) => dayMonthYear(e.date) },
    { header: 'Description', cell: (e, p) => p.memo ?? e.narration },
    { header: 'AccountCode', cell: (_, p) => p.account.code ?? '' },
    { header: 'TaxRate', cell: () => 'Tax Exempt' },
    { header: 'Amount', cell: (_, p) => decimal(signed(p), p.exponent) },
    { header: 'TrackingName1', cell: (_, p, slots) => tracking(p, slots)[0]?.field ?? '' },
    { header: 'TrackingOption1', cell: (_, p, slots) => tracking(p, slots)[0]?.value ?? '' },
    { header: 'TrackingName2', cell: (_, p, slots) => tracking(p, slots)[1]?.field ?? '' },
    { header: 'TrackingOption2', cell: (_, p, slots) => tracking(p, slots)[1]?.value ?? '' },
  ],
  refuse: (entry, mapping) => [
    ...foreignCurrency(entry, mapping, 'Xero', "imports manual journals in the organisation's base currency only"),
    ...entry.postings.flatMap((p, i) => (p.account.code === null ? [codeMissing(p, i)] : [])),
    ...entry.postings.flatMap((p, i) =>
      tracking(p, mapping.slots).length > 2
        ? [
            `line ${i + 1} has ${p.dimensions.length} dimensions; Xero tracks at most 2 (choose them: tracking_fields of the export mapping)`,
          ]
        : [],
    ),
  ],
  maxLines: XERO_MAX_LINES,
};

/** NetSuite, Import CSV Records → Transactions → Journal Entry: External ID groups the lines. */
export const NETSUITE: VendorCsv = {
  columns: [
    { header: 'External ID', cell: (e) => e.recordId },
    { header: 'Date', cell: (e) => monthDayYear(e.date) },
    { header: 'Currency', cell: (_, p) => p.currency },
    { header: 'Memo', cell: (e) => e.narration },
    {
      header: 'Account',
      cell: (_, p) => (p.account.code === null ? p.account.name : `${p.account.code} ${p.account.name}`),
    },
    { header: 'Debit', cell: (_, p) => debit(p) },
    { header: 'Credit', cell: (_, p) => credit(p) },
    { header: 'Line Memo', cell: (_, p) => p.memo ?? '' },
    { header: 'Name', cell: (e) => e.payee ?? '' },
    { header: 'Department', cell: (_, p, slots) => dimension(p, 'department', slots) },
    { header: 'Class', cell: (_, p, slots) => dimension(p, 'class', slots) },
    { header: 'Location', cell: (_, p, slots) => dimension(p, 'location', slots) },
  ],
  refuse: (entry) => [
    ...atMostTwoDecimals('NetSuite', entry),
    ...(entry.postings.some((p) => p.minor >= 10 ** (10 + p.exponent))
      ? ['an amount has more than 10 digits before the decimal point, which NetSuite takes at most']
      : []),
  ],
};

export const vendorHeader = (csv: VendorCsv): string => csv.columns.map((c) => csvField(c.header)).join(',');
export const vendorEntry = (csv: VendorCsv, entry: Entry, slots: DimensionSlots): string =>
  entry.postings.map((p) => csv.columns.map((c) => csvField(c.cell(entry, p, slots))).join(',')).join('\r\n');
