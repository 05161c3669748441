import { decimal, signed, type BookAccount, type Dimension, type Entry, type Posting } from './exports.mapping.js';

/**
 * hledger (and ledger) journal: one transaction per record, its id as the transaction code and as the tag
 * svc_record, dimensions as posting tags. Directives first (account, commodity) so that `hledger check --strict`
 * finds every account and commodity declared; each is one stable line, so that an append adds only new ones.
 */

/** One line of text: no line breaks, and none of what ends a description (;) or a tag value (,). */
const clean = (text: string): string =>
  text
    .replace(/[\r\n\t;,]+/g, ' ')
    .replace(/ {2,}/g, ' ')
    .trim();

/** "Expenses:7500 Other G&A": one space between words, no colon inside a name (it would open a sub-account). */
const named = new WeakMap<BookAccount, string>();
export function hledgerAccount(account: BookAccount): string {
  let known = named.get(account);
  if (known === undefined) named.set(account, (known = nameOf(account)));
  return known;
}
function nameOf(account: BookAccount): string {
  const name = clean(`${account.code === null ? '' : `${account.code} `}${account.name}`).replace(/:/g, '-');
  return `${account.root}:${name || 'Unnamed'}`;
}

const tags = (pairs: readonly (readonly [string, string | null])[]): string =>
  pairs
    .filter((pair): pair is readonly [string, string] => pair[1] !== null && clean(pair[1]) !== '')
    .map(([key, value]) => `${key}:${clean(value)}`)
    .join(', ');

/** A dimension's tag ("department:Sales"), or '' when its value cleans to nothing: one per dimension of an export. */
const tagged = new WeakMap<Dimension, string>();
function dimensionTag(d: Dimension): string {
  let known = tagged.get(d);
  if (known === undefined) tagged.set(d, (known = tags([[d.key, d.value]])));
  return known;
}

function posting(p: Posting): string {
  const parts: string[] = [];
  for (const d of p.dimensions) {
    const tag = dimensionTag(d);
    if (tag !== '') parts.push(tag);
  }
  const memo = p.memo === null ? '' : tags([['memo', p.memo]]);
  if (memo !== '') parts.push(memo);
  const comment = parts.join(', ');
  const line = `    ${hledgerAccount(p.account)}  ${decimal(signed(p), p.exponent)} ${p.currency}`;
  return comment === '' ? line : `${line}  ; ${comment}`;
}

export function hledgerEntry(entry: Entry): string {
  const description = clean(
    entry.payee === null ? entry.narration : `${entry.payee.replace(/\|/g, '/')} | ${entry.narration}`,
  );
  const comment = tags([
    ['svc_record', entry.recordId],
    ['svc_type', entry.type],
    ['invoice', entry.invoiceNumber],
  ]);
  return [`${entry.date} * (${entry.recordId}) ${description}  ; ${comment}`, ...entry.postings.map(posting)].join(
    '\n',
  );
}

export function hledgerHeader(entries: readonly Entry[]): string {
  const accounts = new Set<string>();
  const commodities = new Map<string, number>();
  for (const entry of entries) {
    for (const p of entry.postings) {
      accounts.add(hledgerAccount(p.account));
      commodities.set(p.currency, p.exponent);
    }
  }
  return [
    '; svc export, hledger journal (docs/exports.md)',
    // hledger takes a commodity directive only with a decimal mark: "1000." for a currency without minor units.
    ...[...commodities].sort().map(([currency, exponent]) => `commodity 1000.${'0'.repeat(exponent)} ${currency}`),
    ...[...accounts].sort().map((account) => `account ${account}`),
  ].join('\n');
}
