/**
 * ISO 4217 currencies in circulation with their minor-unit exponent. Money travels as a JSON number in major
 * units and is stored as integer minor units: JPY has none, USD cents, KWD fils (thousandths).
 */
const EXPONENT_0 = 'BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF';
const EXPONENT_3 = 'BHD IQD JOD KWD LYD OMR TND';
const EXPONENT_4 = 'CLF UYW';
const EXPONENT_2 =
  'AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BOV BRL BSD BTN BWP BYN BZD CAD CDF ' +
  'CHE CHF CHW CNY COP COU CRC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GTQ GYD ' +
  'HKD HNL HTG HUF IDR ILS INR IRR JMD KES KGS KHR KPW KYD KZT LAK LBP LKR LRD LSL MAD MDL MGA MKD MMK MNT ' +
  'MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD PAB PEN PGK PHP PKR PLN QAR RON RSD RUB SAR ' +
  'SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT TOP TRY TTD TWD TZS UAH USD USN UYU ' +
  'UZS VED VES WST XCD XCG YER ZAR ZMW ZWG';

export const CURRENCY_EXPONENTS: ReadonlyMap<string, number> = new Map(
  (
    [
      [EXPONENT_0, 0],
      [EXPONENT_2, 2],
      [EXPONENT_3, 3],
      [EXPONENT_4, 4],
    ] as const
  ).flatMap(([codes, exponent]) => codes.split(' ').map((code) => [code, exponent] as const)),
);

export interface Money {
  amount: number;
  currency: string;
}

export type MoneyProblem = { at: 'currency' | 'amount'; message: string };

/**
 * Major units → integer minor units, or the problem. `minor / 10^e` is the double nearest to the decimal with
 * at most e places, which is exactly what JSON.parse made of such a literal; any other number has more places.
 */
export function toMinor(money: Money): number | MoneyProblem {
  const exponent = CURRENCY_EXPONENTS.get(money.currency);
  if (exponent === undefined) return { at: 'currency', message: 'must be an ISO 4217 currency code' };
  const scale = 10 ** exponent;
  const minor = Math.round(money.amount * scale);
  if (!Number.isSafeInteger(minor)) return { at: 'amount', message: 'is too large' };
  if (minor / scale !== money.amount) {
    return {
      at: 'amount',
      message:
        exponent === 0
          ? `must be a whole number for ${money.currency}`
          : `must have at most ${exponent} decimal places for ${money.currency}`,
    };
  }
  return minor;
}

export function fromMinor(minor: number, currency: string): Money {
  return { amount: minor / 10 ** (CURRENCY_EXPONENTS.get(currency) ?? 2), currency };
}

/**
 * The amount in ten-thousandths of the currency's major unit (no currency has more than four decimals): the same
 * number for the same face value whatever the currency's exponent, so amounts of mixed currencies sort and compare
 * by face value (not by exchange value). Null when that would not be a safe integer (an amount above about
 * 900 billion units).
 */
export function sortableAmount(minor: number, currency: string): number | null {
  const sortable = minor * 10 ** (4 - (CURRENCY_EXPONENTS.get(currency) ?? 2));
  return Number.isSafeInteger(sortable) ? sortable : null;
}

/** "171.75 USD": for messages. */
export function formatMoney(minor: number, currency: string): string {
  const exponent = CURRENCY_EXPONENTS.get(currency) ?? 2;
  return `${(minor / 10 ** exponent).toFixed(exponent)} ${currency}`;
}

/**
 * Splits `total` in proportion to `weights` (all positive) so that the parts sum to `total` exactly: largest
 * remainder, ties to the earlier part.
 */
export function allocate(total: number, weights: readonly number[]): number[] {
  // BigInt: total × weight can pass 2^53 for large amounts.
  const sum = weights.reduce((a, b) => a + BigInt(b), 0n);
  const shares = weights.map((w, i) => {
    const product = BigInt(total) * BigInt(w);
    return { i, part: product / sum, remainder: product % sum };
  });
  let rest = BigInt(total) - shares.reduce((a, s) => a + s.part, 0n);
  const byRemainder = [...shares].sort((a, b) =>
    a.remainder === b.remainder ? a.i - b.i : a.remainder > b.remainder ? -1 : 1,
  );
  for (const share of byRemainder) {
    if (rest <= 0n) break;
    share.part += 1n;
    rest -= 1n;
  }
  return shares.map((s) => Number(s.part));
}
