import { createRequire } from 'node:module';

/** The package's version, read from its package.json (one directory above `src/` and `dist/` alike). */
export const VERSION: string = (createRequire(import.meta.url)('../package.json') as { version: string }).version;
