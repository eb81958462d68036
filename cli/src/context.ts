// Where a command's API URL, token and project come from: the flag, then the environment, then the config file.
import type { Command } from 'commander';
import { collectPages } from './pages.ts';
import { type Api, apiClient, expectOk } from './api/client.ts';
import { readConfig } from './config.ts';
import { CliError, UsageError } from './errors.ts';

export interface GlobalOptions {
  apiUrl?: string;
  token?: string;
  project?: string;
  json?: boolean;
  yes?: boolean;
}

export class Context {
  readonly options: GlobalOptions;
  readonly env: NodeJS.ProcessEnv;
  #api: Api | undefined;

  constructor(command: Command, env: NodeJS.ProcessEnv = process.env) {
    this.env = env;
    this.options = command.optsWithGlobals<GlobalOptions>();
  }

  get json(): boolean {
    return this.options.json === true;
  }

  /** `--api-url`, `CW_API_URL`, else the one `cw login` stored. */
  get apiUrl(): string {
    // `||`: an empty CW_API_URL= (common in CI templates) means unset.
    const raw = this.options.apiUrl || this.env.CW_API_URL || readConfig(this.env).api_url;
    if (!raw) throw new UsageError('no API URL: pass --api-url, set CW_API_URL, or run `cw login --api-url URL`');
    return normalizeApiUrl(raw);
  }

  /** `--token`, `CW_TOKEN`, else the one `cw login` stored for this API URL. */
  get token(): string {
    const token = this.options.token || this.env.CW_TOKEN || readConfig(this.env).servers?.[this.apiUrl]?.token;
    if (!token) throw new CliError(`not signed in to ${this.apiUrl}: run \`cw login\` (or set CW_TOKEN)`);
    return token;
  }

  /** A client that signs every request with the token. */
  get api(): Api {
    this.#api ??= apiClient(this.apiUrl, this.token);
    return this.#api;
  }

  /** Awaits an API call: its data, or the problem detail as a CliError. */
  ok<D>(request: Promise<{ data?: D; error?: unknown; response: Response }>): Promise<D> {
    return expectOk(request, this.apiUrl);
  }

  /** The caller's projects, every page of them or the first `limit`. */
  async allProjects(limit?: number) {
    const { items, next } = await collectPages(async (query) => {
      const page = await this.ok(this.api.GET('/v1/projects', { params: { query } }));
      return { items: page.projects, next: page.next };
    }, limit);
    return { projects: items, next };
  }

  /**
   * `--project`, `CW_PROJECT`, the one `cw projects use` stored, else the caller's only project. With several
   * and none chosen, a usage error listing them.
   */
  async project(): Promise<string> {
    const chosen = this.options.project || this.env.CW_PROJECT || readConfig(this.env).servers?.[this.apiUrl]?.project;
    if (chosen) return chosen;
    // Two tell whether there is only one; the message naming them all is rare enough to fetch every page.
    const { projects: few } = await this.allProjects(2);
    const [only] = few;
    if (few.length === 1 && only) return only.project_id;
    const { projects } = await this.allProjects();
    if (projects.length === 1 && only) return only.project_id;
    if (projects.length === 0) {
      const invited = await this.ok(this.api.GET('/v1/user/invitations', { params: { query: { limit: 1 } } }));
      const [first] = invited.invitations;
      if (first) throw new UsageError(`you have no project yet, and an invitation to ${first.project_id}: \`cw projects invitations ls\` lists yours, \`cw projects invitations accept ID\` joins one`);
      throw new UsageError('you have no project yet: create one with `cw projects create ID`');
    }
    throw new UsageError(`choose a project with --project, CW_PROJECT or \`cw projects use ID\` (yours: ${projects.map((p) => p.project_id).join(', ')})`);
  }
}

/** Checks that the URL is http(s) and drops a trailing slash, so the same server is always the same key. */
export function normalizeApiUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`invalid API URL ${JSON.stringify(raw)}: expected http(s)://host[:port]`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`invalid API URL ${JSON.stringify(raw)}: expected http or https`);
  return url.href.replace(/\/+$/, '');
}
