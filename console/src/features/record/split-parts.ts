/** Money arithmetic of a split, in the currency's minor units (never floating-point sums of major units). */

/** Decimals of a currency (USD 2, JPY 0, BHD 3), as Intl knows it. */
export function currencyDigits(currency: string): number {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/** "12.34" → 1234 minor units; null when it is not a positive amount with at most `digits` decimals. */
export function toMinor(text: string, digits: number): number | null {
  const trimmed = text.trim();
  const pattern = digits === 0 ? /^\d+$/ : new RegExp(`^\\d+(\\.\\d{1,${digits}})?$`);
  if (!pattern.test(trimmed)) return null;
  const [whole, fraction = ''] = trimmed.split('.');
  const minor = Number(whole) * 10 ** digits + Number(fraction.padEnd(digits, '0') || '0');
  return minor > 0 && Number.isSafeInteger(minor) ? minor : null;
}

/** 1234 → "12.34". */
export function fromMinor(minor: number, digits: number): string {
  if (digits === 0) return String(minor);
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  const whole = Math.floor(abs / 10 ** digits);
  return `${sign}${whole}.${String(abs % 10 ** digits).padStart(digits, '0')}`;
}

/** `total` in `n` parts as equal as the minor unit allows (the first parts take the remainder). */
export function equalParts(total: number, n: number): number[] {
  const base = Math.floor(total / n);
  return Array.from({ length: n }, (_, i) => base + (i < total - base * n ? 1 : 0));
}
