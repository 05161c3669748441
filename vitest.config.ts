import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The reliability suite stops databases and kills processes: it runs on its own, one file at a time
    // (vitest.reliability.config.ts, `npm run test:reliability`).
    exclude: ['test/reliability/**', '**/node_modules/**'],
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
