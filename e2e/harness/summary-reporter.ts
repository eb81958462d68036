import type { Reporter, TestCase, TestModule } from 'vitest/node';

/** How many of the slowest test files the closing lines name. */
const SLOWEST_FILES = 12;

/** How much of a failure's first error the closing lines quote. */
const ERROR_CHARS = 300;

/**
 * Prints the slowest test files, each failed test with the first line of its error, and one plain closing line,
 * `tests: N passed, N failed, N skipped`, after vitest's own summary: a CI log is often read from its tail only,
 * so what failed must be there and not only hundreds of lines above.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    const failures: string[] = [];
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') counts.passed++;
        else if (state === 'failed') {
          counts.failed++;
          failures.push(describeFailure(module, test));
        } else counts.skipped++;
      }
      if (module.state() === 'failed' && module.children.size === 0) {
        counts.failed++;
        failures.push(`${module.relativeModuleId}: ${firstLine(module.errors()[0]?.message)}`);
      }
    }
    const slowest = testModules
      .map((module) => ({ file: module.relativeModuleId, ms: module.diagnostic().duration }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, SLOWEST_FILES);
    process.stdout.write(`\nslowest files:\n${slowest.map(({ file, ms }) => `  ${(ms / 1000).toFixed(1).padStart(7)} s  ${file}`).join('\n')}\n`);
    if (failures.length > 0) process.stdout.write(`\nfailed:\n${failures.map((line) => `  ${line}`).join('\n')}\n`);
    process.stdout.write(`\ntests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`);
  }
}

function describeFailure(module: TestModule, test: TestCase): string {
  const error = test.result().errors?.[0];
  return `${module.relativeModuleId} > ${test.fullName}: ${firstLine(error?.message)}`;
}

function firstLine(message: string | undefined): string {
  const line = (message ?? 'no error message').split('\n')[0] ?? '';
  return line.length > ERROR_CHARS ? `${line.slice(0, ERROR_CHARS)}…` : line;
}
