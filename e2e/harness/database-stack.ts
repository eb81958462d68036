import { inject } from 'vitest';
import { createMemberAccount, createProjectNamespace, type MemberAccount } from './accounts.ts';
import { startApiServer, type ApiServer } from './api-server.ts';
import { startDatabaseServer, type DatabaseServer } from './database-server.ts';
import type { Service } from './process.ts';
import { startOperator } from './runtime-stack.ts';

/** A member's project with cw-db, cw-api and a cw-operator watching that project's namespace (child processes). */
export interface DatabaseStack {
  member: MemberAccount;
  db: DatabaseServer;
  api: ApiServer;
  stop(): Promise<void>;
}

/**
 * Starts what the database tests use. The operator watches the project's namespace only, so its Project
 * controller does not run; the usage figures are refreshed every second rather than every 30 s.
 */
export async function startDatabaseStack(options: { account: string; dbName: string; dbEnv?: Record<string, string> }): Promise<DatabaseStack> {
  const kubeconfig = inject('kubeconfig');
  const member = await createMemberAccount(kubeconfig, options.account);
  await createProjectNamespace(kubeconfig, member.project);
  const db = await startDatabaseServer({ name: options.dbName, ...(options.dbEnv ? { env: options.dbEnv } : {}) });
  const running: Service[] = [];
  const [api] = await Promise.all([
    startApiServer({ kubeconfig, stateDir: inject('stateDir'), env: { CW_DB_URL: db.url } }),
    startOperator(member.project, running, { ...db.clientEnv, CW_DB_USAGE_REFRESH_SECONDS: '1' }),
  ]);
  return {
    member,
    db,
    api,
    stop: async () => {
      await Promise.all([api.stop(), db.stop(), ...running.map((s) => s.stop(5_000))]);
    },
  };
}
