import { expect } from 'vitest';
import type { MemberAccount } from './accounts.ts';
import type { ApiServer } from './api-server.ts';

/** A call's answer: its status, its text and that text parsed (undefined when empty). */
export interface ProjectAnswer<T> {
  status: number;
  text: string;
  body: T;
}

/**
 * Calls of cw-api's routes under `/v1/projects/{project}` as `member` (JSON bodies, or bytes with their content
 * type); `ok` also expects the status, showing the answer when it differs. `api` is read at each call, so the
 * helpers can be made before the server starts.
 */
export function projectCalls(api: () => ApiServer | undefined, member: () => MemberAccount) {
  const call = async <T>(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<ProjectAnswer<T>> => {
    const server = api();
    if (!server) throw new Error('cw-api is not running');
    const { project, token } = member();
    const res = await fetch(`${server.url}/v1/projects/${project}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': contentType }) },
      ...(body === undefined ? {} : { body: body instanceof Uint8Array ? body : JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, text, body: (text ? JSON.parse(text) : undefined) as T };
  };
  const ok = async <T>(status: number, method: string, path: string, body?: unknown, contentType?: string): Promise<ProjectAnswer<T>> => {
    const res = await call<T>(method, path, body, contentType);
    expect(res.status, `${method} ${path}: ${res.text}`).toBe(status);
    return res;
  };
  return { call, ok };
}
