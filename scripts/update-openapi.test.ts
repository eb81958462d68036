import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { pythonToolPath } from '../e2e/harness/python-tools.ts';
import { SCOPE_NAMES } from '../src/auth/index.ts';
import { OPENAPI_PATH, renderOpenApi } from './update-openapi.ts';

// docs/openapi.json is committed (clients and reviewers read it) but generated from the route schemas: fail
// when a route changed without regenerating it, or when the document breaks the API's own conventions.
const FIX = 'docs/openapi.json is out of date with the routes; run `make openapi` (node scripts/update-openapi.ts) and commit the result';

/**
 * Operations anyone may call without a token, and why. A route that answers without authentication must be
 * listed here, so being public is a decision a reviewer sees, never an accident.
 */
const PUBLIC: Record<string, string> = {
  'POST /v1/device/code': 'RFC 8628: a signed-out device starts a sign-in',
  'POST /v1/device/token': 'RFC 8628: the device polls for its token with the device code it holds',
  'POST /v1/session': 'a person signs in to the console with a password: they hold no token yet',
  'GET /v1/session/methods': 'the console’s sign-in page asks what it may offer before anyone is signed in',
  'GET /healthz': 'probes (kubelet, load balancers) carry no token',
  'GET /readyz': 'probes (kubelet, load balancers) carry no token',
};

/** The one documented exception to problem details: OAuth clients branch on `error` (see api/schemas/device.ts). */
const OAUTH_ERROR_OPERATIONS = new Set(['POST /v1/device/token']);

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;

interface Operation {
  security?: Record<string, string[]>[];
  parameters?: { in: string; name: string }[];
  requestBody?: { content?: Record<string, unknown> };
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

interface Document {
  openapi: string;
  paths: Record<string, Partial<Record<(typeof METHODS)[number], Operation>>>;
  components?: { securitySchemes?: Record<string, unknown> };
}

let rendered: string;
let doc: Document;
let operations: [string, Operation][];

beforeAll(async () => {
  rendered = await renderOpenApi();
  doc = JSON.parse(rendered) as Document;
  operations = Object.entries(doc.paths).flatMap(([path, item]) =>
    METHODS.flatMap((method) => {
      const op = item[method];
      return op ? [[`${method.toUpperCase()} ${path}`, op] as [string, Operation]] : [];
    }),
  );
});

/** One message per offending operation, so a failure lists everything to fix at once. */
function offenders(rule: (name: string, op: Operation) => string | undefined): string[] {
  return operations.flatMap(([name, op]) => {
    const problem = rule(name, op);
    return problem ? [`${name}: ${problem}`] : [];
  });
}

function missing(op: Operation, statuses: number[]): number[] {
  return statuses.filter((status) => !(String(status) in (op.responses ?? {})));
}

it('docs/openapi.json matches what the routes produce', () => {
  let committed: string | undefined;
  try {
    committed = readFileSync(OPENAPI_PATH, 'utf8');
  } catch {
    committed = undefined;
  }
  expect(committed === undefined ? 'docs/openapi.json is missing' : committed === rendered ? 'same' : 'differs', FIX).toBe('same');
});

// The validator is a Python process: seconds to start on two cores busy with the integration tests.
it('is a valid OpenAPI 3.1 document', { timeout: 60_000 }, () => {
  expect(doc.openapi).toBe('3.1.0');
  const dir = mkdtempSync(join(tmpdir(), 'cw-openapi-'));
  try {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, rendered);
    let output: string;
    try {
      output = execFileSync(pythonToolPath('openapi-spec-validator'), ['--schema', '3.1', '--validation-errors', 'all', file], { encoding: 'utf8' });
    } catch (err) {
      const { stdout, stderr } = err as { stdout?: string; stderr?: string };
      // Some of its messages quote the whole document; keep the start of each line.
      const said = `${stdout ?? ''}${stderr ?? ''}`.split('\n').map((line) => (line.length > 600 ? `${line.slice(0, 600)} …` : line));
      throw new Error(`openapi-spec-validator rejects the generated document:\n${said.join('\n')}`);
    }
    expect(output).toContain('OK');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

describe('conventions', () => {
  it('has operations', () => {
    expect(operations.length).toBeGreaterThan(0);
  });

  it('every operation needs a token with a known scheme and scopes, or is listed as public', () => {
    const schemes = doc.components?.securitySchemes ?? {};
    const problems = offenders((name, op) => {
      const requirements = op.security ?? [];
      if (requirements.length === 0) return name in PUBLIC ? undefined : 'no security requirement, and not listed as public in PUBLIC';
      if (name in PUBLIC) return 'listed as public but has a security requirement; remove it from PUBLIC';
      for (const requirement of requirements) {
        for (const [scheme, scopes] of Object.entries(requirement)) {
          if (!(scheme in schemes)) return `security scheme ${scheme} is not in components.securitySchemes`;
          const unknown = scopes.filter((s) => !(SCOPE_NAMES as readonly string[]).includes(s));
          if (unknown.length > 0) return `unknown scopes ${unknown.join(', ')}`;
        }
      }
      return undefined;
    });
    const stale = Object.keys(PUBLIC).filter((name) => !operations.some(([n]) => n === name));
    expect([...problems, ...stale.map((n) => `${n}: listed in PUBLIC but no such operation`)]).toEqual([]);
  });

  it('every operation lists the errors it can answer with', () => {
    const problems = offenders((name, op) => {
      const secured = (op.security ?? []).length > 0;
      const scoped = (op.security ?? []).some((r) => Object.values(r).some((scopes) => scopes.length > 0));
      const validated = (op.parameters ?? []).length > 0 || op.requestBody !== undefined;
      const expected = [
        500, // anything can fail
        ...(secured ? [401, 429] : []), // no, bad or dead token; the per-caller rate limit (api/plugins/rate-limit.ts)
        ...(scoped ? [403] : []), // a token without the scope
        ...(validated ? [400] : []), // schema validation of parameters or body
        // The body limit, an unsupported content type: Fastify parses a body sent with any method but GET
        // (HEAD is not documented), whether the route wants one or not.
        ...(op.requestBody || !name.startsWith('GET ') ? [413, 415] : []),
      ];
      const absent = missing(op, expected).sort((a, b) => a - b);
      return absent.length > 0 ? `responses lack ${absent.join(', ')}` : undefined;
    });
    expect(problems).toEqual([]);
  });

  it('every error response is documented as an RFC 9457 problem detail (application/problem+json)', () => {
    const problems = offenders((name, op) => {
      const wrong = Object.entries(op.responses ?? {}).filter(([status, response]) => {
        if (Number(status) < 400) return false;
        if (status === '400' && OAUTH_ERROR_OPERATIONS.has(name)) return false;
        const schema = response.content?.['application/problem+json']?.schema as { $ref?: string; allOf?: { $ref?: string }[] } | undefined;
        // A problem detail, or one with extension members (RFC 9457 §3.2): the Problem schema and more.
        return (schema?.$ref ?? schema?.allOf?.[0]?.$ref) !== '#/components/schemas/Problem';
      });
      return wrong.length > 0
        ? `${wrong.map(([s]) => s).join(', ')} not documented as application/problem+json with the Problem schema (documented: ${
            [...new Set(wrong.flatMap(([, r]) => Object.keys(r.content ?? {})))].join(', ') || 'no content'
          })`
        : undefined;
    });
    expect(problems).toEqual([]);
  });
});
