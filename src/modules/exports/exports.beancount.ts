import { decimal, signed, type BookAccount, type Entry, type Posting } from './exports.mapping.js';

/**
 * Beancount: one transaction per record, its id as the metadata svc_id, dimensions as posting metadata. Account
 * components are capitalised words of letters, digits and dashes; every account is opened on 1970-01-01 (one
 * stable line per account, so that an append adds only the accounts new to the file).
 */

export const OPEN_DATE = '1970-01-01';

/** "7500 Other G&A" → "7500-Other-G-A": what Beancount takes as an account component. */
function component(text: string): string {
  const words = text.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
  if (words === '') return 'Unnamed';
  return /^[a-z]/.test(words) ? words[0]!.toUpperCase() + words.slice(1) : words;
}

const named = new WeakMap<BookAccount, string>();
export function beancountAccount(account: BookAccount): string {
  let known = named.get(account);
  if (known === undefined) named.set(account, (known = nameOf(account)));
  return known;
}
function nameOf(account: BookAccount): string {
  return `${account.root}:${component(`${account.code === null ? '' : `${account.code} `}${account.name}`)}`;
}

/** A Beancount string: quotes and backslashes escaped, one line. */
const str = (text: string): string => `"${text.replace(/[\r\n\t]+/g, ' ').replace(/[\\"]/g, (c) => `\\${c}`)}"`;

function posting(p: Posting): string {
  const meta = p.dimensions.map((d) => `    ${d.key}: ${str(d.value)}`);
  if (p.memo !== null) meta.push(`    memo: ${str(p.memo)}`);
  return [`  ${beancountAccount(p.account)}  ${decimal(signed(p), p.exponent)} ${p.currency}`, ...meta].join('\n');
}

export function beancountEntry(entry: Entry): string {
  return [
    `${entry.date} * ${str(entry.payee ?? '')} ${str(entry.narration)}`,
    `  svc_id: ${str(entry.recordId)}`,
    `  svc_type: ${str(entry.type)}`,
    ...(entry.invoiceNumber === null ? [] : [`  invoice: ${str(entry.invoiceNumber)}`]),
    ...entry.postings.map(posting),
  ].join('\n');
}

export function beancountHeader(entries: readonly Entry[]): string {
  const accounts = new Set<string>();
  const currencies = new Set<string>();
  for (const entry of entries) {
    for (const p of entry.postings) {
      accounts.add(beancountAccount(p.account));
      currencies.add(p.currency);
    }
  }
  return [
    '; svc export, Beancount (docs/exports.md)',
    ...[...currencies].sort().map((c) => `option "operating_currency" "${c}"`),
    ...[...currencies].sort().map((c) => `${OPEN_DATE} commodity ${c}`),
    ...[...accounts].sort().map((a) => `${OPEN_DATE} open ${a}`),
  ].join('\n');
}
