// Builds the console into console/dist (scripts/setup/console.sh caches it by its sources); cw-api serves it
// under /console/ with a strict Content-Security-Policy, so the build emits files only: no inline script.
import { defineConfig } from 'vite';

export default defineConfig({
  base: '/console/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: { outDir: 'dist', emptyOutDir: true, assetsInlineLimit: 0, modulePreload: { polyfill: false }, sourcemap: false },
});
