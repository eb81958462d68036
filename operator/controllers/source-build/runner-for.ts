// Which runner builds go through. A Job is the only sandbox: with CW_BUILD_RUNNER=job and no Job runner,
// falling back to local processes would run tenants' code inside the operator's pod, so the operator refuses
// to start instead (operator/config.ts refuses the variables first; this holds for every other caller too).
import { ConfigError } from '../../../src/config/env.ts';
import type { BuildRunner } from './build-runner.ts';
import { LocalBuildRunner } from './local-runner.ts';

export function runnerFor(settings: { runner: 'local' | 'job'; workDir: string }, jobRunner: (() => BuildRunner) | undefined): BuildRunner {
  if (settings.runner === 'local') return new LocalBuildRunner({ workDir: settings.workDir });
  if (!jobRunner) throw new ConfigError('CW_BUILD_RUNNER=job needs CW_BUILD_JOB_NAMESPACE (where build Jobs run): builds never run inside the operator instead');
  return jobRunner();
}
