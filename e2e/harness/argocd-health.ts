// Runs the Argo CD resource-health snippet of docs/argocd-health/cloudwright.lua (one snippet, installed under each
// Cloudwright kind's key) the way Argo CD does: the object as the global `obj`, the answer a table with `status`
// and `message`. Argo CD embeds gopher-lua (Lua 5.1); fengari is Lua 5.3, and the snippet uses only what both have.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fengari from 'fengari';
import { repoRoot } from './tools.ts';

export interface ArgoHealth {
  readonly status: 'Healthy' | 'Progressing' | 'Degraded' | 'Suspended' | 'Missing' | 'Unknown';
  readonly message: string;
}

export const HEALTH_SNIPPET = readFileSync(join(repoRoot, 'docs', 'argocd-health', 'cloudwright.lua'), 'utf8');

/** The kinds the snippet is for, with the Ready reasons it calls Degraded and Suspended (its `reasons` table). */
export function snippetReasons(): Map<string, { degraded: string[]; suspended: string[] }> {
  const names = (list: string | undefined) => [...(list ?? '').matchAll(/(\w+) = true/g)].map((m) => m[1] ?? '');
  const kinds = new Map<string, { degraded: string[]; suspended: string[] }>();
  for (const line of HEALTH_SNIPPET.matchAll(/^ {2}(\w+) = \{ degraded = \{([^}]*)\}, suspended = \{([^}]*)\} \},$/gm)) {
    kinds.set(line[1] ?? '', { degraded: names(line[2]), suspended: names(line[3]) });
  }
  return kinds;
}

/** What Argo CD would report for `object`: the snippet's answer for the kinds it is installed for, else Healthy (no health check). */
export function argoHealth(object: { kind?: string; metadata?: unknown; status?: unknown }): ArgoHealth {
  if (!snippetReasons().has(object.kind ?? '')) return { status: 'Healthy', message: `no health check for ${object.kind}` };
  const { lua, lauxlib, lualib, to_luastring } = fengari;
  const L = lauxlib.luaL_newstate();
  lualib.luaL_openlibs(L);
  const source = `obj = ${luaValue(object)}\nlocal hs = (function()\n${HEALTH_SNIPPET}\nend)()\nreturn hs.status, hs.message`;
  if (lauxlib.luaL_loadstring(L, to_luastring(source)) !== lua.LUA_OK || lua.lua_pcall(L, 0, 2, 0) !== lua.LUA_OK) {
    throw new Error(`the health snippet failed on a ${object.kind}: ${lua.lua_tojsstring(L, -1)}`);
  }
  return { status: lua.lua_tojsstring(L, -2) as ArgoHealth['status'], message: lua.lua_tojsstring(L, -1) ?? '' };
}

/** A JSON value as a Lua constructor, as Argo CD converts an object: maps to tables, arrays to sequences, null to nil. */
function luaValue(value: unknown): string {
  if (value === null || value === undefined) return 'nil';
  if (typeof value === 'string') return JSON.stringify(value).replace(/\\u([0-9a-fA-F]{4})/g, '\\u{$1}');
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `{${value.map(luaValue).join(', ')}}`;
  return `{${Object.entries(value as Record<string, unknown>)
    .map(([key, item]) => `[${luaValue(key)}] = ${luaValue(item)}`)
    .join(', ')}}`;
}
