import { Type, type Static } from 'typebox';
import type { CustomResource, KindDescriptor } from '../kind-descriptor.ts';
import { CATEGORY } from './group-version.ts';
import { DnsLabel, DnsSubdomain, Hostname } from './strings.ts';

/** The object holding a name: a ProjectDomain (a domain) or an AppHostname (a custom host name). */
export const ClaimHolder = Type.Object(
  {
    kind: Type.Union([Type.Literal('ProjectDomain'), Type.Literal('AppHostname')], { description: 'Kind of the holding object.' }),
    namespace: DnsLabel({ description: 'Its namespace: the project holding the name.' }),
    name: DnsSubdomain({ description: 'Its name.' }),
    uid: Type.String({ minLength: 1, maxLength: 64, description: 'Its uid: a new object of the same name does not inherit the claim.' }),
  },
  { description: 'Who holds the name.' },
);
export type ClaimHolder = Static<typeof ClaimHolder>;

export const NameClaimSpec = Type.Object({
  name: Hostname({ description: 'The name held: the claim object is named after it, so the apiserver admits one holder.' }),
  holder: ClaimHolder,
});
export type NameClaimSpec = Static<typeof NameClaimSpec>;

export type DomainClaim = CustomResource<'DomainClaim', NameClaimSpec, never>;
export type HostnameClaim = CustomResource<'HostnameClaim', NameClaimSpec, never>;

const columns = [
  { name: 'Project', type: 'string', jsonPath: '.spec.holder.namespace', description: 'Project holding the name.' },
  { name: 'Holder', type: 'string', jsonPath: '.spec.holder.name', description: 'Object holding the name.' },
] as const;

/**
 * A domain held by one project, installation-wide. Cluster-scoped and named after the domain, so two
 * projects adding the same domain cannot both hold it: the apiserver's name uniqueness decides, not
 * timestamps. Written only by the ProjectDomain controller, for every ProjectDomain however it was made.
 */
export const DomainClaimKind: KindDescriptor<'DomainClaim', typeof NameClaimSpec, undefined> = {
  kind: 'DomainClaim',
  plural: 'domainclaims',
  singular: 'domainclaim',
  shortNames: ['cwdomainclaim'],
  scope: 'Cluster',
  categories: [CATEGORY],
  description: 'A domain held by one Cloudwright project (written by the platform).',
  name: Hostname({ description: 'The domain.' }),
  spec: NameClaimSpec,
  status: undefined,
  printerColumns: [...columns],
  objectRules: [{ rule: 'self.metadata.name == self.spec.name', message: 'a claim is named after the name it holds' }],
};

/**
 * A custom host name served by one project, installation-wide: as {@link DomainClaimKind}, for app
 * hostnames. Written only by the AppHostname controller.
 */
export const HostnameClaimKind: KindDescriptor<'HostnameClaim', typeof NameClaimSpec, undefined> = {
  kind: 'HostnameClaim',
  plural: 'hostnameclaims',
  singular: 'hostnameclaim',
  shortNames: ['cwhostclaim'],
  scope: 'Cluster',
  categories: [CATEGORY],
  description: 'A custom host name held by one Cloudwright project (written by the platform).',
  name: Hostname({ description: 'The host name.' }),
  spec: NameClaimSpec,
  status: undefined,
  printerColumns: [...columns],
  objectRules: [{ rule: 'self.metadata.name == self.spec.name', message: 'a claim is named after the name it holds' }],
};
