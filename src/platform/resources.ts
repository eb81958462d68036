import { customResource, type ResourceRef } from '../kube/index.ts';

/** Where each Cloudwright kind lives on the apiserver. */
export const PROJECTS: ResourceRef = customResource('Project', 'projects', false);
export const USERS: ResourceRef = customResource('User', 'users', false);
export const ACCESS_TOKENS: ResourceRef = customResource('AccessToken', 'accesstokens', false);
export const RUNTIME_APPS: ResourceRef = customResource('RuntimeApp', 'runtimeapps');
export const BUILDS: ResourceRef = customResource('Build', 'builds');
export const APP_HOSTNAMES: ResourceRef = customResource('AppHostname', 'apphostnames');
export const PROJECT_DOMAINS: ResourceRef = customResource('ProjectDomain', 'projectdomains');
export const DNS_RECORDS: ResourceRef = customResource('DnsRecord', 'dnsrecords');
export const DATABASES: ResourceRef = customResource('Database', 'databases');
export const REPOSITORIES: ResourceRef = customResource('Repository', 'repositories');
export const RUNTIME_REPLICAS: ResourceRef = customResource('RuntimeReplica', 'runtimereplicas');
export { NAMESPACES } from '../kube/index.ts';

/** The kinds a project's namespace holds; a project with any of them is not deleted (see projects.ts). */
export const PROJECT_CONTENTS: readonly ResourceRef[] = [RUNTIME_APPS, DATABASES, PROJECT_DOMAINS, REPOSITORIES];

/** Label on namespaces (and every object we create) naming the owning project. */
export const PROJECT_LABEL = 'cloudwright.dev/project';
