import { describe, expect, it } from 'vitest';
import { KubeApiError } from '../kube/api-error.ts';
import { createLogger } from './log.ts';

describe('createLogger', () => {
  it('writes one JSON line per event, with child fields and errors by message', () => {
    const lines: string[] = [];
    const log = createLogger({ write: (l) => void lines.push(l), now: () => 0 }).child({ controller: 'app' });
    log.child({ namespace: 'p1', name: 'web' }).error('reconcile failed', { err: new KubeApiError(409, 'modified', 'Conflict'), skipped: undefined });
    expect(lines).toHaveLength(1);
    expect(lines[0]?.endsWith('\n')).toBe(true);
    expect(JSON.parse(lines[0] ?? '')).toEqual({
      time: '1970-01-01T00:00:00.000Z',
      level: 'error',
      msg: 'reconcile failed',
      controller: 'app',
      namespace: 'p1',
      name: 'web',
      err: { name: 'KubeApiError', message: 'modified', code: 409, reason: 'Conflict' },
    });
  });

  it('drops lines below the level', () => {
    const lines: string[] = [];
    const log = createLogger({ level: 'warn', write: (l) => void lines.push(l) });
    log.debug('x');
    log.info('x');
    log.warn('x');
    expect(lines).toHaveLength(1);
  });
});
