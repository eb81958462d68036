import { describe, expect, it } from 'vitest';
import { WebSocketBudget } from './websocket-budget.ts';

describe('WebSocketBudget', () => {
  it('holds an account to its bound, apart from other accounts, and takes one again once one is given back', () => {
    const budget = new WebSocketBudget(4);
    const places = ['a', 'a', 'b', 'b'].map((client) => budget.take('p', client));
    expect(places.every((place) => 'giveBack' in place)).toBe(true);
    expect(budget.take('p', 'c')).toEqual({ refused: 'account' });
    expect('giveBack' in budget.take('q', 'c')).toBe(true);
    const first = places[0] as { giveBack: () => void };
    first.giveBack();
    first.giveBack(); // given back once only
    expect('giveBack' in budget.take('p', 'c')).toBe(true);
    expect(budget.take('p', 'c')).toEqual({ refused: 'account' });
  });

  it('lets one client hold half of it, so it cannot keep the others out, and closes nobody to make room (found in review)', () => {
    const budget = new WebSocketBudget(4);
    expect([budget.take('p', 'hog'), budget.take('p', 'hog')].every((place) => 'giveBack' in place)).toBe(true);
    expect(budget.take('p', 'hog')).toEqual({ refused: 'client' });
    expect([budget.take('p', 'b'), budget.take('p', 'c')].every((place) => 'giveBack' in place)).toBe(true);
    expect(budget.take('p', 'd')).toEqual({ refused: 'account' });
    expect(budget.perClient).toBe(2);
  });
});
