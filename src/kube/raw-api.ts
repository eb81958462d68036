import { ApiException, HttpMethod, KubernetesObjectApi } from '@kubernetes/client-node';
import { KubeApiError } from './api-error.ts';

/** What one apiserver request carries besides its method and path. */
export interface RawRequest {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** Defaults to `application/json`; patches pass their patch type here. */
  contentType?: string;
}

/**
 * A JSON request to any apiserver path, reusing client-node's configured transport, TLS and authentication.
 *
 * client-node's typed APIs deserialize responses into model classes (dates become `Date`), while its watch
 * stream yields plain JSON; going through this one door keeps every object plain JSON. It extends
 * `KubernetesObjectApi` only to reach the protected request pipeline that class exposes to subclasses.
 */
export class RawApi extends KubernetesObjectApi {
  async request<T>(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, req: RawRequest = {}): Promise<T> {
    const ctx = this.configuration.baseServer.makeRequestContext(path, HttpMethod[method]);
    ctx.setHeaderParam('Accept', 'application/json');
    for (const [key, value] of Object.entries(req.query ?? {})) {
      if (value !== undefined) ctx.setQueryParam(key, String(value));
    }
    if (req.body !== undefined) {
      ctx.setHeaderParam('Content-Type', req.contentType ?? 'application/json');
      ctx.setBody(JSON.stringify(req.body));
    }
    try {
      // 'any' makes client-node's serializer hand back the parsed JSON untouched.
      return (await this.requestPromise(ctx, 'any')) as T;
    } catch (err) {
      if (err instanceof ApiException) throw KubeApiError.fromResponse(err.code, err.body);
      throw err;
    }
  }
}
