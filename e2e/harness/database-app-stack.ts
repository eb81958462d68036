import { inject } from 'vitest';
import { createMemberAccount, createProjectNamespace, type MemberAccount } from './accounts.ts';
import { startApiServer, type ApiServer } from './api-server.ts';
import { startDatabaseServer, type DatabaseServer } from './database-server.ts';
import type { Service } from './process.ts';
import { BASE_DOMAIN, s3Env, startOperator, startRuntime, type Runtime } from './runtime-stack.ts';

/** cw-db, cw-api, cw-runtime and cw-operator for one member's project, apps reaching the database. */
export interface DatabaseAppStack {
  readonly member: MemberAccount;
  readonly db: DatabaseServer;
  readonly api: ApiServer;
  readonly runtime: Runtime;
  stop(): Promise<void>;
}

/**
 * Starts the stack for a new member account `account` (its project's namespace made, as the Project controller
 * would: the operator here watches that namespace only). The runtime lets apps reach cw-db's SQL endpoint.
 */
export async function startDatabaseAppStack(account: string, operatorEnv: Record<string, string> = {}): Promise<DatabaseAppStack> {
  const kubeconfig = inject('kubeconfig');
  const running: Service[] = [];
  const member = await createMemberAccount(kubeconfig, account);
  await createProjectNamespace(kubeconfig, member.project);
  const db = await startDatabaseServer({ name: `cw-db-${account}` });
  const [api, runtime] = await Promise.all([
    startApiServer({ kubeconfig, stateDir: inject('stateDir'), env: { ...s3Env(), CW_DB_URL: db.url, CW_RUNTIME_BASE_DOMAIN: BASE_DOMAIN, POD_NAMESPACE: member.project } }),
    startRuntime(`cw-runtime-${account}`, member.project, running, { CW_RUNTIME_DATABASE_URL: db.url }),
    startOperator(member.project, running, { ...db.clientEnv, ...operatorEnv }),
  ]);
  return {
    member,
    db,
    api,
    runtime,
    stop: async () => {
      await Promise.all([api.stop(), db.stop(), ...running.map((s) => s.stop(5_000))]);
    },
  };
}
