#!/usr/bin/env node
import { main } from '../operator/main.ts';

main().catch((err: unknown) => {
  process.stderr.write(`cw-operator: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
