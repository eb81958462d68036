import { describe, expect, it } from 'vitest';
import { WebSocketBudget } from './websocket-budget.ts';

/** Takes a place for `client`, recording its closing in `closed`. */
function open(budget: WebSocketBudget, project: string, client: string, closed: string[], name: string) {
  return budget.take(project, client, () => closed.push(name));
}

describe('WebSocketBudget', () => {
  it('holds a project to its bound, apart from other projects, and takes one again once one is given back', () => {
    const budget = new WebSocketBudget(2);
    const closed: string[] = [];
    const first = open(budget, 'p', 'a', closed, 'a1');
    expect(open(budget, 'p', 'a', closed, 'a2')).toBeDefined();
    expect(open(budget, 'p', 'a', closed, 'a3')).toBeUndefined();
    expect(open(budget, 'q', 'a', closed, 'q1')).toBeDefined();
    first!();
    first!(); // given back once only
    expect(open(budget, 'p', 'a', closed, 'a4')).toBeDefined();
    expect(open(budget, 'p', 'a', closed, 'a5')).toBeUndefined();
    expect(closed).toEqual([]);
  });

  it('makes room for a client holding fewer by closing the oldest of the client holding the most, until they hold about as many', () => {
    const budget = new WebSocketBudget(4);
    const closed: string[] = [];
    for (const n of [1, 2, 3, 4]) expect(open(budget, 'p', 'hog', closed, `hog${n}`)).toBeDefined();
    expect(open(budget, 'p', 'b', closed, 'b1')).toBeDefined();
    expect(closed).toEqual(['hog1']);
    expect(open(budget, 'p', 'c', closed, 'c1')).toBeDefined();
    expect(closed).toEqual(['hog1', 'hog2']);
    // hog 2, b 1, c 1: the hog is among those holding the most, and b would hold as many as it.
    expect(open(budget, 'p', 'hog', closed, 'hog5')).toBeUndefined();
    expect(open(budget, 'p', 'b', closed, 'b2')).toBeUndefined();
    expect(open(budget, 'p', 'd', closed, 'd1')).toBeDefined();
    expect(closed).toEqual(['hog1', 'hog2', 'hog3']);
  });

  it('refuses past the bound when every WebSocket comes from one address (an untrusted ingress, a load balancer)', () => {
    const budget = new WebSocketBudget(3);
    const closed: string[] = [];
    for (const n of [1, 2, 3]) expect(open(budget, 'p', 'lb', closed, `lb${n}`)).toBeDefined();
    expect(open(budget, 'p', 'lb', closed, 'lb4')).toBeUndefined();
    expect(closed).toEqual([]);
  });

  it('a place closed to make room is given back once, whatever its connection does after', () => {
    const budget = new WebSocketBudget(2);
    const closed: string[] = [];
    const hog1 = open(budget, 'p', 'hog', closed, 'hog1');
    open(budget, 'p', 'hog', closed, 'hog2');
    open(budget, 'p', 'b', closed, 'b1');
    expect(closed).toEqual(['hog1']);
    hog1!(); // its connection's close arrives later: no second give-back
    expect(open(budget, 'p', 'c', closed, 'c1')).toBeUndefined();
  });
});
