import type { ProjectDomain } from '../../../apis/v1alpha1/project-domain.ts';
import type { ObjectClient } from '../../../kube/index.ts';

/**
 * Moves the start of `domain`'s lapse clock (`status.notDelegatedSince`) and the time its `Delegated` condition last
 * changed `hours` into the past, as if its checks had said so since: a test's way past the day a delegation must
 * have lapsed before another project may take the name over.
 */
export async function backdateDelegated(client: ObjectClient<ProjectDomain>, domain: ProjectDomain, hours: number): Promise<void> {
  const { namespace = '', name = '' } = domain.metadata ?? {};
  const current = await client.get(namespace, name);
  const at = new Date(Date.now() - hours * 3_600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const conditions = (current?.status?.conditions ?? []).map((c) => (c.type === 'Delegated' ? { ...c, lastTransitionTime: at } : c));
  const since = current?.status?.notDelegatedSince !== undefined ? { notDelegatedSince: at } : {};
  await client.patchStatus(namespace, name, { status: { conditions, ...since } });
}
