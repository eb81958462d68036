import { describe, expect, it } from 'vitest';
import { splitRest } from './resolve-rest.ts';

const refs = ['refs/heads/main', 'refs/heads/feature', 'refs/heads/feature/login', 'refs/heads/features', 'refs/tags/v1', 'refs/tags/features', 'refs/tags/v1/rc', 'refs/notes/x'];

describe('splitRest', () => {
  it('takes the longest branch or tag that is a whole-segment prefix', () => {
    expect(splitRest('main', refs)).toEqual({ ref: 'refs/heads/main', path: '' });
    expect(splitRest('main/src/app.js', refs)).toEqual({ ref: 'refs/heads/main', path: 'src/app.js' });
    expect(splitRest('feature/login/src/app.js', refs)).toEqual({ ref: 'refs/heads/feature/login', path: 'src/app.js' });
    expect(splitRest('feature/logout/src', refs)).toEqual({ ref: 'refs/heads/feature', path: 'logout/src' });
    expect(splitRest('features/a', refs)).toEqual({ ref: 'refs/heads/features', path: 'a' });
    expect(splitRest('v1/rc/README.md', refs)).toEqual({ ref: 'refs/tags/v1/rc', path: 'README.md' });
    expect(splitRest('v1/README.md', refs)).toEqual({ ref: 'refs/tags/v1', path: 'README.md' });
  });

  it("takes git's <revision>:<path> form too", () => {
    expect(splitRest('main:src/app.js', refs)).toEqual({ ref: 'refs/heads/main', path: 'src/app.js' });
    expect(splitRest('feature/login:src', refs)).toEqual({ ref: 'refs/heads/feature/login', path: 'src' });
    expect(splitRest('abcd1234:docs/x.md', refs)).toEqual({ oid: 'abcd1234', path: 'docs/x.md' });
    // A colon after a path is part of a file name.
    expect(splitRest('main/src/a:b.txt', refs)).toEqual({ ref: 'refs/heads/main', path: 'src/a:b.txt' });
    expect(splitRest('nope:src', refs)).toBeUndefined();
  });

  it('prefers a branch to a tag of the same name', () => {
    expect(splitRest('features', refs)).toEqual({ ref: 'refs/heads/features', path: '' });
    expect(splitRest('features', ['refs/tags/features', 'refs/heads/features'])).toEqual({ ref: 'refs/heads/features', path: '' });
  });

  it('falls back to an object id as the first segment', () => {
    expect(splitRest('AbCd1234/docs/x.md', refs)).toEqual({ oid: 'abcd1234', path: 'docs/x.md' });
    expect(splitRest('a'.repeat(40), refs)).toEqual({ oid: 'a'.repeat(40), path: '' });
    expect(splitRest('abc', refs)).toBeUndefined();
    expect(splitRest('nope/src', refs)).toBeUndefined();
    expect(splitRest('x', ['refs/notes/x'])).toBeUndefined();
  });

  it('keeps a trailing slash as an empty path tail for the caller to normalise', () => {
    expect(splitRest('main/', refs)).toEqual({ ref: 'refs/heads/main', path: '' });
    expect(splitRest('main/src/', refs)).toEqual({ ref: 'refs/heads/main', path: 'src/' });
  });
});
