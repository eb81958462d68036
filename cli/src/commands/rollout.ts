// `cw rollout set | unset | status | promote | abort | retry`: gradual rollouts of an app's deploys.
import { setTimeout as sleep } from 'node:timers/promises';
import { type Command, InvalidArgumentError } from 'commander';
import { act, choiceOption, examples, intOption, withJson } from '../command-kit.ts';
import type { Context } from '../context.ts';
import { CliError, UsageError } from '../errors.ts';
import { note, paint, printFields, printJson, println, success } from '../output.ts';

type RolloutView = Awaited<ReturnType<typeof getRollout>>;
type RolloutStatus = NonNullable<RolloutView['status']>;
type Step = { weight: number; pause?: string };

/** How often `status --watch` reads the rollout again. */
const WATCH_INTERVAL_MS = 2000;
const DURATION = /^(\d{1,5}h)?(\d{1,5}m)?(\d{1,5}s)?$/;

/**
 * `--steps 10:30s,50:manual,100`: each step a weight, then optionally `:` and a pause (a duration, or `manual`
 * to wait for a promote).
 */
export function stepsOption(value: string): Step[] {
  const steps = value.split(',').map((item, i) => {
    const [weight = '', pause, extra] = item.trim().split(':');
    const where = `step ${i + 1} (${JSON.stringify(item.trim())})`;
    if (extra !== undefined || !/^\d{1,3}$/.test(weight) || Number(weight) > 100) throw new InvalidArgumentError(`${where}: expected WEIGHT[:PAUSE], a weight from 0 to 100.`);
    if (pause !== undefined && pause !== 'manual' && (pause.length < 2 || !DURATION.test(pause)))
      throw new InvalidArgumentError(`${where}: the pause is a duration such as 30s, 5m or 1h30m, or manual.`);
    return { weight: Number(weight), ...(pause === undefined ? {} : { pause }) };
  });
  return steps;
}

/** A percentage, decimals allowed. */
function percentOption(value: string): number {
  if (!/^\d+(\.\d+)?$/.test(value) || Number(value) > 100) throw new InvalidArgumentError('expected a percentage from 0 to 100.');
  return Number(value);
}

function durationArgument(value: string): string {
  if (value.length < 2 || !DURATION.test(value)) throw new InvalidArgumentError('expected a duration such as 30s, 5m or 1h30m.');
  return value;
}

interface SetOptions {
  steps: Step[];
  affinityCookie?: string;
  affinityHeader?: string;
  analysisInterval?: string;
  minRequests?: number;
  maxErrorPercent?: number;
  maxAboveStable?: number;
  failureLimit?: number;
  onFailure?: 'abort' | 'pause';
}

export function registerRollout(program: Command): void {
  const rollout = program.command('rollout').description('Roll an app’s deploys out in steps of traffic instead of at once: set the policy, follow a rollout, promote or abort it');
  examples(
    act(
      withJson(
        rollout
          .command('set')
          .argument('<app>', 'app id')
          .description('Set the app’s rollout policy (replacing the one it has): its next deploys go out in these steps')
          .requiredOption('--steps <steps>', 'comma-separated WEIGHT[:PAUSE] steps of increasing weight; PAUSE a duration (30s, 5m, 1h30m) or manual (wait for `cw rollout promote`)', stepsOption)
          .option('--affinity-cookie <name>', 'keep each user on one build with this cookie, set by the runtime (default: the cookie cw-rollout)')
          .option('--affinity-header <name>', 'keep each user on one build by this request header’s value (a user id your client or CDN sends)')
          .option('--analysis-interval <duration>', 'judge the new build this often (default 1m)', durationArgument)
          .option('--min-requests <n>', 'requests the new build must answer in an interval to be judged (needed for analysis)', intOption(1, 1_000_000))
          .option('--max-error-percent <p>', 'fail an interval where more than this percent of the new build’s answers are errors (5xx, exceptions)', percentOption)
          .option('--max-above-stable <p>', 'fail an interval where the new build’s error percent exceeds the stable build’s by more than this', percentOption)
          .option('--failure-limit <n>', 'failed intervals tolerated before the rollout fails (default 0)', intOption(0, 100))
          .option('--on-failure <abort|pause>', 'what a failed analysis does: abort (default: all traffic back to the stable build) or pause', choiceOption(['abort', 'pause'] as const)),
      ),
      set,
    ),
    [
      'cw rollout set web --steps 10:30s,50:manual,100',
      'cw rollout set web --steps 5:1m,25:5m,50:5m,100 --min-requests 100 --max-error-percent 2 --on-failure abort',
      'cw rollout set web --steps 20:manual,100 --affinity-header x-user-id',
    ],
  );
  examples(act(withJson(rollout.command('unset').argument('<app>', 'app id').description('Remove the app’s rollout policy: deploys switch at once again, and so does a rollout under way')), unset), [
    'cw rollout unset web',
  ]);
  examples(
    act(
      withJson(
        rollout
          .command('status')
          .argument('<app>', 'app id')
          .description('Show the app’s rollout policy and its latest rollout: phase, step, weight, builds, the last analysis interval')
          .option('-w, --watch', 'follow the rollout until it succeeds or is aborted (exit 1 when aborted)'),
      ),
      status,
    ),
    ['cw rollout status web', 'cw rollout status web --watch', 'cw rollout status web --json'],
  );
  for (const [action, description] of [
    ['promote', 'Promote the rollout under way: end its pause and move on to the next step'],
    ['abort', 'Abort the rollout under way: all traffic goes back to the stable build'],
    ['retry', 'Start an aborted rollout again from its first step'],
  ] as const) {
    examples(
      act(withJson(rollout.command(action).argument('<app>', 'app id').description(description)), (ctx, appId: string) => request(ctx, appId, action)),
      [`cw rollout ${action} web`],
    );
  }
}

async function getRollout(ctx: Context, projectId: string, appId: string) {
  return (await ctx.ok(ctx.api.GET('/v1/projects/{projectId}/apps/{appId}/rollout', { params: { path: { projectId, appId } } }))).rollout;
}

async function set(ctx: Context, appId: string, options: SetOptions): Promise<void> {
  if (options.affinityCookie && options.affinityHeader) throw new UsageError('give --affinity-cookie or --affinity-header, not both');
  const judged = options.maxErrorPercent !== undefined || options.maxAboveStable !== undefined;
  const analysing = judged || options.minRequests !== undefined || options.analysisInterval !== undefined || options.failureLimit !== undefined;
  if (analysing && options.minRequests === undefined) throw new UsageError('analysis needs --min-requests (the requests an interval must have to be judged)');
  if (analysing && !judged) throw new UsageError('analysis needs --max-error-percent or --max-above-stable (what fails an interval)');
  const projectId = await ctx.project();
  const answer = await ctx.ok(
    ctx.api.PUT('/v1/projects/{projectId}/apps/{appId}/rollout', {
      params: { path: { projectId, appId } },
      body: {
        steps: options.steps,
        ...(options.affinityCookie ? { affinity: { cookie: options.affinityCookie } } : {}),
        ...(options.affinityHeader ? { affinity: { header: options.affinityHeader } } : {}),
        ...(analysing && options.minRequests !== undefined
          ? {
              analysis: {
                min_requests: options.minRequests,
                ...(options.analysisInterval ? { interval: options.analysisInterval } : {}),
                ...(options.maxErrorPercent !== undefined ? { max_error_percent: options.maxErrorPercent } : {}),
                ...(options.maxAboveStable !== undefined ? { max_percent_above_stable: options.maxAboveStable } : {}),
                ...(options.failureLimit !== undefined ? { failure_limit: options.failureLimit } : {}),
              },
            }
          : {}),
        ...(options.onFailure ? { on_failure: options.onFailure } : {}),
      },
    }),
  );
  if (ctx.json) return printJson(answer);
  success(`App ${appId} rolls its next deploys out in steps: ${stepsLine(options.steps)}`);
  note(`Follow a rollout with \`cw rollout status ${appId} --watch\`.`);
}

async function unset(ctx: Context, appId: string): Promise<void> {
  const projectId = await ctx.project();
  await ctx.ok(ctx.api.DELETE('/v1/projects/{projectId}/apps/{appId}/rollout', { params: { path: { projectId, appId } } }));
  if (ctx.json) return printJson({});
  success(`Removed the rollout policy of app ${appId}: its deploys switch all traffic at once`);
}

async function status(ctx: Context, appId: string, options: { watch?: boolean }): Promise<void> {
  const projectId = await ctx.project();
  let last = '';
  for (;;) {
    const view = await getRollout(ctx, projectId, appId);
    const shown = JSON.stringify(view);
    if (shown !== last) {
      if (ctx.json) printJson({ rollout: view });
      else {
        if (last) println();
        printRollout(view);
      }
      last = shown;
    }
    const phase = view.status?.phase;
    if (!options.watch) return;
    if (phase === 'Aborted') throw new CliError(`the rollout of app ${appId} was aborted${view.status?.message ? `: ${view.status.message}` : ''}`);
    if (phase === 'Succeeded' || phase === undefined) return;
    await sleep(WATCH_INTERVAL_MS);
  }
}

async function request(ctx: Context, appId: string, action: 'promote' | 'abort' | 'retry'): Promise<void> {
  const projectId = await ctx.project();
  const path = `/v1/projects/{projectId}/apps/{appId}/rollout/${action}` as const;
  const sent = ctx.api.POST(path, { params: { path: { projectId, appId } } });
  const answer = await ctx.ok(sent);
  const handled = (await sent).response.status !== 202;
  if (ctx.json) return printJson(answer);
  const done = { promote: 'Promoted', abort: 'Aborted', retry: 'Retrying' }[action];
  if (handled) success(`${done} the rollout of app ${appId}`);
  else note(`Asked to ${action} the rollout of app ${appId}; the platform has not handled it yet.`);
  if (answer.rollout.status) printRollout(answer.rollout);
  if (!handled) note(`Follow it with \`cw rollout status ${appId} --watch\`.`);
}

function printRollout(view: RolloutView): void {
  const s = view.status;
  printFields([
    ['Policy', view.policy ? stepsLine(view.policy.steps) : 'none (deploys switch at once)'],
    ['Phase', s?.canary_build_id ? paint(phaseColour(s.phase), s.phase) : 'no rollout yet: the next deploy starts one'],
    ...(s?.canary_build_id ? rolloutFields(s) : s ? [['Stable build', s.stable_build_id] as [string, string]] : []),
  ]);
}

function rolloutFields(s: RolloutStatus): [string, string | undefined][] {
  const a = s.analysis;
  return [
    ['Step', s.steps > 0 ? `${Math.min(s.step + 1, s.steps)} of ${s.steps}` : String(s.step)],
    ['Weight', `${s.weight}% on the new build`],
    ['Builds', s.phase === 'Succeeded' ? `${s.stable_build_id} (all traffic)` : `${s.stable_build_id} → ${s.canary_build_id ?? ''}`],
    ['Last interval', a ? `stable ${countsLine(a.stable)}; new ${countsLine(a.canary)}; ${a.failures} failed interval${a.failures === 1 ? '' : 's'}` : undefined],
    ['Message', s.message],
  ];
}

function countsLine(c: { requests: number; errors: number }): string {
  return `${c.requests} requests, ${c.errors} errors`;
}

function stepsLine(steps: readonly Step[]): string {
  return steps.map((s) => `${s.weight}%${s.pause === 'manual' ? ' until promoted' : s.pause ? ` for ${s.pause}` : ''}`).join(' → ');
}

function phaseColour(phase: string): 'green' | 'red' | 'yellow' {
  return phase === 'Succeeded' ? 'green' : phase === 'Aborted' ? 'red' : 'yellow';
}
