// Kubernetes-backed implementations of the auth ports (src/auth/ports.ts), plus the project listing the API
// reads from the same caches. Test helpers (testing/) are imported from their own files, not from here.

export { KubeDeviceGrantStore, type KubeDeviceGrantStoreOptions } from './kube-device-grant-store.ts';
export { KubeTokenStore, type KubeTokenStoreOptions } from './kube-token-store.ts';
export type { ProjectReader } from '../../src/platform/project-reader.ts';
export { CREATED_AT_ANNOTATION } from './access-token-record.ts';
export { DEVICE_GRANT_SECRET_TYPE, USER_CODE_LABEL } from './device-grant-secret.ts';
