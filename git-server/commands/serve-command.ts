// `cw-git serve --config FILE`: the service itself (git-server/serve.ts), which runs until SIGTERM.
import type { Command } from './command.ts';

export const serveCommand: Command = {
  name: 'serve',
  summary: 'run the repository service (git smart HTTP, LFS, repository API) until SIGTERM',
  positionals: [],
  options: {},
  json: false,
  details: 'Reads every key of the configuration file, with SERVICE__<SECTION>__<KEY> environment overrides, and drains on SIGTERM.',
  async run(_invocation, context) {
    // Loaded here, so the admin commands do not load the HTTP server.
    const { serve } = await import('../serve.ts');
    await serve(context.config);
  },
};
