import type { Reporter, SerializedError, TestCase, TestModule, TestRunEndReason, TestSuite, Vitest } from 'vitest/node';
import { cpuTicks, runTiming, type FileSpan } from './run-timing.ts';

/** How many of the slowest test files the closing lines name. */
const SLOWEST_FILES = 12;

/** How much of a failure's first error the closing lines quote. */
const ERROR_CHARS = 300;

/**
 * Prints the slowest test files, every failure with the first line of its error, and one plain closing line,
 * `tests: N passed, N failed, N skipped`, after vitest's own summary: a CI log is often read from its tail only,
 * so what failed must be there and not only hundreds of lines above. A run fails on more than failed tests (a
 * hook of a file or suite that threw, an error no test awaited), and those are named too: otherwise the tail
 * says "0 failed" above a failed run.
 */
export default class SummaryReporter implements Reporter {
  readonly #runStart = Date.now();
  readonly #cpuAtStart = cpuTicks();
  readonly #started = new Map<string, number>();
  readonly #spans: FileSpan[] = [];
  #workers = 1;

  onInit(vitest: Vitest): void {
    this.#workers = Number(vitest.config.maxWorkers) || 1;
  }

  onTestModuleStart(module: TestModule): void {
    this.#started.set(module.moduleId, Date.now());
  }

  onTestModuleEnd(module: TestModule): void {
    const start = this.#started.get(module.moduleId);
    if (start !== undefined) this.#spans.push({ start, end: Date.now() });
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>, reason: TestRunEndReason): void {
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
      // Errors of the file itself (collection, its own beforeAll/afterAll) and of its suites' hooks.
      for (const error of module.errors()) failures.push(`${module.relativeModuleId}: ${firstLine(error.message)}`);
      for (const suite of module.children.allSuites()) {
        for (const error of suite.errors()) failures.push(`${module.relativeModuleId} > ${suiteName(suite)}: ${firstLine(error.message)}`);
      }
    }
    for (const error of unhandledErrors) failures.push(`unhandled ${error.name ?? 'error'}: ${firstLine(error.message)}`);
    const slowest = testModules
      .map((module) => ({ file: module.relativeModuleId, ms: module.diagnostic().duration }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, SLOWEST_FILES);
    process.stdout.write(`\nslowest files:\n${slowest.map(({ file, ms }) => `  ${(ms / 1000).toFixed(1).padStart(7)} s  ${file}`).join('\n')}\n`);
    process.stdout.write(this.#timingLine());
    if (failures.length > 0) process.stdout.write(`\nfailed:\n${failures.map((line) => `  ${line}`).join('\n')}\n`);
    const extra = failures.length > counts.failed ? `, ${failures.length - counts.failed} other errors` : '';
    process.stdout.write(`\ntests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped${extra} (run ${reason})\n`);
  }

  /** Where the run's time went (before the first file, files at once, the tail, the machine's CPU), so a slow run can be read from its log alone. */
  #timingLine(): string {
    const timing = runTiming(this.#spans, this.#runStart, this.#workers);
    if (!timing) return '';
    const wall = (Date.now() - this.#runStart) / 1000;
    const end = cpuTicks();
    const cpu =
      this.#cpuAtStart && end && end.total > this.#cpuAtStart.total
        ? `, the machine's CPU ${Math.round((100 * (end.busy - this.#cpuAtStart.busy)) / (end.total - this.#cpuAtStart.total))} % busy`
        : '';
    const s = (ms: number) => `${Math.round(ms / 1000)} s`;
    return `\ntime: ${Math.round(wall)} s; ${s(timing.beforeFirstMs)} before the first file, then ${timing.averageRunning.toFixed(2)} of ${this.#workers} workers busy on average, the last ${s(timing.tailMs)} with one or more idle${cpu}\n`;
  }
}

function describeFailure(module: TestModule, test: TestCase): string {
  const error = test.result().errors?.[0];
  return `${module.relativeModuleId} > ${test.fullName}: ${firstLine(error?.message)}`;
}

function suiteName(suite: TestSuite): string {
  return `${suite.fullName} (a hook of the suite)`;
}

function firstLine(message: string | undefined): string {
  const line = (message ?? 'no error message').split('\n')[0] ?? '';
  return line.length > ERROR_CHARS ? `${line.slice(0, ERROR_CHARS)}…` : line;
}
