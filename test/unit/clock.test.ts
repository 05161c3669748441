import { describe, expect, it } from 'vitest';
import { isoToMicros, microsToIso, nowMicros } from '../../src/lib/clock.js';

describe('clock: integer microseconds ↔ RFC 3339', () => {
  it('renders microseconds exactly, whatever second was rendered before', () => {
    const cases: [number, string][] = [
      [0, '1970-01-01T00:00:00.000000Z'],
      [999_999, '1970-01-01T00:00:00.999999Z'],
      [1_000_000, '1970-01-01T00:00:01.000000Z'],
      [1_718_097_550_422_192, '2024-06-11T09:19:10.422192Z'],
      [1_718_097_550_000_001, '2024-06-11T09:19:10.000001Z'],
      [1_718_097_551_000_000, '2024-06-11T09:19:11.000000Z'],
      [-1_000_001, '1969-12-31T23:59:58.999999Z'],
    ];
    for (const [micros, iso] of cases) {
      expect(microsToIso(micros)).toBe(iso);
      expect(isoToMicros(iso)).toBe(micros);
    }
  });

  it('renders any time as Date would, in any order of days', () => {
    for (let i = 0; i < 20_000; i++) {
      const micros = Math.floor((Math.random() * 2 - 0.5) * 4_102_444_800_000_000);
      const reference = `${new Date(Math.floor(micros / 1000)).toISOString().slice(0, 19)}.${String(((micros % 1_000_000) + 1_000_000) % 1_000_000).padStart(6, '0')}Z`;
      expect(microsToIso(micros)).toBe(reference);
    }
  });

  it('parses zones and fractions, and refuses what is not RFC 3339 with a zone', () => {
    expect(isoToMicros('2026-06-11T11:09:10.422192+02:00')).toBe(isoToMicros('2026-06-11T09:09:10.422192Z'));
    expect(isoToMicros('2026-06-11T09:09:10Z')).toBe(isoToMicros('2026-06-11T09:09:10.000000Z'));
    expect(isoToMicros('2026-06-11T09:09:10.1234567891Z')).toBe(isoToMicros('2026-06-11T09:09:10.123456Z'));
    for (const bad of [
      '2026-06-11',
      '2026-06-11T09:09:10',
      '2026-02-30T00:00:00Z',
      '2026-06-11T24:00:00Z',
      'yesterday',
      '',
    ]) {
      expect(isoToMicros(bad)).toBeNull();
    }
  });

  it('nowMicros never repeats or goes back within a process', () => {
    const seen = Array.from({ length: 10_000 }, () => nowMicros());
    expect(seen.every((v, i) => i === 0 || v > seen[i - 1]!)).toBe(true);
  });
});
