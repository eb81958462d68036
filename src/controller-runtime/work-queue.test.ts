import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ItemExponentialRateLimiter } from './rate-limiter.ts';
import { WorkQueue, type QueueMetrics } from './work-queue.ts';

describe('WorkQueue', () => {
  it('hands out a key added several times once', async () => {
    const queue = new WorkQueue<string>();
    queue.add('a');
    queue.add('b');
    queue.add('a');
    queue.add('a');
    expect(queue.len()).toBe(2);
    expect(await queue.get()).toBe('a');
    expect(await queue.get()).toBe('b');
    expect(queue.len()).toBe(0);
  });

  it('never hands a key to a second worker while it is processing', async () => {
    const queue = new WorkQueue<string>();
    queue.add('a');
    const first = await queue.get();
    let second: string | undefined;
    const secondWorker = queue.get().then((key) => (second = key));
    queue.add('a'); // events arrive while a worker runs 'a'
    queue.add('a');
    await new Promise((resolve) => setImmediate(resolve));
    expect(second).toBeUndefined();
    expect(queue.len()).toBe(0);
    queue.done(first as string);
    await secondWorker;
    expect(second).toBe('a'); // re-queued exactly once, after the first run finished
    queue.done('a');
    expect(queue.len()).toBe(0);
  });

  it('runs distinct keys concurrently with concurrent workers, and one key serially', async () => {
    const queue = new WorkQueue<string>();
    const running = new Set<string>();
    const overlaps: string[] = [];
    let runs = 0;
    const worker = async () => {
      for (;;) {
        const key = await queue.get();
        if (key === undefined) return;
        if (running.has(key)) overlaps.push(key);
        running.add(key);
        runs++;
        await nextTurn(); // holds the key across a turn of the event loop, where another worker could take it
        running.delete(key);
        queue.done(key);
      }
    };
    const workers = Array.from({ length: 4 }, worker);
    for (let i = 0; i < 200; i++) {
      queue.add(`k${i % 3}`);
      if (i % 10 === 0) await nextTurn(); // lets the workers run between bursts of adds
    }
    await vi.waitFor(() => expect(queue.len() + queue.processing()).toBe(0));
    await queue.shutDown();
    await Promise.all(workers);
    expect(overlaps).toEqual([]);
    expect(runs).toBeGreaterThanOrEqual(3);
    expect(runs).toBeLessThan(200); // de-duplicated
  });

  it('hands out urgent keys, then changes, then the backlog, each in arrival order', async () => {
    const queue = new WorkQueue<string>();
    for (const key of ['b1', 'b2', 'b3']) queue.add(key, 'backlog');
    queue.add('c1');
    queue.add('u1', 'urgent');
    queue.add('c2', 'changed');
    const order: string[] = [];
    while (queue.len() > 0) order.push((await queue.get()) as string);
    expect(order).toEqual(['u1', 'c1', 'c2', 'b1', 'b2', 'b3']);
  });

  it('moves a waiting key up when it is added with a higher priority, never down, and hands it out once', async () => {
    const queue = new WorkQueue<string>();
    for (const key of ['b1', 'b2', 'b3']) queue.add(key, 'backlog');
    queue.add('c1');
    queue.add('b3'); // a change to an object of the first list: before the rest of the backlog
    queue.add('c1', 'backlog'); // a resync does not push a change back
    queue.add('b2', 'urgent');
    expect(queue.len()).toBe(4);
    const order: string[] = [];
    while (queue.len() > 0) {
      const key = (await queue.get()) as string;
      order.push(key);
      queue.done(key);
    }
    expect(order).toEqual(['b2', 'c1', 'b3', 'b1']);
  });

  it('a key added while processing goes back in with the highest priority asked meanwhile', async () => {
    const queue = new WorkQueue<string>();
    queue.add('a', 'backlog');
    queue.add('x', 'changed');
    queue.add('y', 'changed');
    expect(await queue.get()).toBe('x');
    expect(await queue.get()).toBe('y');
    queue.add('y', 'backlog'); // while 'y' runs
    queue.add('y', 'urgent');
    queue.done('y');
    expect(await queue.get()).toBe('y'); // before 'a', which waited in the backlog
    queue.done('y');
    expect(await queue.get()).toBe('a');
  });

  it('gives the backlog every eighth turn, so a steady stream of changes cannot starve it', async () => {
    const queue = new WorkQueue<string>();
    queue.add('b1', 'backlog');
    for (let i = 0; i < 20; i++) queue.add(`c${i}`);
    const order: string[] = [];
    for (let i = 0; i < 9; i++) order.push((await queue.get()) as string);
    expect(order).toEqual(['c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'b1', 'c7']);
  });

  it('brings a delayed or backed-off key back at the priority it was handed out with', async () => {
    const queue = new WorkQueue<string>({ rateLimiter: new ItemExponentialRateLimiter<string>(1, 1) });
    queue.add('polled', 'backlog');
    expect(await queue.get()).toBe('polled');
    queue.addAfter('polled', 1); // its reconcile asks to run again: a poll of the backlog stays backlog
    queue.done('polled');
    queue.add('failing');
    expect(await queue.get()).toBe('failing');
    queue.addRateLimited('failing'); // a change that failed comes back as a change
    queue.done('failing');
    await vi.waitFor(() => expect(queue.len()).toBe(2));
    queue.add('b2', 'backlog');
    queue.add('c2');
    const order: string[] = [];
    while (queue.len() > 0) order.push((await queue.get()) as string);
    expect(order).toEqual(['failing', 'c2', 'polled', 'b2']);
  });

  it('wakes a waiting getter when a key arrives', async () => {
    const queue = new WorkQueue<string>();
    const pending = queue.get();
    queue.add('a');
    expect(await pending).toBe('a');
  });

  it('reports adds and depth to metrics', async () => {
    const calls = { added: 0, retried: 0, depth: [] as number[] };
    const metrics: QueueMetrics = {
      added: () => void calls.added++,
      retried: () => void calls.retried++,
      depth: (n) => void calls.depth.push(n),
    };
    const queue = new WorkQueue<string>({ metrics });
    queue.add('a');
    queue.add('a');
    queue.add('b');
    await queue.get();
    expect(calls.added).toBe(2);
    expect(calls.depth).toEqual([1, 2, 1]);
  });

  it("waits out a delay longer than Node's longest timer instead of firing at once", async () => {
    // Fake timers take a delay past 2^31 - 1 ms as 1 ms, as Node's do, so the bug this guards against shows.
    vi.useFakeTimers();
    try {
      const queue = new WorkQueue<string>();
      const days30 = 30 * 24 * 60 * 60 * 1000; // past 2^31 - 1 ms
      queue.addAfter('far', days30);
      await vi.advanceTimersByTimeAsync(50);
      expect(queue.len()).toBe(0);
      await vi.advanceTimersByTimeAsync(days30 - 51);
      expect(queue.len()).toBe(0);
      await vi.advanceTimersByTimeAsync(1);
      expect(queue.len()).toBe(1);
      await queue.shutDown();
    } finally {
      vi.useRealTimers();
    }
  });

  describe('with fake timers', () => {
    beforeEach(() => void vi.useFakeTimers());
    afterEach(() => void vi.useRealTimers());

    it('addAfter delays a key and keeps the earliest deadline', async () => {
      const queue = new WorkQueue<string>();
      queue.addAfter('a', 1000);
      queue.addAfter('a', 5000); // later: ignored
      queue.addAfter('b', 300);
      queue.addAfter('b', 100); // earlier: replaces
      vi.advanceTimersByTime(99);
      expect(queue.len()).toBe(0);
      vi.advanceTimersByTime(1);
      expect(queue.len()).toBe(1);
      expect(await queue.get()).toBe('b');
      vi.advanceTimersByTime(900);
      expect(await queue.get()).toBe('a');
      queue.done('a');
      vi.advanceTimersByTime(10_000);
      expect(queue.len()).toBe(0); // the 5 s request was merged into the 1 s one
    });

    it('addAfter with no delay adds at once', () => {
      const queue = new WorkQueue<string>();
      queue.addAfter('a', 0);
      expect(queue.len()).toBe(1);
    });

    it('addRateLimited backs off exponentially per key and forget resets it', async () => {
      const retried: number[] = [];
      const queue = new WorkQueue<string>({ metrics: { added() {}, depth() {}, retried: () => void retried.push(1) } });
      const delayOf = async () => {
        queue.addRateLimited('a');
        let ms = 0;
        while (queue.len() === 0 && ms < 10_000) {
          vi.advanceTimersByTime(1);
          ms++;
        }
        queue.done((await queue.get()) as string);
        return ms;
      };
      expect([await delayOf(), await delayOf(), await delayOf(), await delayOf()]).toEqual([5, 10, 20, 40]);
      expect(queue.numRequeues('a')).toBe(4);
      queue.forget('a');
      expect(queue.numRequeues('a')).toBe(0);
      expect(await delayOf()).toBe(5);
      expect(retried).toHaveLength(5);
    });
  });

  describe('shutDown', () => {
    it('lets in-flight keys finish, drops queued ones, and stops waiting getters', async () => {
      const queue = new WorkQueue<string>();
      queue.add('a');
      queue.add('b');
      const inFlight = await queue.get();
      const idle = new WorkQueue<string>();
      const waiting = idle.get();
      void idle.shutDown();
      expect(await waiting).toBeUndefined();

      let drained = false;
      const shutdown = queue.shutDown().then(() => void (drained = true));
      await new Promise((resolve) => setImmediate(resolve));
      expect(drained).toBe(false); // 'a' is still running
      expect(await queue.get()).toBeUndefined(); // 'b' is not handed out any more
      queue.add('c');
      queue.addAfter('d', 1);
      queue.addRateLimited('e');
      expect(queue.len()).toBe(0);
      queue.done(inFlight as string);
      await shutdown;
      expect(drained).toBe(true);
    });

    it('resolves at once when nothing is in flight', async () => {
      const queue = new WorkQueue<string>();
      queue.add('a');
      await queue.shutDown();
      expect(queue.isShuttingDown()).toBe(true);
    });

    it('does not re-queue a key re-added during processing', async () => {
      const queue = new WorkQueue<string>();
      queue.add('a');
      await queue.get();
      queue.add('a');
      const shutdown = queue.shutDown();
      queue.done('a');
      await shutdown;
      expect(queue.len()).toBe(0);
    });

    it('cancels delayed keys', async () => {
      vi.useFakeTimers();
      try {
        const queue = new WorkQueue<string>();
        queue.addAfter('a', 10);
        await queue.shutDown();
        vi.advanceTimersByTime(100);
        expect(queue.len()).toBe(0);
      } finally {
        vi.useRealTimers();
      }
    });
  });

  describe('with a limit per group', () => {
    const groupOf = (key: string) => key.slice(0, key.indexOf('/'));

    it('hands out another group’s keys while one group has its limit out, and the group’s next when one is done', async () => {
      const queue = new WorkQueue<string>({ perGroup: { of: groupOf, limit: 2 } });
      for (let i = 0; i < 5; i++) queue.add(`noisy/${i}`);
      queue.add('quiet/a');
      expect([await queue.get(), await queue.get(), await queue.get()]).toEqual(['noisy/0', 'noisy/1', 'quiet/a']);
      let next: string | undefined;
      void queue.get().then((key) => (next = key));
      await nextTurn();
      expect(next).toBeUndefined(); // noisy/2 waits aside: its group has two out
      expect(queue.len()).toBe(3);
      queue.done('quiet/a');
      await nextTurn();
      expect(next).toBeUndefined();
      queue.done('noisy/0');
      await nextTurn();
      expect(next).toBe('noisy/2');
    });

    it('keeps a key waiting aside once, at the higher of its priorities', async () => {
      const queue = new WorkQueue<string>({ perGroup: { of: groupOf, limit: 1 } });
      queue.add('p/a');
      queue.add('p/b', 'backlog');
      queue.add('q/c', 'backlog');
      expect(await queue.get()).toBe('p/a');
      expect(await queue.get()).toBe('q/c'); // p/b set aside on the way
      queue.add('p/b', 'urgent');
      queue.add('q/d');
      queue.done('p/a');
      queue.done('q/c');
      expect(await queue.get()).toBe('p/b'); // back at urgent, ahead of q/d
      expect(await queue.get()).toBe('q/d');
      expect(queue.len()).toBe(0);
    });

    it('gives a slot back to the group it was taken in when a key’s group changes meanwhile (an account known late)', async () => {
      let accounts = false;
      const queue = new WorkQueue<string>({ perGroup: { of: (key) => (accounts ? 'user:ada' : groupOf(key)), limit: 1 } });
      queue.add('shop/a');
      queue.add('shop/b');
      queue.add('blog/c');
      expect(await queue.get()).toBe('shop/a');
      expect(await queue.get()).toBe('blog/c'); // shop/b set aside in shop's group
      accounts = true; // the Projects are listed: both projects are ada's
      queue.add('shop/b', 'urgent'); // moves up where it waits: still once, in shop's group
      queue.done('shop/a');
      expect(await queue.get()).toBe('shop/b');
      queue.done('blog/c');
      queue.add('blog/d');
      // user:ada has shop/b out, its limit: blog/d waits until shop/b is done, then goes.
      let next: string | undefined;
      void queue.get().then((key) => (next = key));
      await nextTurn();
      expect(next).toBeUndefined();
      queue.done('shop/b');
      await nextTurn();
      expect(next).toBe('blog/d');
      queue.done('blog/d');
      expect([queue.len(), queue.processing()]).toEqual([0, 0]);
    });

    it('hands out a key asked for urgently before the others of its group waiting aside', async () => {
      const queue = new WorkQueue<string>({ perGroup: { of: groupOf, limit: 1 } });
      for (let i = 0; i < 6; i++) queue.add(`big/${i}`, 'backlog');
      queue.add('other/x', 'backlog');
      expect(await queue.get()).toBe('big/0');
      expect(await queue.get()).toBe('other/x'); // big/1…5 set aside on the way
      queue.add('big/5', 'urgent'); // a request waits on it
      queue.done('big/0');
      expect(await queue.get()).toBe('big/5');
      queue.done('big/5');
      expect(await queue.get()).toBe('big/1');
    });
  });
});
