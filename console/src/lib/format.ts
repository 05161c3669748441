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

/**
 * The currency's number of decimals (2 for USD, 0 for JPY, 3 for KWD), as the browser's ISO 4217 data has it;
 * 2 for a code it does not know (the service refuses an unknown code by itself).
 */
export function currencyDigits(currency: string): number {
  try {
    return new Intl.NumberFormat('en-US', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/** An amount typed in major units ("75", "75.5", "1,250.00") as exact integer minor units, or what is wrong. */
export function toMinorUnits(text: string, currency: string): { minor: number } | { problem: string } {
  const digits = currencyDigits(currency);
  const match = /^(\d+)(?:\.(\d*))?$/.exec(text.trim().replaceAll(',', ''));
  if (!match) return { problem: 'must be an amount of 0 or more, such as 75.00' };
  const fraction = match[2] ?? '';
  if (fraction.replace(/0+$/, '').length > digits) {
    return {
      problem:
        digits === 0
          ? `must be a whole number for ${currency}`
          : `must have at most ${digits} decimal places for ${currency}`,
    };
  }
  // Digits joined as text, then read once: no binary fraction is ever multiplied.
  const minor = Number(`${match[1]}${fraction.slice(0, digits).padEnd(digits, '0')}`);
  return Number.isSafeInteger(minor) ? { minor } : { problem: 'is too large' };
}

/** Integer minor units as major units in text, exactly ("7500" USD → "75.00", JPY → "7500"). */
export function fromMinorUnits(minor: number, currency: string): string {
  const digits = currencyDigits(currency);
  if (digits === 0) return String(minor);
  const text = String(minor).padStart(digits + 1, '0');
  return `${text.slice(0, -digits)}.${text.slice(-digits)}`;
}
