import { describe, expect, it } from 'vitest';
import { KubeApiError } from './api-error.ts';
import { countQuantity, quotaRefusal } from './quota.ts';

describe('countQuantity', () => {
  it.each<[string | undefined, number | undefined]>([
    ['100', 100],
    ['0', 0],
    ['50k', 50_000],
    ['10k', 10_000],
    ['3200', 3200],
    ['2M', 2_000_000],
    ['1.5k', undefined],
    ['100m', undefined],
    ['1Ki', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('%j is %j', (value, count) => expect(countQuantity(value)).toBe(count));
});

describe('quotaRefusal', () => {
  const forbidden = (message: string) => new KubeApiError(403, message, 'Forbidden');

  it('reads which counts a create would pass, as quota admission says it', () => {
    const err = forbidden(
      'runtimeapps.cloudwright.dev "a101" is forbidden: exceeded quota: cloudwright-project, requested: count/runtimeapps.cloudwright.dev=1, ' +
        'used: count/runtimeapps.cloudwright.dev=100, limited: count/runtimeapps.cloudwright.dev=100',
    );
    expect(quotaRefusal(err)).toEqual({ kind: 'exceeded', quota: 'cloudwright-project', exceeded: [{ resource: 'count/runtimeapps.cloudwright.dev', used: 100, limited: 100 }] });
  });

  it('reads several counts and canonical quantities', () => {
    const err = forbidden('x "y" is forbidden: exceeded quota: q, requested: count/a=1,count/b=1, used: count/a=50k,count/b=3, limited: count/a=50k,count/b=3');
    expect(quotaRefusal(err)).toMatchObject({
      exceeded: [
        { resource: 'count/a', used: 50_000, limited: 50_000 },
        { resource: 'count/b', used: 3, limited: 3 },
      ],
    });
  });

  it('tells a quota not counted yet', () => {
    expect(quotaRefusal(forbidden('databases.cloudwright.dev "d" is forbidden: status unknown for quota: cloudwright-project, resources: count/databases.cloudwright.dev'))).toEqual({
      kind: 'status-unknown',
      quota: 'cloudwright-project',
    });
  });

  it.each<[string, unknown]>([
    ['another 403', forbidden('runtimeapps.cloudwright.dev is forbidden: User "x" cannot create resource')],
    ['a 409 that mentions a quota', new KubeApiError(409, 'exceeded quota: q, requested: a=1, used: a=1, limited: a=1')],
    ['not an error', 'exceeded quota'],
  ])('is undefined for %s', (_, err) => expect(quotaRefusal(err)).toBeUndefined());
});
