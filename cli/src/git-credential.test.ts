import { describe, expect, it } from 'vitest';
import { formatCredentials, parseCredentialRequest, projectOfRequest, shellQuote } from './git-credential.ts';

describe('git credential protocol', () => {
  it('reads git’s attributes up to the blank line', () => {
    expect(parseCredentialRequest('protocol=https\nhost=git.example.com\npath=acme/site.git\nwwwauth[]=Basic realm="cw-git"\n\nignored=1\n')).toEqual({
      protocol: 'https',
      host: 'git.example.com',
      path: 'acme/site.git',
      'wwwauth[]': 'Basic realm="cw-git"',
    });
    expect(parseCredentialRequest('protocol=http\r\nhost=h\r\n')).toEqual({ protocol: 'http', host: 'h' });
    expect(parseCredentialRequest('')).toEqual({});
  });

  it('answers key=value lines and refuses a value that would break them', () => {
    expect(formatCredentials({ username: 'ada', password: 'cwg_x' })).toBe('username=ada\npassword=cwg_x\n');
    expect(() => formatCredentials({ password: 'a\nusername=mallory' })).toThrow(/newline/);
  });

  it('finds the project in the path under the service’s URL, and nothing for other hosts', () => {
    const url = 'http://127.0.0.1:8090';
    expect(projectOfRequest({ protocol: 'http', host: '127.0.0.1:8090', path: 'acme/site.git' }, url)).toEqual({ project: 'acme' });
    expect(projectOfRequest({ protocol: 'http', host: '127.0.0.1:8090', path: 'acme/site.git/info/lfs' }, url)).toEqual({ project: 'acme' });
    expect(projectOfRequest({ protocol: 'http', host: '127.0.0.1:8090' }, url)).toEqual({});
    expect(projectOfRequest({ protocol: 'https', host: '127.0.0.1:8090', path: 'acme/site' }, url)).toBeUndefined();
    expect(projectOfRequest({ protocol: 'http', host: 'github.com', path: 'acme/site' }, url)).toBeUndefined();
    expect(projectOfRequest({ protocol: 'http', host: '127.0.0.1:8090', path: 'Not_A_Project/x' }, url)).toEqual({});
  });

  it('honours a path prefix of the service', () => {
    const url = 'https://git.example.com/git/';
    expect(projectOfRequest({ protocol: 'https', host: 'git.example.com', path: 'git/acme/site.git' }, url)).toEqual({ project: 'acme' });
    expect(projectOfRequest({ protocol: 'https', host: 'git.example.com', path: 'other/acme/site.git' }, url)).toBeUndefined();
    expect(projectOfRequest({ protocol: 'https', host: 'GIT.example.com', path: 'git/acme/x' }, url)).toEqual({ project: 'acme' });
  });

  it('quotes for the shell git runs the helper with', () => {
    expect(shellQuote("/opt/it's here/cw.js")).toBe(`'/opt/it'\\''s here/cw.js'`);
  });
});
