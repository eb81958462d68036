// Creating and deleting repositories (`PUT`/`DELETE /{owner}/{repo}`): the port and its two implementations.
export { DEFAULT_BRANCH, InvalidBranchNameError, defaultBranchOf, type CreateRepositoryOptions, type RepositoryDirectory } from './repository-directory.ts';
export { BucketRepositoryDirectory } from './bucket-repository-directory.ts';
export { KubeRepositoryDirectory, RepositoryPendingError, type KubeRepositoryDirectoryOptions } from './kube-repository-directory.ts';
export { repositoryResourceName } from './resource-name.ts';
export { KubeRepositoryResources, type RepositoryResource, type RepositoryResources } from './kube-repository-resources.ts';
