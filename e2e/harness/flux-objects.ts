// Flux's objects as the GitOps tests write and read them: the bootstrap (credentials, GitRepository, Kustomization,
// as docs/gitops.md has them), waits on a Kustomization's watch events, a sync asked for now, and what
// kustomize-controller says each apply did.
import { readFileSync } from 'node:fs';
import type { Condition } from '../../src/apis/v1alpha1/conditions.ts';
import { findCondition } from '../../src/conditions/index.ts';
import { loadKubeConnection, type KubeObject, type ResourceRef } from '../../src/kube/index.ts';
import type { Flux } from './flux.ts';
import { kubectl } from './kubectl.ts';
import { watchUntil } from './watch.ts';

const KUSTOMIZATIONS: ResourceRef = { group: 'kustomize.toolkit.fluxcd.io', version: 'v1', plural: 'kustomizations', kind: 'Kustomization', namespaced: true };

export interface Kustomization extends KubeObject {
  status?: {
    conditions?: Condition[];
    lastAppliedRevision?: string;
    lastAttemptedRevision?: string;
    lastHandledReconcileAt?: string;
    inventory?: { entries?: { id: string }[] };
  };
}

export interface FluxSync {
  /** Flux's namespace, where the three objects go. */
  readonly namespace: string;
  /** The repository's URL on cw-git and a token that reads it (the basic-auth password). */
  readonly url: string;
  readonly token: string;
  /** The Kustomization's name and the directory of the repository it applies. */
  readonly name: string;
  readonly path: string;
  /** How often cw-git is polled, and how often the Kustomization re-applies (drift correction), in seconds. */
  readonly sourceIntervalS: number;
  readonly syncIntervalS: number;
}

/** The credentials, the GitRepository (plain http, basic auth) and the Kustomization (`prune`, `wait`) for `sync`. */
export function fluxSyncManifests(sync: FluxSync): string {
  return `apiVersion: v1
kind: Secret
metadata: { name: cw-git, namespace: ${sync.namespace} }
stringData: { username: git, password: ${sync.token} }
---
apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata: { name: platform, namespace: ${sync.namespace} }
spec:
  url: ${sync.url}
  ref: { branch: main }
  interval: ${sync.sourceIntervalS}s
  secretRef: { name: cw-git }
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: { name: ${sync.name}, namespace: ${sync.namespace} }
spec:
  sourceRef: { kind: GitRepository, name: platform }
  path: ${sync.path}
  interval: ${sync.syncIntervalS}s
  retryInterval: ${sync.sourceIntervalS}s
  timeout: 2m
  prune: true
  wait: true
`;
}

/** Waits on the Kustomizations' watch events in `namespace` until one satisfies `test`; answers it. */
export async function kustomizationUntil(kubeconfig: string, namespace: string, what: string, timeoutMs: number, test: (k: Kustomization) => boolean): Promise<Kustomization> {
  const seen = await watchUntil<Kustomization>(loadKubeConnection(kubeconfig), KUSTOMIZATIONS, { namespace, timeoutMs, what }, (ks) => ks.some(test));
  return seen.find(test) as Kustomization;
}

/** Ready, having applied `commit` of main. */
export const readyAt = (commit: string) => (k: Kustomization) => findCondition(k.status?.conditions, 'Ready')?.status === 'True' && k.status?.lastAppliedRevision === `main@sha1:${commit}`;

/** Asks Flux for a sync now (what `flux reconcile kustomization` does) and waits until it is handled. */
export async function syncNow(kubeconfig: string, namespace: string, name: string): Promise<Kustomization> {
  const at = new Date().toISOString();
  const annotated = await kubectl(kubeconfig, 'annotate', '--overwrite', '-n', namespace, 'kustomization', name, `reconcile.fluxcd.io/requestedAt=${at}`);
  if (annotated.code !== 0) throw new Error(`kubectl annotate: ${annotated.stderr}`);
  return kustomizationUntil(kubeconfig, namespace, `sync requested at ${at} handled`, 60_000, (k) => k.status?.lastHandledReconcileAt === at);
}

/** What each apply of kustomize-controller did so far, from its log: object → created, configured, unchanged… */
export function applyOutputs(flux: Flux): Record<string, string>[] {
  return readFileSync(flux.kustomizeController.logPath, 'utf8')
    .split('\n')
    .filter((line) => line.includes('"msg":"server-side apply completed"'))
    .map((line) => (JSON.parse(line) as { output: Record<string, string> }).output);
}
