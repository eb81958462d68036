import type { Reporter, TestModule } from 'vitest/node';

/** How many of the slowest test files the closing lines name. */
const SLOWEST_FILES = 12;

/**
 * Prints the slowest test files and one plain closing line, `tests: N passed, N failed, N skipped`, after
 * vitest's own summary, so a CI log reader that knows no vitest still sees what ran and where the time went.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') counts.passed++;
        else if (state === 'failed') counts.failed++;
        else counts.skipped++;
      }
      if (module.state() === 'failed' && module.children.size === 0) counts.failed++;
    }
    const slowest = testModules
      .map((module) => ({ file: module.relativeModuleId, ms: module.diagnostic().duration }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, SLOWEST_FILES);
    process.stdout.write(`\nslowest files:\n${slowest.map(({ file, ms }) => `  ${(ms / 1000).toFixed(1).padStart(7)} s  ${file}`).join('\n')}\n`);
    process.stdout.write(`\ntests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`);
  }
}
