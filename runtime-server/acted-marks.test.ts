import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/kube/index.ts';
import { ActedMarks } from './acted-marks.ts';

const app = (project: string, name: string, resourceVersion: string): KubeObject => ({ metadata: { namespace: project, name, resourceVersion } });

describe('ActedMarks', () => {
  it('moves a project’s mark to its latest change once every change of its apps is acted on, and keeps the last mark meanwhile', () => {
    const marks = new ActedMarks();
    marks.changed(app('p', 'a', '10'));
    marks.changed(app('p', 'b', '11'));
    expect(marks.mark('p')).toBeUndefined();
    marks.acted('p/a', marks.begin('p/a'));
    expect(marks.mark('p')).toBeUndefined(); // b waits
    marks.acted('p/b', marks.begin('p/b'));
    expect(marks.mark('p')).toBe('11');

    marks.changed(app('p', 'a', '12'));
    expect(marks.mark('p')).toBe('11');
    marks.acted('p/a', marks.begin('p/a'));
    expect(marks.mark('p')).toBe('12');
  });

  it('does not count a reconcile that began before the latest change', () => {
    const marks = new ActedMarks();
    marks.changed(app('p', 'a', '10'));
    const early = marks.begin('p/a');
    marks.changed(app('p', 'a', '13'));
    marks.acted('p/a', early);
    expect(marks.mark('p')).toBeUndefined();
    marks.acted('p/a', marks.begin('p/a'));
    expect(marks.mark('p')).toBe('13');
    // A reconcile for another reason (a host name's change) with nothing pending changes nothing.
    marks.acted('p/a', marks.begin('p/a'));
    expect(marks.mark('p')).toBe('13');
  });

  it('keeps projects apart: one project’s pending change holds back only its own mark', () => {
    const marks = new ActedMarks();
    marks.changed(app('p', 'a', '10'));
    marks.changed(app('q', 'a', '11'));
    marks.acted('q/a', marks.begin('q/a'));
    expect(marks.mark('q')).toBe('11');
    expect(marks.mark('p')).toBeUndefined();
  });

  it('moves the mark over hidden changes at once when nothing waits, and names those projects once for a lazy write', () => {
    const marks = new ActedMarks();
    marks.changed(app('p', 'a', '10'));
    marks.acted('p/a', marks.begin('p/a'));
    marks.changedQuietly(app('p', 'a', '14'));
    expect(marks.mark('p')).toBe('14');
    expect(marks.takeQuietlyMoved()).toEqual(['p']);
    expect(marks.takeQuietlyMoved()).toEqual([]);

    // While a change waits, a hidden one moves nothing yet; the mark passes both once it is acted on.
    marks.changed(app('p', 'b', '15'));
    marks.changedQuietly(app('p', 'a', '16'));
    expect(marks.mark('p')).toBe('14');
    marks.acted('p/b', marks.begin('p/b'));
    expect(marks.mark('p')).toBe('16');
    expect(marks.takeQuietlyMoved()).toEqual([]);
  });

  it('orders resourceVersions as numbers, so a list’s changes may come in any order', () => {
    const marks = new ActedMarks();
    marks.changed(app('p', 'b', '100'));
    marks.changed(app('p', 'a', '99'));
    marks.acted('p/a', marks.begin('p/a'));
    marks.acted('p/b', marks.begin('p/b'));
    expect(marks.mark('p')).toBe('100');
  });
});
