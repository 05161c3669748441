import { beancountEntry, beancountHeader } from './exports.beancount.js';
import { csvColumns, csvEntry, csvHeader } from './exports.csv.js';
import { hledgerEntry, hledgerHeader } from './exports.hledger.js';
import { DEFAULT_MAPPING, type Entry, type MappingOptions } from './exports.mapping.js';
import { NETSUITE, QUICKBOOKS, vendorEntry, vendorHeader, XERO, type VendorCsv } from './exports.vendor-csv.js';

export const EXPORT_FORMATS = ['hledger', 'beancount', 'csv', 'quickbooks', 'xero', 'netsuite'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/**
 * One writer per format over the one mapping: a header (directives, or the CSV's column names), then entries, each
 * carrying its record id where `svc export` (client/src/integration/export-file.ts) finds it to append without
 * duplicates: hledger's svc_record tag, Beancount's svc_id metadata, the CSV's first column.
 */
interface Writer {
  mediaType: string;
  extension: string;
  /** Between entries; a journal's blank line, a CSV's row end. */
  separator: string;
  header(entries: readonly Entry[]): string;
  entry(entry: Entry): string;
  /** What keeps an entry out of this format, beyond the mapping's own checks. */
  refuse(entry: Entry): string[];
  /** The most rows (after the header) one file takes (Xero's 300); none: no limit. */
  maxLines?: number | undefined;
}

const VENDORS: Record<'quickbooks' | 'xero' | 'netsuite', VendorCsv> = {
  quickbooks: QUICKBOOKS,
  xero: XERO,
  netsuite: NETSUITE,
};
const fits = (): string[] => [];

export function writerOf(
  format: ExportFormat,
  columns: readonly string[],
  mapping: MappingOptions = DEFAULT_MAPPING,
): Writer {
  switch (format) {
    case 'hledger':
      return {
        mediaType: 'text/plain; charset=utf-8',
        extension: 'journal',
        separator: '\n\n',
        header: hledgerHeader,
        entry: hledgerEntry,
        refuse: fits,
      };
    case 'beancount':
      return {
        mediaType: 'text/plain; charset=utf-8',
        extension: 'beancount',
        separator: '\n\n',
        header: beancountHeader,
        entry: beancountEntry,
        refuse: fits,
      };
    case 'csv': {
      const written = csvColumns(columns);
      return {
        mediaType: 'text/csv; charset=utf-8',
        extension: 'csv',
        separator: '\r\n',
        header: () => csvHeader(written),
        entry: (entry) => csvEntry(written, entry),
        refuse: fits,
      };
    }
    default: {
      const vendor = VENDORS[format];
      return {
        mediaType: 'text/csv; charset=utf-8',
        extension: 'csv',
        separator: '\r\n',
        header: () => vendorHeader(vendor),
        entry: (entry) => vendorEntry(vendor, entry, mapping.slots),
        refuse: (entry) => vendor.refuse(entry, mapping),
        maxLines: vendor.maxLines,
      };
    }
  }
}

/** The whole file: header, then every entry, ending with a line end. */
export function render(writer: Writer, entries: readonly Entry[]): string {
  const end = writer.separator === '\r\n' ? '\r\n' : '\n';
  return [writer.header(entries), ...entries.map(writer.entry)].join(writer.separator) + end;
}
