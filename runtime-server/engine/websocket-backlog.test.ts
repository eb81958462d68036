import { Duplex, PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { WebSocketBacklogs } from './websocket-backlog.ts';

/** A client that reads nothing: what is written to it stays in its writable buffer. */
function stalledClient(): Duplex {
  return new Duplex({ read() {}, write() {} });
}

describe('WebSocketBacklogs', () => {
  it("past the total closes the most lagging WebSocket of the project holding the most, not another tenant's slow reader (found in review)", () => {
    const backlogs = new WebSocketBacklogs({ perWebSocket: 100, total: 150 });
    const closed: string[] = [];
    const relay = (project: string, name: string) => {
      const app = new PassThrough();
      backlogs.relay(project, app, stalledClient(), () => closed.push(name));
      return app;
    };
    const victim = relay('victim', 'victim');
    const [a1, a2] = [relay('attacker', 'a1'), relay('attacker', 'a2')];
    victim.write(Buffer.alloc(60));
    a1.write(Buffer.alloc(45));
    expect(closed).toEqual([]);
    a2.write(Buffer.alloc(50)); // 155 held: the attacker's 95 is the most a project holds
    expect(closed).toEqual(['a2']);
  });

  it('closes a WebSocket whose client lags past its own bound', () => {
    const backlogs = new WebSocketBacklogs({ perWebSocket: 100, total: 1000 });
    const closed: string[] = [];
    const app = new PassThrough();
    backlogs.relay('p', app, stalledClient(), () => closed.push('lagging'));
    app.write(Buffer.alloc(100));
    expect(closed).toEqual([]);
    app.write(Buffer.alloc(1));
    expect(closed).toEqual(['lagging']);
  });
});
