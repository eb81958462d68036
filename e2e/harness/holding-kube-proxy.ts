// A plain-HTTP proxy in front of the apiserver that holds an informer's requests for chosen kinds (its lists and
// watches of `/runtimeapps`, say: a collection asked for with a query) until released, and passes everything else
// through: a replica behind it sees an installation whose lists take as long as the test wants, while its reads of
// single objects and plain lists of one namespace answer at once. (client-node speaks plain HTTP only with TLS
// verification off: there is nothing to verify.)
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';

export interface HoldingKubeProxy {
  /** A kubeconfig whose server is this proxy (plain HTTP, the real one's token). */
  readonly kubeconfig: string;
  /** Requests held so far (they stay counted after release). */
  readonly held: number;
  release(): void;
  close(): Promise<void>;
}

interface Kubeconfig {
  clusters: Array<{ cluster: { server: string; 'certificate-authority-data'?: string; 'insecure-skip-tls-verify'?: boolean } }>;
}

/** Starts a proxy to the apiserver of `kubeconfig` holding the collection requests of `plurals`; its kubeconfig is written into `dir`. */
export async function startHoldingKubeProxy(kubeconfig: string, plurals: readonly string[], dir: string): Promise<HoldingKubeProxy> {
  const config = parse(readFileSync(kubeconfig, 'utf8')) as Kubeconfig;
  const cluster = config.clusters[0]?.cluster;
  if (!cluster) throw new Error(`${kubeconfig} names no cluster`);
  const upstream = new URL(cluster.server);
  const ca = cluster['certificate-authority-data'] ? Buffer.from(cluster['certificate-authority-data'], 'base64') : undefined;
  const collection = new RegExp(`/(${plurals.join('|')})\\?`);
  const waiting: Array<() => void> = [];
  let released = false;
  let held = 0;
  const forward = (req: IncomingMessage, res: ServerResponse) => {
    const options = { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host }, ...(ca ? { ca } : {}) };
    const out = (upstream.protocol === 'https:' ? httpsRequest : httpRequest)(options, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on('error', () => res.destroy());
    res.on('close', () => out.destroy());
    req.pipe(out);
  };
  const server = createServer((req, res) => {
    if (!released && req.method === 'GET' && collection.test(req.url ?? '')) {
      held += 1;
      waiting.push(() => forward(req, res));
      return;
    }
    forward(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxied = { ...config, clusters: config.clusters.map((c) => ({ ...c, cluster: { server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, 'insecure-skip-tls-verify': true } })) };
  const path = join(dir, `holding-proxy-${(server.address() as AddressInfo).port}.kubeconfig`);
  writeFileSync(path, stringify(proxied), { mode: 0o600 });
  return {
    kubeconfig: path,
    get held() {
      return held;
    },
    release() {
      released = true;
      for (const go of waiting.splice(0)) go();
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
