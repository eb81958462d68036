/**
 * The Node flags cw-runtime runs with: every launcher passes them (the image's `cw-runtime` command in
 * `scripts/setup/image.sh`, the e2e and bench harnesses, `make dev`; `node-flags.test.ts` keeps the image in step).
 *
 * `--max-semi-space-size=4` (MB): the entry point reads each answer of workerd into ArrayBuffers outside the JS
 * heap, which only a garbage collection frees. It allocates little JavaScript per request, so with Node's default
 * young generation (16 MB and more) scavenges are rare, the buffers pile up, and V8 answers the external memory
 * with a full mark-compact every few hundred milliseconds under load (13 in 8 s serving a 65 KB page at 500
 * requests/s, against 2 with this flag, whose scavenges free the buffers young). Measured with
 * `make bench-runtime-path` (docs/runtime.md, "What the path costs, measured"): the entry point's CPU per request
 * of that page fell from 357–428 µs to 180–224 µs; the hello worker's did not move.
 */
export const RUNTIME_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=4'];
