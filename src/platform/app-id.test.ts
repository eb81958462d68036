import { describe, expect, it } from 'vitest';
import { DNS_LABEL_PATTERN } from '../apis/v1alpha1/strings.ts';
import { appIdFor } from './app-id.ts';

describe('appIdFor', () => {
  it('keeps a name that is a DNS label', () => {
    expect(appIdFor('web')).toBe('web');
    expect(appIdFor('shop-2')).toBe('shop-2');
  });

  it.each([
    ['My Shop', /^my-shop-[0-9a-f]{6}$/],
    ['Café  Crème!', /^cafe-creme-[0-9a-f]{6}$/],
    ['-web-', /^web-[0-9a-f]{6}$/],
    ['日本語', /^app-[0-9a-f]{6}$/],
    ['x'.repeat(100), /^x{40}-[0-9a-f]{6}$/],
  ])('slugs %j to a DNS label with a suffix', (name, expected) => {
    const id = appIdFor(name);
    expect(id).toMatch(expected);
    expect(id).toMatch(new RegExp(DNS_LABEL_PATTERN));
  });

  it('is deterministic and tells apart names that slug alike', () => {
    expect(appIdFor('My Shop')).toBe(appIdFor('My Shop'));
    // The example the docs and the API reference give.
    expect(appIdFor('My Shop')).toBe('my-shop-b14e76');
    expect(appIdFor('My Shop')).not.toBe(appIdFor('my shop'));
    expect(appIdFor('My Shop')).not.toBe('my-shop');
  });
});
