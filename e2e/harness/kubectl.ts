import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { toolPath } from './tools.ts';

const run = promisify(execFile);

export interface KubectlResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** `kubectl` against `kubeconfig`, as a person or a GitOps tool runs it; answers its exit code and output (never throws on a failing exit). */
export async function kubectl(kubeconfig: string, ...args: string[]): Promise<KubectlResult> {
  try {
    const { stdout, stderr } = await run(toolPath('kubectl'), args, { env: { ...process.env, KUBECONFIG: kubeconfig } });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const failed = err as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}
