// What runs inside a build's sandbox (a Job's container, or the local runner's child process): plain JavaScript
// with Node's built-ins only, so any image with node and tar runs it, and no code of the platform's is in the
// sandbox. It fetches the source, runs the command, and puts a tar of the output directory. Its inputs are the
// CW_BUILD_* variables, which it removes from the command's environment; its exit code says which step failed.

/** Exit codes of the builder script, each a step that failed. */
export const BUILDER_EXIT = { sourceUnavailable: 10, commandFailed: 11, outputMissing: 12, uploadFailed: 13 } as const;

/** The variables the builder reads (set by the runner beside the build's own environment). */
export const BUILDER_ENV = {
  sourceUrl: 'CW_BUILD_SOURCE_URL',
  outputUrl: 'CW_BUILD_OUTPUT_URL',
  command: 'CW_BUILD_COMMAND',
  outputDirectory: 'CW_BUILD_OUTPUT_DIRECTORY',
  workspace: 'CW_BUILD_WORKSPACE',
} as const;

export const BUILDER_SCRIPT = `
'use strict';
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { Readable } = require('node:stream');
const { pipeline } = require('node:stream/promises');
const env = { ...process.env };
const take = (name) => { const v = env[name]; delete env[name]; return v; };
const sourceUrl = take('${BUILDER_ENV.sourceUrl}');
const outputUrl = take('${BUILDER_ENV.outputUrl}');
const command = take('${BUILDER_ENV.command}');
const outputDirectory = take('${BUILDER_ENV.outputDirectory}') || '.';
const workspace = take('${BUILDER_ENV.workspace}') || process.cwd();
const say = (line) => process.stdout.write('[cloudwright] ' + line + '\\n');
const fail = (code, line) => { say(line); process.exit(code); };
// The child's stderr goes to this process's stdout (fd 1), the pipe the builder's own lines go to: through two
// pipes the container runtime may log a command's last stderr lines after the builder's "exited" line, and the
// failure's message (the command's last line) would miss them.
const run = (cmd, args, options) => new Promise((resolve) => {
  const child = spawn(cmd, args, { stdio: ['ignore', 1, 1], ...options });
  child.on('error', (err) => resolve({ code: -1, err }));
  child.on('close', (code, signal) => resolve({ code, signal }));
});
(async () => {
  const src = path.join(workspace, 'src');
  fs.mkdirSync(src, { recursive: true });
  fs.mkdirSync(path.join(workspace, 'home'), { recursive: true });
  say('fetching the source');
  const archive = path.join(workspace, 'source.tar.gz');
  try {
    const res = await fetch(sourceUrl);
    if (!res.ok) throw new Error('status ' + res.status);
    await pipeline(Readable.fromWeb(res.body), fs.createWriteStream(archive));
  } catch (err) { fail(${BUILDER_EXIT.sourceUnavailable}, 'cannot fetch the source: ' + err.message); }
  const untar = await run('tar', ['-xzf', archive, '-C', src]);
  if (untar.code !== 0) fail(${BUILDER_EXIT.sourceUnavailable}, 'cannot unpack the source');
  fs.rmSync(archive);
  if (command) {
    say('running: ' + command);
    const started = Date.now();
    const result = await run('/bin/sh', ['-c', command], { cwd: src, env: { ...env, HOME: path.join(workspace, 'home'), CI: '1' } });
    if (result.code !== 0) fail(${BUILDER_EXIT.commandFailed}, 'the command ' + (result.signal ? 'was killed by ' + result.signal : 'exited with ' + result.code));
    say('the command succeeded in ' + ((Date.now() - started) / 1000).toFixed(1) + ' s');
  }
  const out = path.resolve(src, outputDirectory);
  if (out !== src && !out.startsWith(src + path.sep)) fail(${BUILDER_EXIT.outputMissing}, 'the output directory ' + outputDirectory + ' is outside the source');
  if (!fs.existsSync(out) || !fs.statSync(out).isDirectory()) fail(${BUILDER_EXIT.outputMissing}, 'the output directory ' + outputDirectory + ' does not exist after the build');
  const tarball = path.join(workspace, 'output.tar');
  const packed = await run('tar', ['-cf', tarball, '--exclude=node_modules', '--exclude=.git', '-C', out, '.']);
  if (packed.code !== 0) fail(${BUILDER_EXIT.outputMissing}, 'cannot pack the output directory');
  const size = fs.statSync(tarball).size;
  say('uploading the output (' + size + ' bytes)');
  try {
    const res = await fetch(outputUrl, { method: 'PUT', body: Readable.toWeb(fs.createReadStream(tarball)), duplex: 'half', headers: { 'content-length': String(size) } });
    if (!res.ok) throw new Error('status ' + res.status);
  } catch (err) { fail(${BUILDER_EXIT.uploadFailed}, 'cannot upload the output: ' + err.message); }
  say('done');
})().catch((err) => fail(${BUILDER_EXIT.uploadFailed}, 'the builder failed: ' + (err && err.message)));
`;
