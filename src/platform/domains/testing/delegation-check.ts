import { randomBytes } from 'node:crypto';
import { vi } from 'vitest';
import { DELEGATION_CHECK_ANNOTATION, type ProjectDomain } from '../../../apis/v1alpha1/project-domain.ts';
import type { ObjectClient } from '../../../kube/index.ts';

/**
 * Asks the ProjectDomain controller for a delegation check the way the API does (the request annotation)
 * and answers the domain once the controller has echoed the request in its status.
 */
export async function askDelegationCheck(client: ObjectClient<ProjectDomain>, domain: ProjectDomain): Promise<ProjectDomain> {
  const { namespace = '', name = '' } = domain.metadata ?? {};
  const request = randomBytes(8).toString('hex');
  await client.patch(namespace, name, { metadata: { annotations: { [DELEGATION_CHECK_ANNOTATION]: request } } });
  return vi.waitFor(
    async () => {
      const live = await client.get(namespace, name);
      if (live?.status?.lastHandledDelegationCheck !== request) throw new Error(`the delegation check of ${domain.spec.domain} has not been answered yet`);
      return live;
    },
    { timeout: 15_000, interval: 50 },
  );
}
