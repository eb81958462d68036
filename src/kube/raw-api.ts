import { HttpMethod, KubernetesObjectApi, type KubernetesObject, type ResponseContext } from '@kubernetes/client-node';
import { KubeApiError } from './api-error.ts';

/** What one apiserver request carries besides its method and path. */
export interface RawRequest {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** Defaults to `application/json`; patches pass their patch type here. */
  contentType?: string;
  /** The response is plain text (health endpoints such as `/readyz`), returned as a string. */
  text?: boolean;
}

const RAW = 'raw-json';
const RAW_TEXT = 'raw-text';
const MAX_429_ATTEMPTS = 10;

/**
 * A JSON request to any apiserver path, reusing client-node's configured transport, TLS and authentication.
 *
 * client-node's APIs deserialize responses into model classes (even its generic serializer turns
 * `metadata` timestamps into `Date`), while its watch stream yields plain JSON. Going through this one door,
 * which parses responses itself, keeps every object plain JSON. It extends `KubernetesObjectApi` only to
 * reach the protected request pipeline (auth, TLS, middleware) that class exposes to subclasses.
 */
export class RawApi extends KubernetesObjectApi {
  /** The connection pool every request of this client goes through (see `request`). */
  #dispatcher: unknown;
  /**
   * The field manager of every write that names none, so `managedFields` say which binary wrote (`cw-api`,
   * `cw-operator`) rather than the client library (the apiserver's default, from client-node's user agent).
   */
  fieldManager: string | undefined;

  async request<T>(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, req: RawRequest = {}): Promise<T> {
    const ctx = this.configuration.baseServer.makeRequestContext(path, HttpMethod[method]);
    // client-node's authentication gives every request a new undici Agent built from the kubeconfig's TLS
    // settings, so each request opened its own connection: a TCP and TLS handshake per call (measured: 200
    // requests, 200 handshakes). The first Agent is kept and every later request reuses its pooled connections;
    // headers (a bearer token re-read as it rotates) are still applied per request.
    const setDispatcher = ctx.setDispatcher.bind(ctx);
    ctx.setDispatcher = (dispatcher) => setDispatcher((this.#dispatcher ??= dispatcher) as typeof dispatcher);
    ctx.setHeaderParam('Accept', 'application/json');
    const query = method === 'POST' || method === 'PUT' || method === 'PATCH' ? { fieldManager: this.fieldManager, ...req.query } : req.query;
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value !== undefined) ctx.setQueryParam(key, String(value));
    }
    if (req.body !== undefined) {
      ctx.setHeaderParam('Content-Type', req.contentType ?? 'application/json');
      ctx.setBody(JSON.stringify(req.body));
    }
    // Like client-go: a 429 means the apiserver did not process the request (a watch cache still
    // initializing, priority and fairness shedding load), so it is retried after the delay it asks for.
    for (let attempt = 1; ; attempt++) {
      try {
        return (await this.requestPromise(ctx, req.text ? RAW_TEXT : RAW)) as T;
      } catch (err) {
        if (!(err instanceof KubeApiError) || err.code !== 429 || attempt >= MAX_429_ATTEMPTS) throw err;
        await new Promise((resolve) => setTimeout(resolve, Math.min(err.retryAfterSeconds ?? 1, 2) * 1000));
      }
    }
  }

  protected override async processResponse<T extends KubernetesObject>(response: ResponseContext, type?: string): Promise<T> {
    if (type !== RAW && type !== RAW_TEXT) return super.processResponse<T>(response, type);
    const text = await response.body.text();
    if (response.httpStatusCode < 200 || response.httpStatusCode > 299) {
      const retryAfter = Number(response.headers['retry-after']);
      throw KubeApiError.fromResponse(response.httpStatusCode, text, Number.isFinite(retryAfter) ? retryAfter : undefined);
    }
    if (type === RAW_TEXT) return text as unknown as T;
    return (text ? JSON.parse(text) : undefined) as T;
  }
}
