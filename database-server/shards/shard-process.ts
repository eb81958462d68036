// The entry point of a cw-db shard process: the main process forks one per shard (shard-pool.ts) and calls it over
// the IPC channel. It holds the SQL connections and streams of the tenants that hash to it, and nothing else: no
// bucket credentials, no tokens, no listening socket.
import { SqlError } from '../sql/sql-error.ts';
import type { PipelineOutcome } from './engine-port.ts';
import { LocalEngine } from './local-engine.ts';
import { SHARD_CONFIG_VARIABLE, type ShardCall, type ShardConfig, type ShardReply, type ShardRequest } from './shard-protocol.ts';

const config = JSON.parse(process.env[SHARD_CONFIG_VARIABLE] ?? '{}') as ShardConfig;
const engine = new LocalEngine(config);

function answer(call: ShardCall): Promise<PipelineOutcome | void> {
  switch (call.op) {
    case 'open':
      return engine.open(call.tenant, call.limits);
    case 'run':
      return engine.run(call.run);
    case 'close-stream':
      return engine.closeStream(call.tenant, call.stream);
    case 'checkpoint':
      return engine.checkpoint(call.tenant, call.project);
    case 'close-tenant':
      return engine.closeTenant(call.tenant);
    case 'ping':
      return Promise.resolve();
  }
}

function reply(message: ShardReply): void {
  // The main process may be gone; there is nobody left to answer then.
  if (process.connected) process.send?.(message);
}

process.on('message', (message: ShardRequest) => {
  answer(message.call).then(
    (value) => reply({ id: message.id, value }),
    (error: unknown) => reply({ id: message.id, error: { message: error instanceof Error ? error.message : String(error), ...(error instanceof SqlError ? { code: error.code } : {}) } }),
  );
});
// Without its main process a shard has no reason to live; closing rolls back what is open.
process.on('disconnect', () => {
  void engine.close().finally(() => process.exit(0));
});
reply({ ready: true });
