// The one module that imports @kubernetes/client-node: everything else goes through these wrappers.
export { KubeApiError, isAlreadyExists, isConflict, isGone, isNotFound, statusCodeOf } from './api-error.ts';
export { countQuantity, quotaRefusal, type ExceededCount, type QuotaRefusal } from './quota.ts';
export { eventWriter, type EventWriter, type InvolvedObject, type NewEvent } from './event-writer.ts';
export { createInformer, type Informer, type InformerErrorHandler, type InformerOptions } from './informer.ts';
export { createInformerFactory, type InformerFactory } from './informer-factory.ts';
export { connectionFor, loadKubeConnection, type KubeConnection } from './kube-config.ts';
export { leaseClient, type LeaseClient, type LeaseRecord, type StoredLease } from './lease-client.ts';
export { objectClient, type ApplyOptions, type ListOptions, type ObjectClient, type PatchType } from './object-client.ts';
export * from './resource.ts';
export * from './types.ts';
export { pingApiServer } from './ping.ts';
export { followPodLog, type PodLogFollow } from './pod-log.ts';
export { CONFLICT_RETRIES, retryOnConflict } from './retry.ts';
export { holdsWrite, isGoneFrom, waitFor, waitForAnswer, type WaitResult } from './wait.ts';
export { formatMicroTime, formatTime } from './time.ts';
