// git's credential-helper protocol (gitcredentials(7), git-credential(1)): git writes `key=value` lines (protocol,
// host, path, username, password…) to the helper's stdin, ending with a blank line or EOF, and a `get` answers the
// same way. Values cannot hold a newline; a NUL or newline in one is refused, as git refuses it.

/** What git asks about: the attributes it sent. */
export type CredentialRequest = Readonly<Record<string, string>>;

/** Parses git's request; unknown keys are kept (git adds new ones over time), `key[]=` lists keep their last value. */
export function parseCredentialRequest(text: string): CredentialRequest {
  const attributes: Record<string, string> = {};
  for (const line of text.split('\n')) {
    if (line === '') break;
    const at = line.indexOf('=');
    if (at <= 0) continue;
    attributes[line.slice(0, at)] = line.slice(at + 1).replace(/\r$/, '');
  }
  return attributes;
}

/** The answer to a `get`: one `key=value` line each, values checked to be single lines. */
export function formatCredentials(answer: Readonly<Record<string, string>>): string {
  return Object.entries(answer)
    .map(([key, value]) => {
      if (/[\n\0]/.test(value)) throw new Error(`credential ${key} holds a newline or NUL`);
      return `${key}=${value}\n`;
    })
    .join('');
}

/**
 * Which project a request is for, when it is for the repository service at `gitUrl` at all: the request's
 * protocol and host must be the service's, and its path (sent when `credential.useHttpPath` is on) must lie under
 * the service's own path; its first segment there is the repository's owner, which is the project. Answers
 * `undefined` for another host (the helper then says nothing, and git asks its other helpers), and `{}` when
 * git sent no path.
 */
export function projectOfRequest(request: CredentialRequest, gitUrl: string): { project?: string } | undefined {
  let base: URL;
  try {
    base = new URL(gitUrl);
  } catch {
    return undefined;
  }
  if (request.protocol !== base.protocol.replace(/:$/, '') || request.host?.toLowerCase() !== base.host.toLowerCase()) return undefined;
  if (request.path === undefined) return {};
  const prefix = base.pathname.replace(/^\/+|\/+$/g, '');
  const path = request.path.replace(/^\/+/, '');
  const rest = prefix === '' ? path : path.startsWith(`${prefix}/`) ? path.slice(prefix.length + 1) : undefined;
  if (rest === undefined) return undefined;
  const owner = rest.split('/')[0] ?? '';
  return /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(owner) ? { project: owner } : {};
}

/** `s` quoted for a POSIX shell (git runs a `!` helper with `sh -c`). */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}
