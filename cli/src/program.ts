// The `cw` command tree. Each file under commands/ registers one group; this file holds the global options.
import { Command } from 'commander';
import { registerApps } from './commands/apps.ts';
import { registerAppHistory } from './commands/app-history.ts';
import { registerAudit } from './commands/audit.ts';
import { registerBuilds } from './commands/builds.ts';
import { registerAuth } from './commands/auth.ts';
import { registerCompletion } from './commands/completion.ts';
import { registerDatabases } from './commands/databases.ts';
import { registerDeploy } from './commands/deploy.ts';
import { registerDomains } from './commands/domains.ts';
import { registerEnv } from './commands/env.ts';
import { registerGit } from './commands/git.ts';
import { registerHostnames } from './commands/hostnames.ts';
import { registerLogs } from './commands/logs.ts';
import { registerMetrics } from './commands/metrics.ts';
import { registerProjects } from './commands/projects.ts';
import { registerTokens } from './commands/tokens.ts';
import { registerUsers } from './commands/users.ts';
import { registerRollout } from './commands/rollout.ts';
import { paint } from './output.ts';
import { VERSION } from './version.ts';

export function buildProgram(): Command {
  const program = new Command('cw')
    .description('Cloudwright from your terminal: deploy apps, run databases and domains, manage tokens.')
    .version(VERSION, '-V, --version', 'print the version of cw')
    .option('--api-url <url>', 'the Cloudwright API (default: CW_API_URL, else the URL `cw login` stored)')
    .option('--token <token>', 'an access token to use instead of the stored one (prefer CW_TOKEN: arguments show in `ps`)')
    .option('-p, --project <id>', 'the project to act on (default: CW_PROJECT, else `cw projects use`, else your only project)')
    .helpOption('-h, --help', 'show help for a command')
    .showSuggestionAfterError()
    .exitOverride()
    .configureOutput({ outputError: (text, write) => write(paint('red', text, process.stderr)) })
    .addHelpText(
      'after',
      `
Start with \`cw login\`, then \`cw deploy ./my-worker --app hello\`. Every command takes --help.
Environment: CW_API_URL, CW_TOKEN, CW_PROJECT, CW_APP, NO_COLOR. Settings live in $XDG_CONFIG_HOME/cloudwright.`,
    );
  registerAuth(program);
  registerProjects(program);
  registerApps(program);
  registerAppHistory(program);
  registerDeploy(program);
  registerBuilds(program);
  registerRollout(program);
  registerLogs(program);
  registerMetrics(program);
  registerEnv(program);
  registerHostnames(program);
  registerDomains(program);
  registerDatabases(program);
  registerGit(program);
  registerAudit(program);
  registerTokens(program);
  registerUsers(program);
  registerCompletion(program);
  // Every subcommand exits through the same path as the program (errors become exit codes in bin/cw.ts).
  const inherit = (command: Command): void => {
    for (const sub of command.commands) {
      sub.exitOverride().showSuggestionAfterError().configureOutput(program.configureOutput());
      inherit(sub);
    }
  };
  inherit(program);
  return program;
}
