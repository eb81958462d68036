import type { Ownership } from './cluster/ownership.ts';
import type { DirectoryCluster } from './tenant-directory.ts';

/**
 * The directory's view of the leases, answered by `ownership()` (made after the directory, whose tenants it adopts
 * and drops): nothing held until it exists. `shipElsewhere` has the owner of a database ship it.
 */
export function ownershipCluster(replica: string, ownership: () => Ownership | undefined, shipElsewhere: DirectoryCluster['shipElsewhere']): DirectoryCluster {
  return {
    replica,
    surelyHeld: (tenant, epoch) => ownership()?.surelyHeld(tenant, epoch) ?? false,
    confirm: async (tenant, epoch) => (await ownership()?.confirm(tenant, epoch)) ?? false,
    claim: async (tenant) => ownership()?.claimNew(tenant),
    forget: async (tenant) => ownership()?.forget(tenant),
    giveUp: async (tenant) => ownership()?.giveUp(tenant),
    shipElsewhere,
  };
}
