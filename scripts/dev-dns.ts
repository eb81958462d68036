// `make delegate DOMAIN=…` / `make undelegate DOMAIN=…` / `make dns-publish NAME=… TYPE=… VALUE=…`: change the
// development parent zone (`test.`) that `make dev` serves, as a registrar and the owner's own DNS would. The
// delegation points the domain at the nameservers of its hosted zone, read from its ProjectDomain.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ProjectDomain } from '../src/apis/v1alpha1/project-domain.ts';
import { loadKubeConnection, objectClient } from '../src/kube/index.ts';
import { PROJECT_DOMAINS } from '../src/platform/resources.ts';
import { repoRoot } from '../e2e/harness/tools.ts';

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

function devEnv(): Record<string, string> {
  const path = join(repoRoot, '.dev/env');
  if (!existsSync(path)) fail('.dev/env is missing: start `make dev` first (in another terminal).');
  const env: Record<string, string> = {};
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) env[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return env;
}

async function call(url: string, method: string, body?: unknown): Promise<void> {
  let res: Response;
  try {
    res = await fetch(url, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  } catch {
    fail('the development parent zone does not answer: is `make dev` still running?');
  }
  if (!res.ok) fail(`the parent zone refused: ${((await res.json()) as { error?: string }).error ?? res.status}`);
}

async function main(args: string[]): Promise<void> {
  const [command, ...rest] = args;
  const env = devEnv();
  const control = env.CW_DEV_DNS_CONTROL_URL ?? fail('.dev/env has no CW_DEV_DNS_CONTROL_URL: restart `make dev`.');
  const domain = (rest[0] ?? '').trim().toLowerCase().replace(/\.$/, '');
  if (command === 'publish') {
    const [name, type, ...values] = rest;
    if (!name || !type) fail('usage: make dns-publish NAME=<name> TYPE=<A|AAAA|CNAME|TXT> VALUE=<value> (an empty VALUE removes the records)');
    await call(`${control}/records/${encodeURIComponent(name)}/${encodeURIComponent(type)}`, 'PUT', { values: values.filter(Boolean) });
    console.log(`published ${type} ${name} ${values.join(' ') || '(removed)'}`);
    return;
  }
  if (!domain || (command !== 'delegate' && command !== 'undelegate')) fail('usage: make delegate DOMAIN=<domain> | make undelegate DOMAIN=<domain>');
  if (command === 'undelegate') {
    await call(`${control}/delegations/${encodeURIComponent(domain)}`, 'DELETE');
    console.log(`${domain} is no longer delegated in the development parent zone`);
    return;
  }
  const kube = loadKubeConnection(env.KUBECONFIG);
  const all = (await objectClient<ProjectDomain>(kube, PROJECT_DOMAINS).list('')).items;
  const found = all.find((d) => d.spec.domain === domain && !d.spec.deleted && !d.metadata?.deletionTimestamp);
  if (!found) fail(`no project has the domain ${domain}; add it first (POST $CW_API_URL/v1/projects/$CW_PROJECT/domains).`);
  const nameservers = found.status?.nameservers ?? [];
  if (nameservers.length === 0) fail(`${domain} has no hosted zone yet; see \`kubectl get projectdomains -A\` for why.`);
  await call(`${control}/delegations/${encodeURIComponent(domain)}`, 'PUT', { nameservers });
  console.log(`${domain} is delegated to ${nameservers.join(', ')}; now run its delegation check`);
}

await main(process.argv.slice(2));
