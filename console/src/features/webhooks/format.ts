const secondsFormat = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
  timeZone: 'UTC',
});

/** "11 Jun 2026, 09:09:10 UTC": a delivery log needs the seconds. */
export function formatSeconds(iso: string): string {
  return `${secondsFormat.format(new Date(iso))} UTC`;
}

/** A datetime-local value ("2026-06-11T09:09") read as UTC → RFC 3339; null when it is not one. */
export function utcInputToIso(value: string): string | null {
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?$/.test(value)) return null;
  const date = new Date(`${value}Z`);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/** The datetime-local value of a moment, in UTC, to the minute. */
export function isoToUtcInput(date: Date): string {
  return date.toISOString().slice(0, 16);
}
