import { defineConfig } from 'vitest/config';

/** The fault-injection suite: crashes, database outages, fuzzing. One file at a time, after the main suite. */
export default defineConfig({
  test: {
    include: ['test/reliability/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 300_000,
    hookTimeout: 120_000,
  },
});
