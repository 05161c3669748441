/**
 * Time in the service is integer microseconds since the Unix epoch: stored as such in both dialects
 * (exact, comparable, no time-zone or precision loss) and rendered as RFC 3339 UTC with six decimals.
 */
let last = 0;
/** How far the clock has been moved forward, and where it stands still (tests only: advanceClock, freezeClock). */
let offset = 0;
let frozenAt: number | null = null;

/** Microseconds now; strictly increasing within this process. */
export function nowMicros(): number {
  const ms = performance.timeOrigin + performance.now();
  let micros = (frozenAt ?? Math.floor(ms * 1000)) + offset;
  if (micros <= last) micros = last + 1;
  last = micros;
  return micros;
}

/**
 * Moves this process's clock forward by `micros` (tests: a throttle's delay or a TOTP window passes without
 * sleeping). Only forward, so that time stays strictly increasing for everything that has already read it.
 */
export function advanceClock(micros: number): void {
  if (!Number.isInteger(micros) || micros < 0)
    throw new RangeError('the clock only moves forward, in whole microseconds');
  // A stopped clock moves from its last reading (each reading stepped it one microsecond on).
  if (frozenAt !== null) frozenAt = Math.max(frozenAt, last - offset);
  offset += micros;
}

/**
 * Stops this process's clock where it is (tests): from then on only advanceClock moves it, and each reading by one
 * microsecond (readings stay strictly increasing), so that a test's times do not depend on how fast it runs.
 */
export function freezeClock(): void {
  frozenAt ??= nowMicros() - offset;
}

/**
 * Puts this process's clock back on real time, as if advanceClock and freezeClock had never been called (tests: the
 * suite's workers run one test file after another in one process, and each file starts from real time).
 */
export function resetClock(): void {
  last = 0;
  offset = 0;
  frozenAt = null;
}

// Pages format many timestamps: a record has three, spread over many days. The date part is kept per day
// (a bounded map), the time of day is arithmetic.
const TWO = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, '0'));
const days = new Map<number, string>();

/** 1718097550422192 → "2024-06-11T09:19:10.422192Z" */
export function microsToIso(micros: number): string {
  const second = Math.floor(micros / 1_000_000);
  const day = Math.floor(second / 86_400);
  let date = days.get(day);
  if (date === undefined) {
    if (days.size >= 20_000) days.clear();
    date = new Date(day * 86_400_000).toISOString().slice(0, 11); // YYYY-MM-DDT
    days.set(day, date);
  }
  const inDay = second - day * 86_400;
  const fraction = String(micros - second * 1_000_000).padStart(6, '0');
  return `${date}${TWO[Math.floor(inDay / 3600)]}:${TWO[Math.floor(inDay / 60) % 60]}:${TWO[inDay % 60]}.${fraction}Z`;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,12}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/**
 * Parses an RFC 3339 timestamp that carries a zone (Z or ±hh:mm) into microseconds. Digits beyond
 * microseconds are truncated. Returns null for anything else, including impossible dates.
 */
export function isoToMicros(text: string): number | null {
  const m = RFC3339.exec(text);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, frac = '', z, sign, oh, om] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return null;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day < 1 || day > daysInMonth) return null;
  let ms = Date.UTC(year, month - 1, day, hour, minute, second);
  if (!z) {
    const offH = Number(oh);
    const offM = Number(om);
    if (offH > 23 || offM > 59) return null;
    const offset = (offH * 60 + offM) * 60_000;
    ms += sign === '+' ? -offset : offset;
  }
  const micros = Number((frac + '000000').slice(0, 6));
  return ms * 1000 + micros;
}
