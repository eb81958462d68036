import type { RuntimeAppReport } from '../../app-server/report.ts';

export type { DeployFailure, FailureReason, RuntimeAppReport } from '../../app-server/report.ts';

/**
 * What the RuntimeApp controller asks the runtime: how each replica serves one app. `undefined` for a
 * replica that neither serves nor has acted on it yet. Throws `RuntimeUnavailableError` when a replica
 * cannot be asked. `HttpRuntimeStatus` asks cw-runtime's status endpoints; tests use a table.
 */
export interface RuntimeStatus {
  app(namespace: string, name: string): Promise<ReadonlyArray<RuntimeAppReport | undefined>>;
}

/** A runtime replica did not answer (connection refused, timeout, 5xx). */
export class RuntimeUnavailableError extends Error {
  override readonly name = 'RuntimeUnavailableError';
}

export interface HttpRuntimeStatusOptions {
  /** Per request (default 2 s). */
  timeoutMs?: number;
}

/**
 * `RuntimeStatus` over cw-runtime's status endpoints: `GET {url}/apps/{namespace}/{app}` on each replica's
 * URL (in Kubernetes, one per pod, or one Service URL when a single replica runs).
 */
export class HttpRuntimeStatus implements RuntimeStatus {
  readonly #urls: readonly string[];
  readonly #timeoutMs: number;

  constructor(urls: readonly string[], options: HttpRuntimeStatusOptions = {}) {
    if (urls.length === 0) throw new Error('HttpRuntimeStatus needs at least one URL');
    this.#urls = urls.map((url) => url.replace(/\/+$/, ''));
    this.#timeoutMs = options.timeoutMs ?? 2000;
  }

  /** `CW_RUNTIME_STATUS_URL`: one URL, or several separated by commas (one per replica). */
  static fromEnv(value: string | undefined): HttpRuntimeStatus | undefined {
    const urls = (value ?? '').split(',').map((s) => s.trim()).filter(Boolean);
    return urls.length > 0 ? new HttpRuntimeStatus(urls) : undefined;
  }

  app(namespace: string, name: string): Promise<Array<RuntimeAppReport | undefined>> {
    const path = `/apps/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}`;
    return Promise.all(this.#urls.map((url) => this.#ask(`${url}${path}`)));
  }

  async #ask(url: string): Promise<RuntimeAppReport | undefined> {
    let res: Response;
    try {
      res = await fetch(url, { signal: AbortSignal.timeout(this.#timeoutMs), headers: { accept: 'application/json' } });
    } catch (err) {
      throw new RuntimeUnavailableError(`cannot reach the runtime at ${url}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    if (res.status === 404) {
      await res.body?.cancel();
      return undefined;
    }
    if (res.status !== 200) {
      await res.body?.cancel();
      throw new RuntimeUnavailableError(`the runtime at ${url} answered ${res.status}`);
    }
    try {
      return (await res.json()) as RuntimeAppReport;
    } catch (err) {
      throw new RuntimeUnavailableError(`the runtime at ${url} answered with a body that is not JSON`, { cause: err });
    }
  }
}
