import type { Command } from 'commander';
import { act, choiceOption, confirmOrExit, examples, withJson, withYes, withLimit } from '../command-kit.ts';
import { updateServer } from '../config.ts';
import type { Context } from '../context.ts';
import { ago, formatBytes, note, printFields, printJson, printTable, success } from '../output.ts';
import { lapsesAt, registerInvitations } from './invitations.ts';

export function registerProjects(program: Command): void {
  const projects = program.command('projects').alias('project').description('List, create and choose projects; manage members');
  examples(act(withLimit(withJson(projects.command('ls').alias('list').description('List the projects you belong to'))), list), [
    'cw projects ls',
    'cw projects ls --json | jq -r ".projects[].project_id"',
  ]);
  examples(
    act(
      withJson(
        projects
          .command('create')
          .argument('<id>', 'project id: lowercase letters, digits and dashes')
          .option('--name <name>', 'display name (default: the id)')
          .description('Create a project; you become its owner'),
      ),
      create,
    ),
    ['cw projects create shop', 'cw projects create shop --name "The Shop"'],
  );
  examples(act(withJson(projects.command('get').alias('show').argument('[id]', 'project id (default: the current project)').description('Show a project, with what it uses of its quotas')), get), [
    'cw projects get',
    'cw projects get shop --json | jq .project.usage',
  ]);
  examples(act(projects.command('use').argument('<id>', 'project id').description('Make a project the default for this API URL (CW_PROJECT and --project still win)'), use), ['cw projects use shop']);
  examples(act(withYes(projects.command('rm').alias('delete').argument('<id>', 'project id').description('Delete an empty project (apps, databases and domains must go first)')), remove), [
    'cw projects rm shop --yes',
  ]);

  const members = projects.command('members').description("List, invite and remove the current project's members");
  examples(act(withJson(members.command('ls').alias('list').description('List members and their roles, and the invitations not yet accepted')), listMembers), ['cw projects members ls']);
  examples(
    act(
      members
        .command('add')
        .argument('<user>', 'user id')
        .option('--role <role>', 'owner or member', choiceOption(['owner', 'member'] as const), 'member')
        .description('Invite someone (they become a member by accepting), or change a member’s role'),
      addMember,
    ),
    ['cw projects members add alice', 'cw projects members add bob --role owner'],
  );
  examples(act(withYes(members.command('rm').alias('remove').argument('<user>', 'user id').description('Remove a member, or withdraw their invitation')), removeMember), [
    'cw projects members rm alice',
  ]);
  examples(act(withYes(projects.command('leave').argument('<id>', 'project id').description('Leave a project you joined (its last owner cannot)')), leave), ['cw projects leave shop --yes']);
  registerInvitations(projects);
}

async function leave(ctx: Context, projectId: string): Promise<void> {
  const me = await ctx.ok(ctx.api.GET('/v1/user'));
  await confirmOrExit(ctx, `Leave ${projectId}? You lose access to it`);
  await ctx.ok(ctx.api.DELETE('/v1/projects/{projectId}/members/{userId}', { params: { path: { projectId, userId: me.user.user_id } } }));
  success(`Left ${projectId}`);
}

async function list(ctx: Context, options: { limit?: number }): Promise<void> {
  const answer = await ctx.allProjects(options.limit);
  if (ctx.json) return printJson(answer);
  printTable(
    ['ID', 'NAME', 'ROLE', 'READY', 'CREATED'],
    answer.projects.map((p) => [p.project_id, p.name, p.role, p.ready, ago(p.created_at)]),
    'No projects yet: create one with `cw projects create ID`.',
  );
}

async function create(ctx: Context, id: string, options: { name?: string }): Promise<void> {
  const answer = await ctx.ok(ctx.api.POST('/v1/projects', { body: { project_id: id, name: options.name ?? id } }));
  if (ctx.json) return printJson(answer);
  success(`Created project ${answer.project.project_id}`);
}

async function get(ctx: Context, id: string | undefined): Promise<void> {
  const projectId = id ?? (await ctx.project());
  const answer = await ctx.ok(ctx.api.GET('/v1/projects/{projectId}', { params: { path: { projectId } } }));
  if (ctx.json) return printJson(answer);
  const { project } = answer;
  const of = (used: number | undefined, quota: number | undefined) => (used === undefined || quota === undefined ? undefined : `${formatBytes(used)} of ${formatBytes(quota)}`);
  printFields([
    ['ID', project.project_id],
    ['Name', project.name],
    ['Role', project.role],
    ['Ready', project.ready],
    ['Namespace', project.namespace ?? undefined],
    ['Active builds (unpacked)', of(project.usage?.active_builds_unpacked_bytes, project.quotas?.active_builds_unpacked_bytes)],
    ['Stored builds', of(project.usage?.stored_builds_bytes, project.quotas?.stored_builds_bytes)],
    ['Created', project.created_at],
  ]);
}

async function use(ctx: Context, id: string): Promise<void> {
  await ctx.ok(ctx.api.GET('/v1/projects/{projectId}', { params: { path: { projectId: id } } }));
  updateServer(ctx.apiUrl, (s) => ({ ...s, project: id }), ctx.env);
  success(`Commands now use project ${id} on ${ctx.apiUrl}`);
  // The environment outranks the stored default: say so, or the next command acts on another project.
  const fromEnv = ctx.env.CW_PROJECT;
  if (fromEnv && fromEnv !== id) note(`CW_PROJECT=${fromEnv} is set in this shell and still wins: unset it (or pass --project) for commands to use ${id}`);
}

async function remove(ctx: Context, id: string): Promise<void> {
  await confirmOrExit(ctx, `Delete project ${id}?`);
  await ctx.ok(ctx.api.DELETE('/v1/projects/{projectId}', { params: { path: { projectId: id } } }));
  success(`Deleted project ${id}`);
}

async function listMembers(ctx: Context): Promise<void> {
  const projectId = await ctx.project();
  const path = { params: { path: { projectId } } };
  const [answer, pending] = await Promise.all([ctx.ok(ctx.api.GET('/v1/projects/{projectId}/members', path)), ctx.ok(ctx.api.GET('/v1/projects/{projectId}/invitations', path))]);
  if (ctx.json) return printJson({ ...answer, invitations: pending.invitations });
  printTable(
    ['USER', 'ROLE', 'STATE'],
    [...answer.members.map((m) => [m.user_id, m.role, 'member']), ...pending.invitations.map((i) => [i.user_id, i.role, `invited by ${i.invited_by}, lapses ${lapsesAt(i.expires_at)}`])],
  );
}

async function addMember(ctx: Context, user: string, options: { role: 'owner' | 'member' }): Promise<void> {
  const projectId = await ctx.project();
  const answer = await ctx.ok(ctx.api.PUT('/v1/projects/{projectId}/members/{userId}', { params: { path: { projectId, userId: user } }, body: { role: options.role } }));
  const role = options.role === 'owner' ? 'an owner' : 'a member';
  if ('invitation' in answer) {
    success(`Invited ${user} to ${projectId} as ${role}`);
    note(`they join by running \`cw projects invitations accept ${projectId}\` (or in the console) before ${lapsesAt(answer.invitation.expires_at)}`);
    return;
  }
  success(`${user} is now ${role} of ${projectId}`);
}

async function removeMember(ctx: Context, user: string): Promise<void> {
  const projectId = await ctx.project();
  const path = { params: { path: { projectId, userId: user } } };
  const project = { params: { path: { projectId } } };
  const [{ invitations }, { members }] = await Promise.all([ctx.ok(ctx.api.GET('/v1/projects/{projectId}/invitations', project)), ctx.ok(ctx.api.GET('/v1/projects/{projectId}/members', project))]);
  // Someone invited and not a member: what goes is the invitation.
  if (!members.some((m) => m.user_id === user) && invitations.some((i) => i.user_id === user)) {
    await confirmOrExit(ctx, `Withdraw the invitation of ${user} to ${projectId}?`);
    await ctx.ok(ctx.api.DELETE('/v1/projects/{projectId}/invitations/{userId}', path));
    return success(`Withdrew the invitation of ${user} to ${projectId}`);
  }
  await confirmOrExit(ctx, `Remove ${user} from ${projectId}?`);
  await ctx.ok(ctx.api.DELETE('/v1/projects/{projectId}/members/{userId}', path));
  success(`Removed ${user} from ${projectId}`);
}
