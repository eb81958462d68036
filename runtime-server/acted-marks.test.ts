import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/kube/index.ts';
import { ActedMarks } from './acted-marks.ts';

const app = (project: string, name: string, resourceVersion: string): KubeObject => ({ metadata: { namespace: project, name, resourceVersion } });

describe('ActedMarks', () => {
  it('moves a project’s mark over its changes acted on, in the order they came, up to the first one waiting', () => {
    const marks = new ActedMarks();
    marks.changed(app('p', 'a', '10'));
    marks.changed(app('p', 'b', '11'));
    marks.changed(app('p', 'c', '12'));
    expect(marks.mark('p')).toBeUndefined();
    marks.acted('p/b', marks.begin('p/b'));
    expect(marks.mark('p')).toBeUndefined(); // a, before b, waits
    marks.acted('p/a', marks.begin('p/a'));
    expect(marks.mark('p')).toBe('11'); // past a and b; c waits
    marks.acted('p/c', marks.begin('p/c'));
    expect(marks.mark('p')).toBe('12');
  });

  it('does not let a reconcile that began before a change pass it, but passes what it began after', () => {
    const marks = new ActedMarks();
    marks.changed(app('p', 'a', '10'));
    const early = marks.begin('p/a');
    marks.changed(app('p', 'a', '13'));
    marks.acted('p/a', early);
    expect(marks.mark('p')).toBe('10');
    marks.acted('p/a', marks.begin('p/a'));
    expect(marks.mark('p')).toBe('13');
    // A reconcile for another reason (a host name's change) with nothing waiting changes nothing.
    marks.acted('p/a', marks.begin('p/a'));
    expect(marks.mark('p')).toBe('13');
  });

  it('keeps projects apart: one project’s waiting change holds back only its own mark, and a busy one still moves', () => {
    const marks = new ActedMarks();
    marks.changed(app('p', 'a', '10'));
    marks.changed(app('q', 'a', '11'));
    marks.acted('q/a', marks.begin('q/a'));
    expect(marks.mark('q')).toBe('11');
    expect(marks.mark('p')).toBeUndefined();
    // p deploys without pause: each change acted on moves its mark although the next waits.
    for (let v = 20; v < 30; v += 2) {
      marks.changed(app('p', 'b', String(v + 1)));
      marks.acted('p/a', marks.begin('p/a'));
      const before = marks.mark('p');
      marks.acted('p/b', marks.begin('p/b'));
      marks.changed(app('p', 'a', String(v + 2)));
      expect(marks.mark('p')).not.toBe(before);
    }
  });

  it('moves the mark over hidden changes at once when nothing waits, and names those projects once for a lazy write', () => {
    const marks = new ActedMarks();
    marks.changed(app('p', 'a', '10'));
    marks.acted('p/a', marks.begin('p/a'));
    marks.changedQuietly(app('p', 'a', '14'));
    expect(marks.mark('p')).toBe('14');
    expect(marks.takeQuietlyMoved()).toEqual(['p']);
    expect(marks.takeQuietlyMoved()).toEqual([]);

    // Behind a change waiting, a hidden one waits its turn; both are passed once it is acted on.
    marks.changed(app('p', 'b', '15'));
    marks.changedQuietly(app('p', 'a', '16'));
    expect(marks.mark('p')).toBe('14');
    marks.acted('p/b', marks.begin('p/b'));
    expect(marks.mark('p')).toBe('16');
  });

  it('never lowers a mark: a relist gives its changes in key order, not version order', () => {
    const marks = new ActedMarks();
    marks.changed(app('p', 'a', '100'));
    marks.changed(app('p', 'b', '99'));
    marks.acted('p/b', marks.begin('p/b'));
    marks.acted('p/a', marks.begin('p/a'));
    expect(marks.mark('p')).toBe('100');
  });
});

describe('ActedMarks after a relist', () => {
  it('keeps the mark below a change still waiting that is older than one acted on', () => {
    const marks = new ActedMarks();
    // A relist in key order: a (300) acted on first, z (250) created in the watch's gap, still waiting.
    marks.changed(app('p', 'z', '250'));
    marks.changed(app('p', 'a', '300'));
    marks.acted('p/a', marks.begin('p/a'));
    expect(marks.mark('p')).toBeUndefined(); // z is first in the queue
    const marks2 = new ActedMarks();
    marks2.changed(app('p', 'a', '300'));
    marks2.changed(app('p', 'z', '250'));
    marks2.acted('p/a', marks2.begin('p/a'));
    expect(marks2.mark('p')).toBe('249');
    marks2.acted('p/z', marks2.begin('p/z'));
    expect(marks2.mark('p')).toBe('300');
  });
});
