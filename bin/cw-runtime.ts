#!/usr/bin/env node
import { main } from '../operator/runtime-server/main.ts';

main().catch((err: unknown) => {
  process.stderr.write(`cw-runtime: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
