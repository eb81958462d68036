#!/usr/bin/env node
import { main } from '../operator/app-server/main.ts';

main().catch((err: unknown) => {
  process.stderr.write(`cw-runtime: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
