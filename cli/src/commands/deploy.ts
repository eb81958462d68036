// `cw deploy`, `cw builds ls` and `cw rollback`: upload (or re-select) a build, then wait until the runtime
// serves it and print where.
import { resolve } from 'node:path';
import { domainToASCII } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Command } from 'commander';
import yoctoSpinner from 'yocto-spinner';
import { artifactFrom, nameFromPath } from '../artifact/pack.ts';
import { uploadStream } from '../artifact/upload.ts';
import { act, appOf, choiceOption, examples, intOption, listOption, withJson } from '../command-kit.ts';
import { collectPages } from '../pages.ts';
import type { Context } from '../context.ts';
import { ApiError, CliError, UsageError } from '../errors.ts';
import { listSourceBuilds, type SourceBuildListOptions } from './builds.ts';
import { ago, formatBytes, note, paint, printJson, printTable, println, success } from '../output.ts';
import type { paths } from '../api/schema.ts';

/** Reasons the runtime gives for not serving a build that waiting will not change soon (it retries the last three with backoff). */
const NOT_SERVED = new Set(['BuildFailed', 'BuildNotFound', 'InsufficientStorage', 'QuotaExceeded']);

type App = paths['/v1/projects/{projectId}/apps/{appId}']['get']['responses'][200]['content']['application/json']['app'];

const KIND = { prebuilt: 'artifact', nextjs: 'Next.js build', worker: 'worker directory' } as const;
/** The API's upload limit (platform-api.md, "Deploying"): checked before sending megabytes it would refuse. */
const MAX_ARTIFACT_BYTES = 64 * 1024 * 1024;
/**
 * How long an answer may lag behind a write: API replicas answer from their own caches, and a poll or the
 * deploy after a create may reach one that has not seen the write yet.
 */
const CACHE_LAG_MS = 5_000;

export function registerDeploy(program: Command): void {
  examples(
    act(
      withJson(
        program
          .command('deploy')
          .argument('[path]', 'a worker directory, a Next.js app built with OpenNext, or a .tar.zst artifact', '.')
          .description('Pack and upload a build, make it the active one, and wait until it is served')
          .option('--app <app>', 'app id (default: CW_APP, else the directory name); created when it does not exist')
          .option('--hostnames <list>', "comma-separated host names to serve the app on besides its default host (this deploy's own: left out, none; attached domains stay)")
          .option('--environment <name>', 'the environment to run with (an app has one: production)', choiceOption(['production'] as const))
          .option('--max-concurrent-requests <n>', 'requests served at once before new ones queue (1-10000; left out, the default: 100)', intOption(1, 10_000))
          .option('--prebuilt', 'PATH is a .tar.zst artifact to upload as it is')
          .option('--no-wait', 'return once the build is active, without waiting for the runtime to serve it')
          .option('--wait-timeout <seconds>', 'how long to wait for the runtime to serve the build', intOption(1, 3600), 120),
      ),
      deploy,
    ),
    ['cw deploy ./site --app web', 'cw deploy --app web --hostnames www.example.com,example.com', 'cw deploy app.tar.zst --prebuilt --app web --json'],
  );
  const builds = program.command('builds').alias('build').description("An app's builds: those uploaded, and those made from its repository (their logs; cancel one)");
  examples(
    act(
      withJson(
        builds
          .command('ls')
          .alias('list')
          .argument('[app]', 'an app connected to a repository: list the builds made from its pushes (and its previews’) instead')
          .option('--app <app>', 'app id (default: CW_APP): list its uploaded builds')
          .option('--branch <branch>', 'with [app]: only the builds of this branch')
          .option('--limit <n>', 'with [app]: at most this many (default 20)', intOption(1, 100))
          .description('List builds, newest first: with --app the uploaded ones (* marks the active one); with the app as an argument those made from its repository'),
      ),
      listBuilds,
    ),
    ['cw builds ls --app web', 'cw builds ls web', 'cw builds ls web --branch feature/x --json'],
  );
  examples(
    act(
      withJson(
        program
          .command('rollback')
          .argument('[build]', 'build id to serve again (default: the build before the active one)')
          .option('--app <app>', 'app id (default: CW_APP)')
          .option('--no-wait', 'return once the build is active, without waiting for the runtime to serve it')
          .option('--wait-timeout <seconds>', 'how long to wait for the runtime to serve the build', intOption(1, 3600), 120)
          .description('Make an earlier build active again, without an upload, with the host names and concurrency bound it was deployed with'),
      ),
      rollback,
    ),
    ['cw rollback --app web', 'cw rollback b-3f2a9c0d1e2f3a4b --app web'],
  );
}

interface DeployOptions {
  app?: string;
  hostnames?: string;
  environment?: 'production';
  maxConcurrentRequests?: number;
  prebuilt?: boolean;
  wait: boolean;
  waitTimeout: number;
}

async function deploy(ctx: Context, path: string, options: DeployOptions): Promise<void> {
  const projectId = await ctx.project();
  const artifact = await artifactFrom(path, { prebuilt: options.prebuilt });
  if (artifact.bytes.length > MAX_ARTIFACT_BYTES) throw new CliError(`the artifact is ${formatBytes(artifact.bytes.length)}; the platform takes at most 64 MiB`);
  const { appId, created, hosts: before } = await ensureApp(ctx, projectId, options.app || ctx.env.CW_APP || nameFromPath(resolve(path)));
  const what = `${formatBytes(artifact.bytes.length)}, ${KIND[artifact.kind]}${artifact.files > 0 ? `, ${artifact.files} file${artifact.files === 1 ? '' : 's'}` : ''}`;
  if (!ctx.json) note(`Deploying ${path} to ${projectId}/${appId} (${what})`);
  const query = {
    // The API takes ASCII host names: a name outside ASCII goes in its punycode form (bücher.example → xn--bcher-kva.example).
    ...(options.hostnames !== undefined
      ? {
          hostnames: listOption(options.hostnames)
            .map((name) => domainToASCII(name) || name)
            .join(','),
        }
      : {}),
    ...(options.environment ? { environment: options.environment } : {}),
    ...(options.maxConcurrentRequests ? { max_concurrent_requests: options.maxConcurrentRequests } : {}),
  };
  const upload = async () => {
    const stream = uploadStream(artifact.bytes, showsProgress(ctx));
    try {
      return await ctx.ok(
        ctx.api.POST('/v1/projects/{projectId}/apps/{appId}/deployments', {
          params: { path: { projectId, appId }, query },
          body: stream.body,
          bodySerializer: (body: unknown) => body,
          headers: { 'content-type': 'application/octet-stream', 'content-length': String(artifact.bytes.length) },
          // A streamed request body needs half-duplex fetch (the Fetch standard's `duplex`), which openapi-fetch passes on.
          ...({ duplex: 'half' } as object),
        }),
      );
    } finally {
      stream.stop();
    }
  };
  const since = Date.now();
  let result;
  for (;;) {
    try {
      result = await upload();
      break;
    } catch (err) {
      // An app created a moment ago may not be known yet to the API replica the upload reached.
      if (!(created && err instanceof ApiError && err.status === 404 && Date.now() - since < CACHE_LAG_MS)) throw err;
      await sleep(250);
    }
  }
  const app = options.wait ? await waitUntilServed(ctx, projectId, appId, result.build_id, options.waitTimeout) : undefined;
  if (ctx.json) return printJson(result);
  success(`Deployed build ${result.build_id} to ${appId}${servedHow(app, result.build_id)}`);
  if (app && rollingOut(app, result.build_id)) note(`Follow the rollout with \`cw rollout status ${appId} --watch\`.`);
  // Deploy options are per deploy: names the previous deploy bound and this one left out are dropped.
  const dropped = before.filter((host) => !result.hosts.includes(host));
  if (dropped.length > 0) note(`No longer served on ${dropped.join(', ')}: this deploy's --hostnames did not name ${dropped.length === 1 ? 'it' : 'them'}.`);
  for (const url of urlsOf(app, result.hosts)) println(`  ${paint('cyan', url)}`);
}

/** The app's id for `nameOrId`: an app with that id or name, else one created under that name. */
async function ensureApp(ctx: Context, projectId: string, nameOrId: string): Promise<{ appId: string; created: boolean; hosts: string[] }> {
  const { items: apps } = await collectPages(async (query) => {
    const page = await ctx.ok(ctx.api.GET('/v1/projects/{projectId}/apps', { params: { path: { projectId }, query } }));
    return { items: page.apps, next: page.next };
  });
  const found = apps.find((a) => a.app_id === nameOrId) ?? apps.find((a) => a.name === nameOrId);
  if (found) return { appId: found.app_id, created: false, hosts: found.hosts };
  const { app } = await ctx.ok(ctx.api.POST('/v1/projects/{projectId}/apps', { params: { path: { projectId } }, body: { name: nameOrId } }));
  if (!ctx.json) note(`Created app ${app.app_id}${app.name === app.app_id ? '' : ` (${app.name})`}`);
  return { appId: app.app_id, created: true, hosts: [] };
}

/**
 * Polls the app until the runtime serves `buildId` for the current spec. A build the runtime refuses ends the
 * wait at once with its reason; so does the bound.
 */
async function waitUntilServed(ctx: Context, projectId: string, appId: string, buildId: string, timeoutSeconds: number): Promise<App> {
  // yocto-spinner leaves stdin alone, so Ctrl-C interrupts as anywhere else (exit 130).
  const spin = showsProgress(ctx) ? yoctoSpinner({ text: `Waiting for the runtime to serve ${buildId}`, stream: process.stderr }).start() : undefined;
  const started = Date.now();
  const deadline = started + timeoutSeconds * 1000;
  let seenActive = false;
  let app: App | undefined;
  try {
    for (;;) {
      ({ app } = await ctx.ok(ctx.api.GET('/v1/projects/{projectId}/apps/{appId}', { params: { path: { projectId, appId } } })));
      if (app.ready && app.serving_build_id === buildId) break;
      seenActive ||= app.active_build_id === buildId;
      // Another build active after ours was (or long after the deploy): someone else deployed or rolled back.
      const replaced = app.active_build_id !== buildId && (seenActive || Date.now() - started > CACHE_LAG_MS);
      if (replaced) throw new CliError(`${appId} now points at build ${app.active_build_id || '(none)'}: another deploy or rollback replaced ${buildId}`);
      if (NOT_SERVED.has(app.status_reason ?? '') && app.status_message?.includes(buildId)) {
        throw new CliError(`build ${buildId} is active but cannot be served: ${app.status_message}`);
      }
      if (Date.now() > deadline) {
        throw new CliError(`build ${buildId} is active but not served after ${timeoutSeconds} s: ${app.status_message ?? 'the runtime has not reported yet'} (see \`cw apps get ${appId}\`)`);
      }
      await sleep(250);
    }
  } catch (err) {
    spin?.error(`Not served: ${buildId}`);
    throw err;
  }
  spin?.success(`Served: ${buildId}`);
  return app;
}

/** URLs of every host, with the scheme and port of the runtime's own URL for the default host. */
function urlsOf(app: App | undefined, hosts: readonly string[]): string[] {
  const base = app?.url ? new URL(app.url) : undefined;
  return (app?.hosts ?? hosts).map((host) => {
    if (!base) return host;
    const url = new URL(base.href);
    url.hostname = host;
    return url.href.replace(/\/$/, '');
  });
}

function showsProgress(ctx: Context): boolean {
  return !ctx.json && process.stderr.isTTY === true && !ctx.env.NO_COLOR;
}

async function listBuilds(ctx: Context, sourceApp: string | undefined, options: { app?: string } & SourceBuildListOptions): Promise<void> {
  if (sourceApp !== undefined) return listSourceBuilds(ctx, sourceApp, options);
  if (options.branch !== undefined || options.limit !== undefined)
    throw new UsageError('--branch and --limit list the builds made from a repository: give the app as an argument (`cw builds ls APP --branch B`)');
  const projectId = await ctx.project();
  const appId = appOf(options, ctx.env);
  const answer = await ctx.ok(ctx.api.GET('/v1/projects/{projectId}/apps/{appId}/builds', { params: { path: { projectId, appId } } }));
  if (ctx.json) return printJson(answer);
  printTable(
    ['', 'BUILD', 'UPLOADED', 'SIZE', 'DIGEST', 'HOST NAMES', 'MAX REQUESTS'],
    answer.builds.map((b) => [b.active ? '*' : ' ', b.build_id, ago(b.created_at), formatBytes(b.size), b.digest.slice(0, 19), ...optionCells(b.deploy_options)]),
    `No builds yet: deploy with \`cw deploy DIR --app ${appId}\`.`,
  );
}

/** The options a build was deployed with, as `builds ls` shows them; blank when it recorded none. */
function optionCells(options: { hostnames: string[]; max_concurrent_requests?: number } | undefined): [string, string] {
  if (!options) return ['', ''];
  return [options.hostnames.join(', ') || '-', String(options.max_concurrent_requests ?? 'default')];
}

async function rollback(ctx: Context, buildArg: string | undefined, options: { app?: string; wait: boolean; waitTimeout: number }): Promise<void> {
  const projectId = await ctx.project();
  const appId = appOf(options, ctx.env);
  const path = { projectId, appId };
  let buildId = buildArg;
  if (!buildId) {
    const { builds } = await ctx.ok(ctx.api.GET('/v1/projects/{projectId}/apps/{appId}/builds', { params: { path } }));
    const active = builds.findIndex((b) => b.active);
    const previous = active >= 0 ? builds[active + 1] : undefined;
    if (!previous) throw new CliError(`${appId} has no build before ${active >= 0 ? builds[active]?.build_id : 'its first deploy'} to roll back to (see \`cw builds ls --app ${appId}\`)`);
    buildId = previous.build_id;
  }
  const result = await ctx.ok(ctx.api.POST('/v1/projects/{projectId}/apps/{appId}/rollbacks', { params: { path }, body: { build_id: buildId } }));
  const app = options.wait ? await waitUntilServed(ctx, projectId, appId, result.build_id, options.waitTimeout) : undefined;
  if (ctx.json) return printJson(result);
  success(`Rolled back ${appId} to build ${result.build_id}${servedHow(app, result.build_id)}`);
  for (const url of urlsOf(app, result.hosts)) println(`  ${paint('cyan', url)}`);
}

/** The build is the new release of a rollout under way: served to a share of the traffic only. */
function rollingOut(app: App, buildId: string): boolean {
  const r = app.rollout;
  return r !== undefined && (r.phase === 'Progressing' || r.phase === 'Paused') && r.canary_build_id === buildId;
}

/** How the deployed build is served, for the success line: at once, or gradually under the app's rollout policy. */
function servedHow(app: App | undefined, buildId: string): string {
  if (!app) return '';
  return rollingOut(app, buildId) ? `: it is rolling out, ${app.rollout?.weight ?? 0}% of traffic on it now` : ' and it is served';
}
