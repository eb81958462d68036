import type { Command } from 'commander';
import { act, choiceOption, confirmOrExit, examples, withJson, withLimit, withYes } from '../command-kit.ts';
import { ApiError, CliError } from '../errors.ts';
import type { Context } from '../context.ts';
import { collectPages } from '../pages.ts';
import { note, printJson, printTable, success, terminalSafe } from '../output.ts';

/** `2026-12-13 21:40 UTC`: when an invitation lapses, to the minute. */
export function lapsesAt(iso: string): string {
  return `${iso.slice(0, 16).replace('T', ' ')} UTC`;
}

/** `cw projects invitations …`: the invitations waiting for the caller, accepted or declined. */
export function registerInvitations(projects: Command): void {
  const invitations = projects.command('invitations').alias('invites').description('List, accept and decline the invitations to projects waiting for you');
  examples(act(withLimit(withJson(invitations.command('ls').alias('list').description('List the invitations waiting for you'))), listMine), ['cw projects invitations ls']);
  examples(
    act(
      withYes(
        invitations
          .command('accept')
          .argument('<project>', 'project id')
          .option('--role <role>', 'the role you accept (owner or member); refused if the invitation offers another', choiceOption(['owner', 'member'] as const))
          .description('Accept an invitation: you become a member, or an owner, as it offers (asks first, showing the role)'),
      ),
      accept,
    ),
    ['cw projects invitations accept shop', 'cw projects invitations accept shop --role member --yes'],
  );
  examples(act(withYes(invitations.command('decline').argument('<project>', 'project id').description('Decline an invitation')), decline), ['cw projects invitations decline shop --yes']);
}

/** The caller's invitations, every page of them or the first `limit`. */
export async function myInvitations(ctx: Context, limit?: number) {
  const { items, next } = await collectPages(async (query) => {
    const page = await ctx.ok(ctx.api.GET('/v1/user/invitations', { params: { query } }));
    return { items: page.invitations, next: page.next };
  }, limit);
  return { invitations: items, next };
}

async function listMine(ctx: Context, options: { limit?: number }): Promise<void> {
  const answer = await myInvitations(ctx, options.limit);
  if (ctx.json) return printJson(answer);
  printTable(
    ['PROJECT', 'NAME', 'ROLE', 'INVITED BY', 'LAPSES'],
    answer.invitations.map((i) => [i.project_id, terminalSafe(i.project_name, ''), i.role, i.invited_by, lapsesAt(i.expires_at)]),
    'No invitations waiting for you.',
  );
}

/**
 * Accepts the role the person was shown (the prompt) or named (`--role`): the API refuses an invitation renewed with
 * another role meanwhile, so nobody becomes an owner they did not agree to be. A member offered the owner role is
 * promoted, not joining: the invitation does not say which, the project does (readable only to its members).
 */
async function accept(ctx: Context, projectId: string, options: { role?: 'owner' | 'member' }): Promise<void> {
  const invitation = (await myInvitations(ctx)).invitations.find((i) => i.project_id === projectId);
  if (!invitation) throw new CliError(`no invitation to ${projectId} is waiting for you (\`cw projects invitations ls\` lists yours)`);
  if (options.role && options.role !== invitation.role) throw new CliError(`the invitation to ${projectId} offers the role ${invitation.role}, not ${options.role}`);
  const role = invitation.role === 'owner' ? 'an owner' : 'a member';
  const named = `${projectId} (${terminalSafe(invitation.project_name, '')})`;
  const member = invitation.role === 'owner' && (await isMember(ctx, projectId));
  await confirmOrExit(ctx, member ? `Become an owner of ${named}, invited by ${invitation.invited_by}?` : `Join ${named} as ${role}, invited by ${invitation.invited_by}?`);
  const answer = await ctx.ok(ctx.api.POST('/v1/user/invitations/{projectId}/accept', { params: { path: { projectId } }, body: { role: invitation.role } }));
  const now = answer.member.role === 'owner' ? 'an owner' : 'a member';
  if (member) return success(`You are now ${now} of ${projectId}`);
  success(`Joined ${projectId} as ${now}`);
  note(`make it the default with \`cw projects use ${projectId}\``);
}

/** Whether the caller is a member of the project: it answers them with their role (403 or 404 to anyone else; no role to an administrator who is not one). */
async function isMember(ctx: Context, projectId: string): Promise<boolean> {
  try {
    const { project } = await ctx.ok(ctx.api.GET('/v1/projects/{projectId}', { params: { path: { projectId } } }));
    return project.role !== undefined;
  } catch (err) {
    if (err instanceof ApiError && (err.status === 403 || err.status === 404)) return false;
    throw err;
  }
}

async function decline(ctx: Context, projectId: string): Promise<void> {
  await confirmOrExit(ctx, `Decline the invitation to ${projectId}?`);
  await ctx.ok(ctx.api.DELETE('/v1/user/invitations/{projectId}', { params: { path: { projectId } } }));
  success(`Declined the invitation to ${projectId}`);
}
