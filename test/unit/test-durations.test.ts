import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/processes.js';

const durations: Record<string, number> = JSON.parse(
  fs.readFileSync(path.join(ROOT, 'test/support/durations.json'), 'utf8'),
);

describe('test/support/durations.json (the order test files start in)', () => {
  it('names only test files that exist, each with a length in seconds', () => {
    const missing = Object.keys(durations).filter((file) => !fs.existsSync(path.join(ROOT, file)));
    expect(missing).toEqual([]);
    for (const [file, seconds] of Object.entries(durations)) {
      expect(file).toMatch(/^test\/.+\.test\.ts$/);
      expect(Number.isFinite(seconds) && seconds >= 0, file).toBe(true);
    }
  });
});
