import { describe, expect, it } from 'vitest';
import { FairTurns } from './fair-turns.ts';

/** Runs `statements` turns for `tenant`, noting each one in `order`. */
async function work(turns: FairTurns, tenant: string, statements: number, order: string[]): Promise<void> {
  for (let i = 0; i < statements; i++) {
    await turns.acquire(tenant);
    order.push(tenant);
    turns.release();
  }
}

describe('FairTurns', () => {
  it('alternates between databases with work, whatever order their requests came in', async () => {
    const turns = new FairTurns();
    const order: string[] = [];
    await Promise.all([work(turns, 'a', 3, order), work(turns, 'b', 3, order), work(turns, 'c', 1, order)]);
    expect(order).toEqual(['a', 'b', 'c', 'a', 'b', 'a', 'b']);
  });

  it("takes turns by project first: one project's many databases get one turn a round between them, as another's one does", async () => {
    const turns = new FairTurns();
    const order: string[] = [];
    const work = async (tenant: string, project: string) => {
      for (let i = 0; i < 2; i++) {
        await turns.acquire(tenant, project);
        order.push(tenant);
        turns.release();
      }
    };
    await Promise.all([work('h1', 'hog'), work('h2', 'hog'), work('h3', 'hog'), work('v', 'victim')]);
    expect(order).toEqual(['h1', 'v', 'h2', 'v', 'h3', 'h1', 'h2', 'h3']);
  });

  it('lets a database that was waiting go before one whose next request came after it', async () => {
    const turns = new FairTurns();
    const order: string[] = [];
    await turns.acquire('a');
    const waiting = work(turns, 'b', 1, order);
    // a's next request arrives while b waits: b goes first.
    const again = work(turns, 'a', 1, order);
    turns.release();
    await Promise.all([waiting, again]);
    expect(order).toEqual(['b', 'a']);
  });

  it('tells whether another project contends: one waits, or had a turn within the window', async () => {
    const turns = new FairTurns();
    await turns.acquire('db-a', 'hog');
    expect(turns.othersContend('hog', 1_000)).toBe(false);
    const waiting = turns.acquire('db-b', 'victim');
    expect(turns.othersContend('hog', 1_000)).toBe(true);
    expect(turns.othersContend('victim', 1_000)).toBe(true);
    turns.release();
    await waiting;
    turns.release();
    // The victim had its turn just now: it contends within a second, and with its database open at any time.
    expect(turns.othersContend('hog', 1_000)).toBe(true);
    expect(turns.othersContend('hog', 0)).toBe(true);
    // Its database closed: within a second still, not within no time at all.
    turns.forget('db-b');
    expect(turns.othersContend('hog', 1_000)).toBe(true);
    expect(turns.othersContend('hog', 0)).toBe(false);
  });

  it('counts a project with a database open here as contending, however long ago its last turn (review-184 H6)', async () => {
    const turns = new FairTurns();
    for (const [tenant, project] of [
      ['db-a', 'hog'],
      ['db-a2', 'hog'],
      ['db-b', 'victim'],
    ] as const) {
      await turns.acquire(tenant, project);
      turns.release();
    }
    await turns.acquire('db-a', 'hog');
    // Outside the window, nobody waiting: the victim's open database still counts, as one contender.
    expect(turns.othersContend('hog', 0)).toBe(true);
    expect(turns.contenders('hog', 0)).toBe(1);
    turns.release();
    // The hog's own databases never count for it.
    turns.forget('db-b');
    expect(turns.othersContend('hog', 0)).toBe(false);
    expect(turns.contenders('hog', 0)).toBe(0);
  });

  it('counts the projects contending, by project', async () => {
    const turns = new FairTurns();
    await turns.acquire('db-a', 'hog');
    const waiting = [turns.acquire('db-b', 'victim'), turns.acquire('db-c', 'third'), turns.acquire('db-d', 'third')];
    // Waiting now, by project; one served lately but not waiting counts as one while nobody else waits.
    expect([turns.contenders('hog', 1_000), turns.contenders('victim', 1_000), turns.contenders('third', 1_000)]).toEqual([2, 1, 1]);
    for (const turn of waiting) {
      turns.release();
      await turn;
    }
    turns.release();
  });

  it('forgets a project with the last of its databases, so what a shard remembers stays bounded by what it has open', async () => {
    const turns = new FairTurns();
    for (let p = 0; p < 200; p++) {
      for (const db of ['a', 'b']) {
        await turns.acquire(`${p}-${db}`, `project-${p}`);
        turns.release();
      }
    }
    expect(turns.remembered).toEqual({ databases: 400, projects: 200 });
    for (let p = 0; p < 200; p++) turns.forget(`${p}-a`);
    expect(turns.remembered).toEqual({ databases: 200, projects: 200 });
    for (let p = 0; p < 200; p++) turns.forget(`${p}-b`);
    expect(turns.remembered).toEqual({ databases: 0, projects: 0 });
    // A database forgotten twice, or never served, changes nothing.
    turns.forget('0-a');
    turns.forget('never');
    await turns.acquire('x', 'project-x');
    turns.release();
    expect(turns.remembered).toEqual({ databases: 1, projects: 1 });
  });

  it('gives one turn at a time', async () => {
    const turns = new FairTurns();
    let inside = 0;
    let most = 0;
    await Promise.all(
      ['a', 'b', 'c', 'a', 'b'].map(async (tenant) => {
        await turns.acquire(tenant);
        most = Math.max(most, ++inside);
        await new Promise((resolve) => setImmediate(resolve));
        inside--;
        turns.release();
      }),
    );
    expect(most).toBe(1);
  });
});
