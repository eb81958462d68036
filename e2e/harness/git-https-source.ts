// A git repository served over real HTTPS smart HTTP from the test process, for imports from a URL: stock
// `git http-backend` (bench/git-http-backend.ts) behind a Node HTTPS server with a self-signed certificate for
// 127.0.0.1 made by openssl. Paths under `/private/` need credentials (Basic `git:<password>` or Bearer
// `<token>`); a path under `/stall/` is accepted and never answered.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { handle } from '../../bench/git-http-backend.ts';

export interface GitHttpsSource {
  /** `https://127.0.0.1:<port>` */
  readonly url: string;
  /** The certificate (its own CA), for `api.import_ca_file`. */
  readonly caFile: string;
  /** Requests served, by path (the query left out). */
  readonly requests: string[];
  close(): Promise<void>;
}

export interface GitHttpsSourceOptions {
  /** Bare repositories are `<root>/<path>`. */
  readonly root: string;
  /** What `/private/` accepts. */
  readonly password: string;
  readonly token: string;
  /** Where the key and certificate (`cert.pem`) are written. */
  readonly certDir: string;
}

export async function startGitHttpsSource(options: GitHttpsSourceOptions): Promise<GitHttpsSource> {
  const [keyFile, caFile] = [join(options.certDir, 'key.pem'), join(options.certDir, 'cert.pem')];
  const subject = ['-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'];
  await promisify(execFile)('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', ...subject, '-keyout', keyFile, '-out', caFile]);
  const requests: string[] = [];
  const basic = `Basic ${Buffer.from(`git:${options.password}`).toString('base64')}`;
  const server = https.createServer({ key: await readFile(keyFile), cert: await readFile(caFile) }, (req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    requests.push(path);
    if (path.startsWith('/stall/')) return; // never answered: the importer's time bound must end it
    if (path.startsWith('/private/') && req.headers.authorization !== basic && req.headers.authorization !== `Bearer ${options.token}`) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="source"' }).end();
      return;
    }
    handle(req, res, options.root);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    caFile,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
