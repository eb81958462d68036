// Test helper: a WebSocket speaking raw Hrana frames, for what a hostile or broken client sends.
import WebSocket from 'ws';

export interface RawWebSocket {
  ws: WebSocket;
  send(msg: unknown): void;
  /** The next message the server sent (in order). */
  next(): Promise<Record<string, unknown>>;
  /** The close code, once closed. */
  closed: Promise<number>;
}

/** Opens `url` with the subprotocol `protocol`; the messages the server sends are collected for `next`. */
export async function openRawWebSocket(url: string, protocol: string): Promise<RawWebSocket> {
  const ws = new WebSocket(url, [protocol]);
  const inbox: Record<string, unknown>[] = [];
  const waiting: ((m: Record<string, unknown>) => void)[] = [];
  ws.on('message', (data) => {
    const msg = JSON.parse((data as Buffer).toString('utf8')) as Record<string, unknown>;
    const waiter = waiting.shift();
    if (waiter) waiter(msg);
    else inbox.push(msg);
  });
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  return {
    ws,
    send: (msg) => ws.send(JSON.stringify(msg)),
    next: () => (inbox.length > 0 ? Promise.resolve(inbox.shift()!) : new Promise((resolve) => waiting.push(resolve))),
    closed,
  };
}
