// The stock git and git-lfs clients, run as a user would, in an isolated HOME so no machine-wide setting
// (credentials, protocol version, hooks) leaks into a test.
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runGit, type GitResult } from '../../src/git/run-git.ts';

export class GitClient {
  readonly home: string;
  readonly #env: Record<string, string>;

  private constructor(home: string) {
    this.home = home;
    this.#env = {
      HOME: home,
      XDG_CONFIG_HOME: join(home, '.config'),
      // Its own user configuration: runGit's default (none, as the service runs git) would have `git lfs install`
      // write to /dev/null.
      GIT_CONFIG_GLOBAL: join(home, '.gitconfig'),
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_TERMINAL_PROMPT: '0',
      GIT_AUTHOR_NAME: 'Ada',
      GIT_AUTHOR_EMAIL: 'ada@example.com',
      GIT_COMMITTER_NAME: 'Ada',
      GIT_COMMITTER_EMAIL: 'ada@example.com',
      // Deterministic dates make runs comparable; each commit still gets a distinct id from its content.
      GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z',
      GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z',
    };
  }

  static async create(): Promise<GitClient> {
    const home = await mkdtemp(join(tmpdir(), 'cw-git-client-'));
    await mkdir(join(home, '.config'), { recursive: true });
    await writeFile(join(home, '.gitconfig'), '[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n');
    const client = new GitClient(home);
    await client.run(['lfs', 'install', '--skip-repo']);
    return client;
  }

  /** A fresh working directory. */
  async workdir(name: string): Promise<string> {
    const dir = join(this.home, name);
    await mkdir(dir, { recursive: true });
    return dir;
  }

  run(args: readonly string[], options: { cwd?: string; env?: Record<string, string>; okCodes?: number[] } = {}): Promise<GitResult> {
    return runGit(args, { cwd: options.cwd ?? this.home, env: { ...this.#env, ...options.env }, okCodes: options.okCodes ?? [0] });
  }

  async out(args: readonly string[], cwd?: string): Promise<string> {
    return (await this.run(args, { cwd })).stdout.toString().trim();
  }

  /** Commits `files` (path → content) on the current branch and answers the new commit id. */
  async commit(cwd: string, message: string, files: Record<string, string>): Promise<string> {
    for (const [path, content] of Object.entries(files)) {
      await mkdir(join(cwd, path, '..'), { recursive: true });
      await writeFile(join(cwd, path), content);
    }
    await this.run(['add', '-A'], { cwd });
    await this.run(['commit', '-q', '-m', message], { cwd });
    return this.out(['rev-parse', 'HEAD'], cwd);
  }
}
