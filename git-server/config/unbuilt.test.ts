import { describe, expect, it } from 'vitest';
import { parseConfig } from './load-config.ts';
import { unbuiltSettings } from './unbuilt.ts';

const SECRET = 'x'.repeat(32);
const parse = (text: string) => parseConfig(text, {}, { source: 'test.yaml', baseDir: '/tmp' });

describe('unbuiltSettings', () => {
  it('names each setting that is accepted but not acted on yet, and nothing for a plain serving config', () => {
    const plain = parse(`store: {bucket: repos, s3: {credentials: default}}\nserver: {roles: [serve]}\nauth: {token_secret: ${SECRET}}\n`);
    expect(unbuiltSettings(plain)).toEqual([]);
    expect(unbuiltSettings(parse(`store: {bucket: repos, s3: {credentials: default}}\nauth: {token_secret: ${SECRET}}\n`))).toEqual([]); // every role, by default
    const hopeful = parse(
      `store: {bucket: repos, s3: {credentials: default}}\nserver: {roles: [maintain, events], cors_origins: ['https://app.example.com']}\nauth: {token_secret: ${SECRET}}\nevents: {webhook_url: 'https://hooks.example.com/x'}\n`,
    );
    expect(unbuiltSettings(hopeful)).toEqual(['server.roles: serving is not separated from the other roles yet; this instance serves git, LFS and the API too']);
  });
});
