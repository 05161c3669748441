/**
 * The review queue's free-text search (q): the words a record is found by, and a query's words. Each record's
 * terms are stored once, when it is written (accounting_record_terms; they come from what never changes after
 * ingestion: its id, memo, vendor name and invoice or bill number), and a query word matches a term it begins:
 * a range of an index in both dialects (byte order: keyText), where `like '%…%'` would read every row.
 * Migration 0027 holds a frozen copy of termsOf for the records written before it; change them together.
 */

/** What a record is found by. */
export interface Searchable {
  id: string;
  memo: string | null;
  vendor_name: string | null;
  invoice_number: string | null;
}

const WORD = /[\p{L}\p{N}]+/gu;
/** Terms are cut to this length (longer query words are cut alike): a term is a key of an index. */
export const TERM_LENGTH = 64;

const fold = (text: string) => text.normalize('NFC').toLowerCase().slice(0, TERM_LENGTH);

/**
 * A record's terms: its whole id, invoice number and vendor name (what people copy and paste) and each word of
 * these and of its memo, folded to lower case.
 */
export function termsOf(record: Searchable): string[] {
  const terms = new Set<string>([fold(record.id)]);
  for (const whole of [record.invoice_number, record.vendor_name]) if (whole) terms.add(fold(whole.trim()));
  for (const text of [record.memo, record.vendor_name, record.invoice_number]) {
    for (const word of text?.match(WORD) ?? []) terms.add(fold(word));
  }
  terms.delete('');
  return [...terms];
}

/** A query's words (split at spaces, trimmed of punctuation at either end), each a prefix of some term. */
export function queryWords(q: string): string[] {
  const words = q
    .split(/\s+/)
    .map((w) => fold(w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '')))
    .filter((w) => w.length > 0);
  return [...new Set(words)];
}

/** The first string after every string that begins with `prefix`, in byte (code point) order. */
export function pastPrefix(prefix: string): string {
  const points = [...prefix];
  const last = points.pop()!.codePointAt(0)!;
  return points.join('') + String.fromCodePoint(last + 1);
}

/** The query as an amount in major units ("20", "1,234.50", "-12.5" is not one), or null. */
export function queryAmount(q: string): number | null {
  const text = q.trim().replace(/,/g, '');
  if (!/^\d+(\.\d+)?$/.test(text)) return null;
  return Number(text);
}
