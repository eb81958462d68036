import { defineConfig } from 'vitest/config';

// `unit` needs nothing running; `integration` (files named *.int.test.ts beside the code, and everything under
// e2e/) runs against the real local control plane, MinIO and moto, started once per run by
// e2e/harness/global-setup.ts. Most integration tests wait on processes more than they compute, so files run
// three at a time on two cores (a fresh-clone run of 2026-12-04: 1,240 s of tests, 2.5 of 3 workers busy, the
// machine's CPU 90 % busy, against 1,503 s at two at a time); the few that measure one tenant's effect on another's latency, or time a replica's start among
// a thousand apps (which every other test's runtime, watching every namespace, would have to go through too), run
// afterwards, alone (`measured`), so their bounds are about the code under test and not about a neighbouring file.
const MEASURED = ['e2e/database-isolation.test.ts', 'e2e/runtime-limits.test.ts', 'e2e/runtime-first-list.test.ts'];

// expect.poll gives up after 1 s unless a test says otherwise; unit tests drive real workerd and SQLite
// processes too, and on a loaded two-core CI machine a restart takes longer than that. A poll that holds is as
// quick as before. (vi.waitFor's default is raised the same way in integration tests, by their setup file.)
const polls = { expect: { poll: { timeout: 10_000 } } };

// Unit tests run beside three integration files, and many start real git, workerd or SQLite processes: on a
// fresh-clone run with the CPU 95 % busy, a test of two git servers taking 1.8 s alone passed vitest's 5 s default.
// A hang is still caught, at 20 s.
const unitTimeouts = { testTimeout: 20_000, hookTimeout: 30_000 };

const integration = {
  ...polls,
  globalSetup: ['e2e/harness/global-setup.ts'],
  setupFiles: ['e2e/harness/wait-defaults.ts'],
  testTimeout: 60_000,
  hookTimeout: 180_000,
};

export default defineConfig({
  test: {
    maxWorkers: 3,
    reporters: ['default', './e2e/harness/summary-reporter.ts'],
    projects: [
      {
        test: {
          name: 'unit',
          ...polls,
          ...unitTimeouts,
          include: [
            '{src,api,git-server,database-server,operator,runtime-server,scripts,bin}/**/*.test.ts',
            'cli/{src,scripts}/**/*.test.ts',
            'console/src/**/*.test.ts',
            'docs/examples/events-receiver/*.test.ts',
          ],
          exclude: ['**/*.int.test.ts', '**/node_modules/**'],
        },
      },
      {
        test: {
          name: 'integration',
          include: ['{src,api,git-server,database-server,operator,runtime-server,bin}/**/*.int.test.ts', 'e2e/**/*.test.ts'],
          exclude: ['**/node_modules/**', ...MEASURED],
          ...integration,
        },
      },
      {
        test: {
          name: 'measured',
          include: MEASURED,
          ...integration,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
