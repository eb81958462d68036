#!/usr/bin/env node
import { main } from '../api/main.ts';

main().catch((err: unknown) => {
  process.stderr.write(`cw-api: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
