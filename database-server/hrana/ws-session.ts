import type { HranaBatchStep, HranaError, HranaStmt, HranaStreamRequest, HranaStreamResult } from './hrana-types.ts';
import type { Refusal } from './http-server.ts';
import { onlyFinishes, runOnStream, tooManyStatements, type PipelineCaller, type PipelineContext } from './pipeline.ts';
import type { ProjectMemory } from './project-memory.ts';
import { jsonDepthWithin, MAX_JSON_DEPTH } from './json-depth.ts';
import { STREAM_CLOSED, StreamHandle } from './stream-registry.ts';
import { cursorEntries, type CursorEntry, type WsClientMsg, type WsRequest, type WsResponse, type WsServerMsg } from './ws-protocol.ts';

// What one connection may hold: streams, stored SQL texts (count and bytes), and entries of one fetch.
const MAX_STREAMS = 128;
const MAX_STORED_SQL = 1000;
const MAX_STORED_SQL_BYTES = 10 * 1024 * 1024;
const MAX_FETCH = 10_000;
/** Requests that only free what the connection holds: never refused for the project's memory (when small). */
const FREEING = new Set(['close_stream', 'close_sql', 'close_cursor']);
const FREEING_MAX_BYTES = 1024;
/** What a request in flight is charged at least: its parsed message and its place in the queue, not only its text. */
const MIN_REQUEST_BYTES = 1024;

/** What a session needs from its server. */
export interface WsSessionOptions {
  context: PipelineContext;
  /** Who the token is, for the database in the URL's path (`null`: the token names it). */
  authorize: (token: string | undefined, pathTenant: string | null) => Promise<PipelineCaller | Refusal>;
  pathTenant: string | null;
  /** 2 or 3 (cursors). */
  version: number;
  /** Whether the tenant may take one more connection (called at the first hello); released by `onClose`. */
  admit: (tenant: string) => boolean;
  /**
   * What the connection holds here is charged to its project: requests waiting to run, stored SQL, cursors and
   * answers not yet sent.
   */
  memory: ProjectMemory;
  /** Sends a message; `sent` is called once it left this process (or the connection is gone). */
  send: (text: string, sent: () => void) => void;
  /** Stops reading the connection's messages (they wait in the socket's buffers), until `resume`. */
  pause: () => void;
  resume: () => void;
  /** Ends the connection: a protocol error (`1002`), or a refused hello (`4001`). */
  close: (code: number, reason: string) => void;
}

interface OpenStream {
  readonly handle: StreamHandle;
  /** Requests on a stream run one after another; different streams' may overlap. */
  queue: Promise<void>;
  /** Requests queued or running on it. */
  pending: number;
  /** A close_stream is queued: the request just before it may end the stream in the same engine call. */
  closing?: boolean;
  /** Why it was ended by the server (its transaction ran too long): what its later requests answer. */
  ended?: HranaError;
  cursor?: { readonly id: number; readonly entries: CursorEntry[]; next: number; readonly bytes: number };
  /** Cursor ids asked for on it (`open_cursor`), opened or not yet: forgotten with it. */
  readonly cursorIds: Set<number>;
}

class ProtocolError extends Error {}

/**
 * One WebSocket connection speaking Hrana 2 or 3: the hello (a token, checked again before every request, so a
 * rotated token stops working on open connections too), the streams it opened (held open between requests, so
 * an interactive transaction may idle as long as its connection lives, up to the transaction time limit), the SQL
 * texts it stored, and v3's cursors (a batch run whole, its entries handed out in pieces). Each request is run as
 * the HTTP pipeline runs it (`runOnStream`): the same tenancy, sandbox, statement limits and tenant lock.
 */
export class WsSession {
  readonly #o: WsSessionOptions;
  #token: string | undefined;
  #tenant: string | undefined;
  readonly #streams = new Map<number, OpenStream>();
  /** Streams a close_stream took out of `#streams` whose close waits behind their queued requests. */
  readonly #closing = new Set<OpenStream>();
  readonly #cursors = new Map<number, number>();
  readonly #sql = new Map<number, string>();
  #sqlBytes = 0;
  /** Requests received and not answered yet, with the bytes each is charged. */
  readonly #inFlight = new Map<number, number>();
  /** Hellos being checked: the connection is read no further meanwhile. */
  #hellosPending = 0;
  #closed = false;
  /** The last hello's check: requests sent right behind it (clients do not wait for hello_ok) wait for it. */
  #greeted: Promise<void> = Promise.resolve();

  constructor(options: WsSessionOptions) {
    this.#o = options;
  }

  /** The tenant once a hello was accepted. */
  get tenant(): string | undefined {
    return this.#tenant;
  }

  /** Handles one text message; a malformed one ends the connection, as the protocol says. */
  async message(text: string): Promise<void> {
    let msg: WsClientMsg;
    // Nested past any Hrana message, the parse would hold every tenant's event loop for seconds: refused unparsed.
    if (!jsonDepthWithin(text)) return this.#protocolError(`The message nests arrays or objects more than ${MAX_JSON_DEPTH} deep`);
    try {
      msg = JSON.parse(text) as WsClientMsg;
      if (typeof msg !== 'object' || msg === null) throw new ProtocolError('not an object');
    } catch {
      return this.#protocolError('The message is not a JSON object');
    }
    if (msg.type === 'hello') {
      if (msg.jwt != null && typeof msg.jwt !== 'string') return this.#protocolError('The hello’s jwt must be a string');
      const jwt = msg.jwt ?? undefined;
      // Requests sent right behind the hello wait for its answer in the socket's buffers, not here: the
      // connection is read no further until the token is checked.
      if (this.#hellosPending++ === 0) this.#o.pause();
      this.#greeted = this.#greeted
        .then(() => this.#hello(jwt))
        .catch(() => this.#protocolError('Internal error'))
        .finally(() => {
          if (--this.#hellosPending === 0 && !this.#closed) this.#o.resume();
        });
      return this.#greeted;
    }
    if (msg.type !== 'request' || typeof msg.request_id !== 'number' || typeof msg.request !== 'object' || msg.request === null) return this.#protocolError('Unknown message');
    await this.#greeted;
    if (!this.#admitRequest(msg.request_id, msg.request, text.length)) return;
    try {
      this.#dispatch(msg.request_id, msg.request);
    } catch (err) {
      if (err instanceof ProtocolError) return this.#protocolError(err.message);
      throw err;
    }
  }

  /**
   * Charges a request's message to its project until it is answered. A project past its bound gets the request
   * answered `PROJECT_BUSY`, unless it only frees something (a small close). `false` when the request is not to run.
   */
  #admitRequest(id: number, request: { type?: unknown }, bytes: number): boolean {
    const { memory } = this.#o;
    if (this.#closed) return false;
    if (this.#tenant === undefined) {
      this.#protocolError('A request before the hello');
      return false;
    }
    if (this.#inFlight.has(id)) {
      this.#protocolError(`Request ${id} is already in flight`);
      return false;
    }
    const charged = Math.max(bytes, MIN_REQUEST_BYTES);
    const frees = FREEING.has(String(request.type)) || onlyFinishes([request]);
    if (frees && bytes <= FREEING_MAX_BYTES) memory.charge(this.#tenant, charged);
    else if (!memory.tryCharge(this.#tenant, charged)) {
      this.#fail(id, memory.refusal());
      return false;
    }
    this.#inFlight.set(id, charged);
    return true;
  }

  /** Rolls back and closes every stream (the connection is gone) and gives back what the connection held. */
  async closed(): Promise<void> {
    this.#closed = true;
    const { memory } = this.#o;
    for (const bytes of this.#inFlight.values()) memory.release(this.#tenant, bytes);
    this.#inFlight.clear();
    memory.release(this.#tenant, this.#sqlBytes);
    this.#sqlBytes = 0;
    this.#sql.clear();
    for (const stream of this.#streams.values()) this.#dropCursor(stream);
    const streams = [...this.#streams.values(), ...this.#closing];
    this.#streams.clear();
    this.#closing.clear();
    // At once, not after the queued requests: those run nothing now (#run), and a request running or waiting for its
    // shard's place is told by the close (it gives the place up, or ends the stream after its statements).
    await Promise.all(streams.map((s) => this.#o.context.streams.close(s.handle)));
  }

  /**
   * Ends transactions open past the stream registry's limit, the one HTTP streams have (called on a timer); true
   * while some stream is inside one.
   */
  async expireTransactions(): Promise<boolean> {
    const { streams } = this.#o.context;
    let open = false;
    for (const stream of this.#streams.values()) {
      if (!stream.handle.inTransaction) continue;
      if (!streams.overran(stream.handle)) {
        open = true;
        continue;
      }
      stream.ended = streams.transactionTimedOut();
      await streams.close(stream.handle);
    }
    return open;
  }

  async #hello(token: string | undefined): Promise<void> {
    const caller = await this.#o.authorize(token, this.#o.pathTenant);
    // Gone while its token was checked: nothing to admit (its connection count is already given back).
    if (this.#closed) return;
    if ('status' in caller) {
      this.#send({ type: 'hello_error', error: { message: caller.message, code: caller.code } });
      return this.#o.close(4001, caller.code);
    }
    if (this.#tenant !== undefined && caller.tenant !== this.#tenant) {
      this.#send({ type: 'hello_error', error: { message: 'A later hello must name the same database', code: 'FORBIDDEN' } });
      return this.#o.close(4001, 'FORBIDDEN');
    }
    if (this.#tenant === undefined && !this.#o.admit(caller.tenant)) {
      this.#send({ type: 'hello_error', error: { message: 'Too many WebSocket connections to this database; close some or use HTTP', code: 'TOO_MANY_CONNECTIONS' } });
      return this.#o.close(4001, 'TOO_MANY_CONNECTIONS');
    }
    this.#tenant = caller.tenant;
    this.#token = token;
    this.#send({ type: 'hello_ok' });
  }

  #dispatch(id: number, request: WsRequest): void {
    switch (request.type) {
      case 'open_stream': {
        if (this.#streams.has(request.stream_id)) throw new ProtocolError(`Stream ${request.stream_id} is already open`);
        if (this.#streams.size >= MAX_STREAMS) return this.#fail(id, { message: `At most ${MAX_STREAMS} streams per connection`, code: 'TOO_MANY_STREAMS' });
        const handle = this.#o.context.streams.create(this.#tenant!, false);
        if (!(handle instanceof StreamHandle)) return this.#fail(id, handle);
        this.#o.context.streams.hold(handle);
        this.#streams.set(request.stream_id, { handle, queue: Promise.resolve(), pending: 0, cursorIds: new Set() });
        return this.#ok(id, { type: 'open_stream' });
      }
      case 'close_stream': {
        const stream = this.#streams.get(request.stream_id);
        if (!stream) return this.#ok(id, { type: 'close_stream' });
        this.#streams.delete(request.stream_id);
        this.#closing.add(stream);
        this.#dropCursor(stream);
        stream.closing = true;
        return this.#enqueue(stream, async () => {
          // After the stream's queued requests: a cursor opened by one of them goes with it, and every id asked for.
          this.#dropCursor(stream);
          for (const cursor of stream.cursorIds) if (this.#cursors.get(cursor) === request.stream_id) this.#cursors.delete(cursor);
          await this.#o.context.streams.close(stream.handle);
          this.#closing.delete(stream);
          this.#ok(id, { type: 'close_stream' });
        });
      }
      case 'store_sql': {
        const size = Buffer.byteLength(String(request.sql));
        if (this.#sql.has(request.sql_id)) throw new ProtocolError(`SQL text ${request.sql_id} is already stored`);
        if (this.#sql.size >= MAX_STORED_SQL || this.#sqlBytes + size > MAX_STORED_SQL_BYTES) {
          return this.#fail(id, { message: `At most ${MAX_STORED_SQL} SQL texts (${MAX_STORED_SQL_BYTES / 1024 / 1024} MiB) per connection`, code: 'SQL_STORE_FULL' });
        }
        if (!this.#o.memory.tryCharge(this.#tenant, size)) return this.#fail(id, this.#o.memory.refusal());
        this.#sql.set(request.sql_id, String(request.sql));
        this.#sqlBytes += size;
        return this.#ok(id, { type: 'store_sql' });
      }
      case 'close_sql': {
        const sql = this.#sql.get(request.sql_id);
        if (sql !== undefined) {
          this.#sqlBytes -= Buffer.byteLength(sql);
          this.#o.memory.release(this.#tenant, Buffer.byteLength(sql));
        }
        this.#sql.delete(request.sql_id);
        return this.#ok(id, { type: 'close_sql' });
      }
      case 'fetch_cursor':
      case 'close_cursor':
        return this.#cursorRequest(id, request);
      case 'execute':
      case 'batch':
      case 'sequence':
      case 'describe':
      case 'get_autocommit':
      case 'open_cursor': {
        const stream = this.#streams.get(request.stream_id);
        if (!stream) throw new ProtocolError(`Stream ${request.stream_id} is not open`);
        if (request.type === 'open_cursor') {
          if (this.#o.version < 3) throw new ProtocolError('Cursors need hrana3');
          if (this.#cursors.has(request.cursor_id)) throw new ProtocolError(`Cursor ${request.cursor_id} is already open`);
          // Known at once, so a fetch sent right behind it waits on the same stream.
          this.#cursors.set(request.cursor_id, request.stream_id);
          stream.cursorIds.add(request.cursor_id);
        }
        return this.#enqueue(stream, () => this.#run(id, stream, request));
      }
      default:
        throw new ProtocolError(`Unknown request ${JSON.stringify((request as { type?: unknown }).type)}`);
    }
  }

  #cursorRequest(id: number, request: Extract<WsRequest, { type: 'fetch_cursor' | 'close_cursor' }>): void {
    const streamId = this.#cursors.get(request.cursor_id);
    const stream = streamId === undefined ? undefined : this.#streams.get(streamId);
    if (!stream) {
      if (request.type === 'close_cursor') {
        // Its stream is gone: the id is free again.
        this.#cursors.delete(request.cursor_id);
        return this.#ok(id, { type: 'close_cursor' });
      }
      throw new ProtocolError(`Cursor ${request.cursor_id} is not open`);
    }
    // After the stream's earlier requests, its open_cursor among them.
    this.#enqueue(stream, async () => this.#cursorStep(id, stream, request));
  }

  #cursorStep(id: number, stream: OpenStream, request: Extract<WsRequest, { type: 'fetch_cursor' | 'close_cursor' }>): void {
    if (this.#closed) return;
    if (request.type === 'close_cursor') {
      if (stream.cursor?.id === request.cursor_id) this.#dropCursor(stream);
      this.#cursors.delete(request.cursor_id);
      return this.#ok(id, { type: 'close_cursor' });
    }
    const cursor = stream.cursor;
    if (!cursor || cursor.id !== request.cursor_id) throw new ProtocolError(`Cursor ${request.cursor_id} is not open`);
    const count = Math.max(0, Math.min(Number(request.max_count) || 0, MAX_FETCH));
    const entries = cursor.entries.slice(cursor.next, cursor.next + count);
    cursor.next += entries.length;
    this.#ok(id, { type: 'fetch_cursor', entries, done: cursor.next >= cursor.entries.length });
  }

  /** Runs a statement request as a one-request pipeline on the stream, after checking the token again. */
  async #run(id: number, stream: OpenStream, request: Extract<WsRequest, { stream_id: number }>): Promise<void> {
    // The connection went while this waited its turn: nothing runs for it any more.
    if (this.#closed) return;
    stream.ended ??= stream.handle.endedBy ?? (stream.handle.closed ? STREAM_CLOSED : undefined);
    if (stream.ended) return this.#fail(id, stream.ended);
    const caller = await this.#o.authorize(this.#token, this.#o.pathTenant);
    if ('status' in caller || caller.tenant !== this.#tenant)
      return this.#fail(id, 'status' in caller ? { message: caller.message, code: caller.code } : { message: 'The token names another database', code: 'FORBIDDEN' });
    let pipelineRequest: HranaStreamRequest;
    try {
      pipelineRequest = this.#pipelineRequest(request);
    } catch (err) {
      return this.#fail(id, { message: (err as Error).message, code: 'SQL_NOT_FOUND' });
    }
    const tooMany = tooManyStatements([pipelineRequest]);
    if (tooMany) return this.#fail(id, tooMany);
    if (request.type === 'open_cursor' && stream.cursor) throw new ProtocolError('The stream has an open cursor');
    // Clients send open_stream, execute, close_stream at once: the close goes with the last request, one engine call
    // instead of two (the close task then finds the stream closed).
    const closeToo = stream.closing === true && stream.pending === 2 && request.type !== 'open_cursor';
    const ran = await runOnStream(stream.handle, caller, closeToo ? [pipelineRequest, { type: 'close' }] : [pipelineRequest], this.#o.context);
    if (stream.handle.closed && !stream.ended) stream.ended = stream.handle.endedBy ?? STREAM_CLOSED;
    const result: HranaStreamResult = ran.kind === 'ran' ? ran.results[0]! : ran.kind === 'refused' ? ran.result : { type: 'error', error: ran.error };
    if (request.type === 'open_cursor') {
      const entries =
        result.type === 'ok' && result.response.type === 'batch'
          ? cursorEntries(result.response.result)
          : [{ type: 'error' as const, error: result.type === 'error' ? result.error : { message: 'The batch did not run' } }];
      if (this.#cursors.get(request.cursor_id) === request.stream_id && !this.#closed) {
        // Held until closed, its stream's close or the connection's: charged as the work it is (done), whatever the bound.
        const bytes = JSON.stringify(entries).length;
        this.#o.memory.charge(this.#tenant, bytes);
        stream.cursor = { id: request.cursor_id, entries, next: 0, bytes };
      }
      return this.#ok(id, { type: 'open_cursor' });
    }
    if (result.type === 'error') return this.#fail(id, result.error);
    this.#ok(id, result.response as WsResponse);
  }

  /** The HTTP pipeline's request for a WebSocket request, with stored SQL texts put in place of their ids. */
  #pipelineRequest(request: Extract<WsRequest, { stream_id: number }>): HranaStreamRequest {
    switch (request.type) {
      case 'execute':
        return { type: 'execute', stmt: this.#stmt(request.stmt) };
      case 'batch':
      case 'open_cursor':
        return { type: 'batch', batch: { steps: this.#steps(request.batch?.steps) } };
      case 'sequence':
      case 'describe':
        return { type: request.type, sql: this.#text(request.sql, request.sql_id) };
      case 'get_autocommit':
        return { type: 'get_autocommit' };
      default:
        throw new ProtocolError('Not a statement request');
    }
  }

  #steps(steps: HranaBatchStep[] | undefined): HranaBatchStep[] {
    if (!Array.isArray(steps)) throw new ProtocolError('A batch needs steps');
    return steps.map((step) => ({ ...step, stmt: this.#stmt(step.stmt) }));
  }

  #stmt(stmt: HranaStmt): HranaStmt {
    if (typeof stmt !== 'object' || stmt === null) throw new ProtocolError('A statement must be an object');
    if (stmt.sql_id == null) return stmt;
    const { sql_id: sqlId, ...rest } = stmt;
    return { ...rest, sql: this.#text(undefined, sqlId) };
  }

  #text(sql: string | null | undefined, sqlId: number | null | undefined): string | null | undefined {
    if (sqlId == null) return sql;
    const stored = this.#sql.get(sqlId);
    if (stored === undefined) throw new Error(`SQL text ${sqlId} is not stored on this connection`);
    return stored;
  }

  #enqueue(stream: OpenStream, task: () => Promise<void>): void {
    stream.pending += 1;
    stream.queue = stream.queue
      .then(task)
      .finally(() => {
        stream.pending -= 1;
      })
      .catch((err: unknown) => {
        if (err instanceof ProtocolError) this.#protocolError(err.message);
        else this.#protocolError('Internal error');
      });
  }

  /** Forgets the stream's cursor and gives back what it held. */
  #dropCursor(stream: OpenStream): void {
    if (!stream.cursor) return;
    this.#cursors.delete(stream.cursor.id);
    stream.cursorIds.delete(stream.cursor.id);
    this.#o.memory.release(this.#tenant, stream.cursor.bytes);
    stream.cursor = undefined;
  }

  #ok(id: number, response: WsResponse): void {
    this.#answered(id);
    this.#send({ type: 'response_ok', request_id: id, response });
  }

  #fail(id: number, error: HranaError): void {
    this.#answered(id);
    this.#send({ type: 'response_error', request_id: id, error });
  }

  /** The request is answered: what its message was charged is given back. */
  #answered(id: number): void {
    const bytes = this.#inFlight.get(id);
    if (bytes === undefined) return;
    this.#inFlight.delete(id);
    this.#o.memory.release(this.#tenant, bytes);
  }

  /** Sends `msg`, charged to the connection's project until it has left this process. */
  #send(msg: WsServerMsg): void {
    if (this.#closed) return;
    const text = JSON.stringify(msg);
    const tenant = this.#tenant;
    this.#o.memory.charge(tenant, text.length);
    this.#o.send(text, () => this.#o.memory.release(tenant, text.length));
  }

  #protocolError(reason: string): void {
    if (this.#closed) return;
    this.#o.close(1002, reason.slice(0, 120));
  }
}
