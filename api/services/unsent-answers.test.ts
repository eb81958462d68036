import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { UnsentAnswers } from './unsent-answers.ts';

const MiB = 1024 * 1024;

/** A response as the bound sees it: done when it emits `finish` or `close`. */
function response(state: { writableFinished?: boolean; destroyed?: boolean } = {}): ServerResponse & EventEmitter {
  return Object.assign(new EventEmitter(), { writableFinished: false, destroyed: false, ...state }) as unknown as ServerResponse & EventEmitter;
}

describe('UnsentAnswers', () => {
  it('refuses a project past its bound until its answers are taken, whoever else holds what', () => {
    const unsent = new UnsentAnswers({ perProject: 32 * MiB, total: 128 * MiB });
    const [a, b] = [response(), response()];
    unsent.hold('p1', 16 * MiB, a);
    expect(unsent.admits('p1')).toBe(true);
    unsent.hold('p1', 16 * MiB, b);
    expect(unsent.admits('p1')).toBe(false);
    expect(unsent.admits('p2')).toBe(true);
    a.emit('finish');
    a.emit('close'); // counted back once
    expect(unsent.held('p1')).toBe(16 * MiB);
    expect(unsent.admits('p1')).toBe(true);
    b.emit('close');
    expect(unsent.held()).toBe(0);
  });

  it('past the total, refuses the projects holding more than an equal share of it', () => {
    const unsent = new UnsentAnswers({ perProject: 64 * MiB, total: 96 * MiB });
    unsent.hold('big', 60 * MiB, response());
    unsent.hold('mid', 30 * MiB, response());
    unsent.hold('small', 10 * MiB, response());
    // 100 MiB in all, 33 MiB a share: the one over it waits, the others go on.
    expect([unsent.admits('big'), unsent.admits('mid'), unsent.admits('small'), unsent.admits('new')]).toEqual([false, true, true, true]);
  });

  it('counts nothing of a response already done', () => {
    const unsent = new UnsentAnswers();
    unsent.hold('p1', MiB, response({ destroyed: true }));
    unsent.hold('p1', MiB, response({ writableFinished: true }));
    expect(unsent.held()).toBe(0);
  });
});
