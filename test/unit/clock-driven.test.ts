import { describe, expect, it } from 'vitest';
import { advanceClock, freezeClock, nowMicros } from '../../src/lib/clock.js';

describe('clock: driven by a test', () => {
  it('stands still once frozen (a microsecond a reading), and moves by exactly what advanceClock says', () => {
    freezeClock();
    const start = nowMicros();
    const readings = Array.from({ length: 1000 }, () => nowMicros());
    expect(readings.at(-1)! - start).toBe(1000);
    advanceClock(5_000_000);
    // From the last reading, however many there were.
    expect(nowMicros() - readings.at(-1)!).toBe(5_000_000);
    advanceClock(0);
    const next = nowMicros();
    expect(nowMicros()).toBe(next + 1);
  });

  it('moves only forward, in whole microseconds', () => {
    expect(() => advanceClock(-1)).toThrow(RangeError);
    expect(() => advanceClock(0.5)).toThrow(RangeError);
  });
});
