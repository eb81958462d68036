import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pythonToolPath } from './python-tools.ts';

export interface SchemathesisRun {
  /** Where the API serves its document: `<url>/openapi.json`. */
  apiUrl: string;
  token: string;
  /** Working directory: the generated config, reports and the full output go here. */
  dir: string;
  /** `schemathesis.toml` content (see https://schemathesis.readthedocs.io, "Configuration"). */
  config: string;
  checks: string[];
  maxExamples: number;
  seed?: string;
  timeoutMs: number;
  /** More `run` options, such as `--include-path-regex` to test part of the document. */
  extraArgs?: readonly string[];
}

export interface SchemathesisResult {
  exitCode: number | null;
  /** Everything schemathesis printed (stdout and stderr interleaved). */
  output: string;
  outputPath: string;
}

/**
 * Runs the pinned `schemathesis run` against a live API in a child process, so the test's event loop stays
 * free. Runs in `dir`, with hypothesis' example database off, so nothing lands in the checkout.
 */
export function runSchemathesis(run: SchemathesisRun): Promise<SchemathesisResult> {
  mkdirSync(run.dir, { recursive: true });
  const configPath = join(run.dir, 'schemathesis.toml');
  // The token goes in the config (not `--header`, which would win over everything) so an operation may
  // authenticate with another one.
  writeFileSync(configPath, `headers = { Authorization = ${JSON.stringify(`Bearer ${run.token}`)} }\n${run.config}`);
  const args = [
    '--config-file',
    configPath,
    '--no-color',
    'run',
    `${run.apiUrl}/openapi.json`,
    '--checks',
    run.checks.join(','),
    '--max-examples',
    String(run.maxExamples),
    // One worker: schemathesis' workers are threads, and the machine's CPython 3.11.7 has a race in its
    // `ast` module under threads ("SystemError: AST constructor recursion depth mismatch", CPython
    // gh-106905) that crashes a run at random.
    '--workers',
    '1',
    '--generation-database',
    'none',
    '--request-timeout',
    '10',
    // Every request and response of the run (HAR), for digging into a failure with CW_KEEP_TEST_STATE=1.
    '--report',
    'junit,har',
    '--report-dir',
    join(run.dir, 'report'),
    ...(run.seed ? ['--seed', run.seed] : []),
    ...(run.extraArgs ?? []),
  ];
  const outputPath = join(run.dir, 'schemathesis.txt');
  return new Promise((resolve, reject) => {
    const child = spawn(pythonToolPath('schemathesis'), args, {
      cwd: run.dir,
      env: { ...process.env, NO_COLOR: '1', COLUMNS: '120' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    // A deadline, not a wait: a run that hangs is killed and reported.
    const timer = setTimeout(() => {
      output += `\n[harness] schemathesis still running after ${run.timeoutMs} ms; killed\n`;
      child.kill('SIGKILL');
    }, run.timeoutMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (exitCode) => {
      clearTimeout(timer);
      writeFileSync(outputPath, output);
      resolve({ exitCode, output, outputPath });
    });
  });
}

/** The part of the output worth reading on failure: from the failures section on, else the whole output. */
export function failureSummary(output: string): string {
  const start = output.search(/^=+ (FAILURES|ERRORS|WARNINGS|SUMMARY) =+$/m);
  return start >= 0 ? output.slice(start) : output;
}
