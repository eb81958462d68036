import { hash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DNS_LABEL_PATTERN } from '../../apis/v1alpha1/strings.ts';
import { databaseIdFor, databaseTokenSha256, DATABASE_TOKEN_PREFIX, generateDatabaseToken, newDatabaseTokenId } from './database-token.ts';

describe('database tokens', () => {
  it('are cwdb_ and 43 base-62 characters, each one new', () => {
    const tokens = Array.from({ length: 200 }, () => generateDatabaseToken());
    expect(DATABASE_TOKEN_PREFIX).toBe('cwdb_');
    for (const token of tokens) {
      expect(token).toMatch(/^cwdb_[0-9A-Za-z]{43}$/);
      expect(token).toHaveLength(48);
    }
    expect(new Set(tokens).size).toBe(tokens.length);
    // Drawn from the whole alphabet, not a narrow part of it.
    expect(new Set(tokens.join('').slice(0, 2000)).size).toBeGreaterThan(55);
  });

  it('are kept as their lowercase hex SHA-256', () => {
    expect(databaseTokenSha256('cwdb_x')).toBe(hash('sha256', 'cwdb_x', 'hex'));
    expect(databaseTokenSha256('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('have ids of dbt- and 16 hex digits, unrelated to one another', () => {
    const ids = Array.from({ length: 100 }, () => newDatabaseTokenId());
    for (const id of ids) expect(id).toMatch(/^dbt-[0-9a-f]{16}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('databaseIdFor', () => {
  const uid = '3f2a9c1e-7b4d-4e8a-9c0f-1a2b3c4d5e6f';

  it('is a DNS label from the uid, the same every time', () => {
    const id = databaseIdFor(uid);
    expect(id).toBe('db-3f2a9c1e7b4d4e8a9c0f');
    expect(id).toMatch(new RegExp(DNS_LABEL_PATTERN));
    expect(id.length).toBeLessThanOrEqual(63);
    expect(databaseIdFor(uid)).toBe(id);
  });

  it('differs for different uids (it keeps their first 80 bits)', () => {
    expect(databaseIdFor('10000000-0000-4000-8000-000000000000')).not.toBe(databaseIdFor('20000000-0000-4000-8000-000000000000'));
    expect(databaseIdFor('00000000-0000-4000-8001-000000000000')).not.toBe(databaseIdFor('00000000-0000-4000-8002-000000000000'));
    expect(databaseIdFor('ffffffff-ffff-4fff-bfff-ffffffffffff')).toMatch(new RegExp(DNS_LABEL_PATTERN));
  });
});
