/** API group of every Cloudwright custom resource. */
export const GROUP = 'cloudwright.dev';

/** The one served (and stored) version. */
export const VERSION = 'v1alpha1';

/** `apiVersion` of objects of this version. */
export const API_VERSION = `${GROUP}/${VERSION}` as const;

/** Category shared by every kind, so `kubectl get cloudwright` lists them all. */
export const CATEGORY = 'cloudwright';
