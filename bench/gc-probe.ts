// Preloaded into a server a benchmark measures (`node --expose-gc --import ./bench/gc-probe.ts`): on SIGUSR2 it
// runs a full GC and prints the process's memory as one JSON line, so the benchmark reads what the server
// retains rather than what V8 has not collected yet.
const gc = globalThis.gc;
if (!gc) throw new Error('bench/gc-probe.ts needs node --expose-gc');
process.on('SIGUSR2', () => {
  gc();
  gc();
  const { rss, heapTotal, heapUsed, external, arrayBuffers } = process.memoryUsage();
  process.stdout.write(`${JSON.stringify({ gcProbe: { rss, heapTotal, heapUsed, external, arrayBuffers } })}\n`);
});
