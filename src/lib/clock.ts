/**
 * Time in the service is integer microseconds since the Unix epoch: stored as such in both dialects
 * (exact, comparable, no time-zone or precision loss) and rendered as RFC 3339 UTC with six decimals.
 */
let last = 0;

/** Microseconds now; strictly increasing within this process. */
export function nowMicros(): number {
  const ms = performance.timeOrigin + performance.now();
  let micros = Math.floor(ms * 1000);
  if (micros <= last) micros = last + 1;
  last = micros;
  return micros;
}

// Rows of one page mostly share their second: format the date and time once per second.
let cachedSecond = Number.NaN;
let cachedPrefix = '';

/** 1718097550422192 → "2024-06-11T09:19:10.422192Z" */
export function microsToIso(micros: number): string {
  const second = Math.floor(micros / 1_000_000);
  if (second !== cachedSecond) {
    cachedSecond = second;
    cachedPrefix = new Date(second * 1000).toISOString().slice(0, 19); // YYYY-MM-DDTHH:MM:SS
  }
  return `${cachedPrefix}.${String(micros - second * 1_000_000).padStart(6, '0')}Z`;
}

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,12}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

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
