// Test helper: a throwaway working repository made with the real git, for building the real commits and packs
// that tests publish to a RepoStore (what a client's push would carry).
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { mkdirSync } from 'node:fs';
import type { ObjectFormat } from '../../repo-store/index.ts';
import { runGit } from '../run-git.ts';

/** git with no user or system config, and a fixed identity: the same input gives the same objects. */
export const HERMETIC_GIT_ENV: Record<string, string> = {
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Test Author',
  GIT_AUTHOR_EMAIL: 'author@example.test',
  GIT_COMMITTER_NAME: 'Test Committer',
  GIT_COMMITTER_EMAIL: 'committer@example.test',
  GIT_TERMINAL_PROMPT: '0',
};

export interface BuiltPack {
  readonly pack: Buffer;
  readonly idx: Buffer;
}

export class ScratchRepo {
  readonly dir: string;
  readonly format: ObjectFormat;
  #clock = 1_700_000_000;

  private constructor(dir: string, format: ObjectFormat) {
    this.dir = dir;
    this.format = format;
  }

  static async create(format: ObjectFormat = 'sha1'): Promise<ScratchRepo> {
    const dir = await mkdtemp(join(tmpdir(), 'cw-scratch-'));
    const repo = new ScratchRepo(dir, format);
    await repo.git('init', '--quiet', `--object-format=${format}`, '--initial-branch=main');
    return repo;
  }

  /** Runs git in the repository; answers stdout, trimmed. */
  async git(...args: string[]): Promise<string> {
    const date = `${this.#clock} +0000`;
    const env = { ...HERMETIC_GIT_ENV, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date };
    return (await runGit(['-C', this.dir, ...args], { env })).stdout.toString().trim();
  }

  /** Commits `files` (path → content; null deletes) on `branch`, created from `from` when new. Answers the oid. */
  async commit(branch: string, files: Record<string, string | null>, options: { from?: string; message?: string } = {}): Promise<string> {
    const exists = (await this.git('branch', '--list', branch)) !== '';
    if (exists) await this.git('checkout', '--quiet', branch);
    else if (options.from) await this.git('checkout', '--quiet', '-b', branch, options.from);
    else await this.git('checkout', '--quiet', '--orphan', branch);
    for (const [path, content] of Object.entries(files)) {
      const full = join(this.dir, path);
      if (content === null) await rm(full, { force: true });
      else {
        mkdirSync(dirname(full), { recursive: true });
        await writeFile(full, content);
      }
    }
    this.#clock += 60;
    await this.git('add', '--all');
    await this.git('commit', '--quiet', '--allow-empty', '-m', options.message ?? `commit ${this.#clock}`);
    return this.git('rev-parse', 'HEAD');
  }

  /** An annotated tag on `target`; answers the tag object's oid. */
  async tag(name: string, target: string): Promise<string> {
    await this.git('tag', '-a', '-m', `tag ${name}`, name, target);
    return this.git('rev-parse', `refs/tags/${name}`);
  }

  /** The pack a push of `wants` to a server that has `haves` would carry, with its `.idx`. */
  async pack(wants: readonly string[], haves: readonly string[] = []): Promise<BuiltPack> {
    const input = [...wants, ...haves.map((h) => `^${h}`)].join('\n') + '\n';
    const pack = (await runGit(['-C', this.dir, 'pack-objects', '--stdout', '--revs', '--quiet'], { stdin: input, maxStdoutBytes: 1 << 30 })).stdout;
    const base = join(this.dir, '.git', `built-${Date.now()}-${Math.random().toString(36).slice(2)}`);
    await writeFile(`${base}.pack`, pack);
    await runGit(['-C', this.dir, 'index-pack', '-o', `${base}.idx`, `${base}.pack`]);
    const idx = await readFile(`${base}.idx`);
    await Promise.all(['pack', 'idx', 'rev'].map((ext) => rm(`${base}.${ext}`, { force: true })));
    return { pack, idx };
  }

  async remove(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }
}
