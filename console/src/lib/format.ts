/** Money, dates and names as the console shows them. Dates are shown in UTC, as the API stores them. */

export interface Money {
  amount: number;
  currency: string;
}

const numberFormats = new Map<string, Intl.NumberFormat>();

function numberFormat(currency: string): Intl.NumberFormat {
  let format = numberFormats.get(currency);
  if (!format) {
    try {
      format = new Intl.NumberFormat('en-US', { style: 'currency', currency, currencyDisplay: 'code' });
    } catch {
      format = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 4 });
    }
    numberFormats.set(currency, format);
  }
  return format;
}

/** "1,234.50 USD": the currency's own number of decimals, the code after the number. */
export function formatMoney(money: Money | null | undefined): string {
  if (!money) return '—';
  const digits = numberFormat(money.currency)
    .formatToParts(money.amount)
    .filter((part) => part.type !== 'currency' && part.type !== 'literal')
    .map((part) => part.value)
    .join('');
  return `${digits} ${money.currency}`;
}

const dateFormat = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  timeZone: 'UTC',
});
const dateTimeFormat = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
  timeZone: 'UTC',
});
const dayFormat = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });

/** "11 Jun 2026" (UTC). */
export function formatDate(iso: string | null | undefined): string {
  return iso ? dateFormat.format(new Date(iso)) : '—';
}

/** "11 Jun 2026, 09:09 UTC". */
export function formatDateTime(iso: string | null | undefined): string {
  return iso ? `${dateTimeFormat.format(new Date(iso))} UTC` : '—';
}

/** "11 Jun" for a UTC day "2026-06-11". */
export function formatDay(day: string): string {
  return dayFormat.format(new Date(`${day}T00:00:00Z`));
}

/** "CARD_EXPENSE_POST" → "Card expense post". */
export function humanize(code: string): string {
  const words = code.toLowerCase().split('_').join(' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** "1 record", "2 records". */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** "1 value", "10,000 values": the count with its thousands separated. */
export function countOf(count: number, one: string, many = `${one}s`): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? one : many}`;
}
