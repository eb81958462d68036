import { describe, expect, it } from 'vitest';
import { KubeApiError } from './api-error.ts';
import { retryOnConflict } from './retry.ts';

const conflict = () => new KubeApiError(409, 'the object has been modified', 'Conflict');

describe('retryOnConflict', () => {
  it('runs the write again after a conflict, and answers its result', async () => {
    let calls = 0;
    const result = await retryOnConflict(async () => {
      calls++;
      if (calls < 3) throw conflict();
      return 'written';
    });
    expect(result).toBe('written');
    expect(calls).toBe(3);
  });

  it('gives the last conflict up after the attempts, and any other error at once', async () => {
    let calls = 0;
    await expect(retryOnConflict(async () => (calls++, Promise.reject(conflict())), 2)).rejects.toMatchObject({ code: 409 });
    expect(calls).toBe(2);
    calls = 0;
    await expect(retryOnConflict(async () => (calls++, Promise.reject(new Error('boom'))))).rejects.toThrow('boom');
    expect(calls).toBe(1);
  });
});
