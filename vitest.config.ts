import { defineConfig } from 'vitest/config';

// Two projects: `unit` needs nothing running; `integration` (files named *.int.test.ts beside the code, and
// everything under e2e/) runs against the real local control plane, MinIO and moto, started once per run by
// e2e/harness/global-setup.ts.
export default defineConfig({
  test: {
    reporters: ['default', './e2e/harness/summary-reporter.ts'],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['{src,api,git-server,database-server,operator,scripts,bin}/**/*.test.ts', 'cli/{src,scripts}/**/*.test.ts', 'docs/examples/events-receiver/*.test.ts'],
          exclude: ['**/*.int.test.ts', '**/node_modules/**'],
        },
      },
      {
        test: {
          name: 'integration',
          include: ['{src,api,git-server,database-server,operator,bin}/**/*.int.test.ts', 'e2e/**/*.test.ts'],
          exclude: ['**/node_modules/**'],
          globalSetup: ['e2e/harness/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
