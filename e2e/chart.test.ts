// The Helm chart as a cluster admin installs it, on the real kube-apiserver: `helm template` renders it and the
// apiserver takes every object. There is no kubelet, so the pods are run here instead, as child processes:
// cw-runtime, cw-api and cw-operator each with the environment its workload object gives it (Secrets referenced
// by `envFrom` resolved as the kubelet would) and with only its ServiceAccount's permissions (a token from the
// TokenRequest API). Through them a member deploys an app that the runtime serves and the operator marks Ready,
// adds a project domain whose zone lands in Route 53 (moto), and a device sign-in starts. What a local run must
// change is only where things listen (ports, data directory) and, for test isolation, the operator's namespace: it
// reconciles the member's project only, so its cluster-wide watches and the Project controller's namespace
// writes are not exercised here (operator/controllers/project has its own test). The release has a name of
// its own, so its cluster-scoped objects never touch another release's; they are deleted afterwards. The runtime
// replica runs as a Pod object made from its Deployment's template (never scheduled: there is no kubelet), so
// its report is owned by a real pod and the garbage collector removes it with the pod. The release namespace
// enforces the restricted Pod Security Standard, so that pod, and every other workload's pod (cw-git and cw-db
// too, as dry runs), must pass it; each container's probes are checked against the routes and ports its
// process serves, and those of the three running processes are asked for real.
import { reportOf } from './harness/replica-report.ts';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import { RUNTIME_APP_FINALIZER, type RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import { findCondition } from '../src/conditions/index.ts';
import { replicaReportName, type RuntimeReplicaReport } from '../src/apis/v1alpha1/runtime-replica-report.ts';
import type { RuntimeReplica } from '../src/apis/v1alpha1/runtime-replica.ts';
import {
  CONFIG_MAPS,
  connectionFor,
  LEASES,
  loadKubeConnection,
  NAMESPACES,
  objectClient,
  RESOURCE_QUOTAS,
  resourcePath,
  ROLE_BINDINGS,
  SECRETS,
  type KubeConnection,
  type KubeObject,
  type ResourceRef,
} from '../src/kube/index.ts';
import type { Project } from '../src/apis/v1alpha1/project.ts';
import { projectNamespace } from '../operator/controllers/project/project-namespace.ts';
import { TRANSLATED_PRIVATE_DENY } from '../runtime-server/engine/dispatcher/config.ts';
import { buildJob } from '../operator/controllers/source-build/build-job.ts';
import { DEFAULT_BUILD_LIMITS, type BuildRunSpec } from '../operator/controllers/source-build/build-runner.ts';
import { buildJobSettingsFromEnv } from '../operator/controllers/source-build/job-runner-env.ts';
import { buildSettingsFromEnv } from '../operator/build-env.ts';
import { EnvReader } from '../src/config/env.ts';
import { projectResourceQuota } from '../src/platform/project-quota.ts';
import {
  APP_HOSTNAMES,
  DNS_RECORDS,
  PROJECT_LABEL,
  PROJECTS,
  RUNTIME_APPS,
  RUNTIME_REPLICA_REPORTS,
  RUNTIME_REPLICAS as REPLICA_OBJECTS,
  SOURCE_BUILDS,
  TLS_CERTIFICATES,
} from '../src/platform/resources.ts';
import { SOURCE_BUILD_FINALIZER } from '../src/apis/v1alpha1/source-build.ts';
import { TLS_CERTIFICATE_FINALIZER } from '../src/apis/v1alpha1/tls-certificate.ts';
import { operatorRoleBinding, projectRoleBindings, type RoleBinding } from '../operator/controllers/project/operator-access.ts';
import { send } from '../runtime-server/engine/testing/http.ts';
import { EventStream } from '../git-server/repo-api/testing/event-stream-client.ts';
import { parseConfig } from '../git-server/config/index.ts';
import { createMemberAccount, createProjectNamespace, type MemberAccount } from './harness/accounts.ts';
import { mayDo, person, serviceAccount } from './harness/access-review.ts';
import { createTestNamespace } from './harness/namespace.ts';
import { freePort, killHard, startService, waitForHttp, type Service } from './harness/process.ts';
import { eventually, packWorker } from './harness/runtime-stack.ts';
import { CHART_KUBE_VERSION, repoRoot, toolPath } from './harness/tools.ts';

const kubeconfig = inject('kubeconfig');
const conn = loadKubeConnection(kubeconfig);
const stateDir = inject('stateDir');
const chartDir = join(repoRoot, 'charts/cloudwright');
const BASE_DOMAIN = 'apps.chart.test';
const RELEASE = `cwchart-${randomBytes(3).toString('hex')}`;
const RUNTIME_REPLICAS = 2;

/** The kinds the chart renders, as the apiserver names them. */
const KINDS: Record<string, ResourceRef> = {
  ServiceAccount: { group: '', version: 'v1', plural: 'serviceaccounts', kind: 'ServiceAccount', namespaced: true },
  ConfigMap: CONFIG_MAPS,
  Secret: SECRETS,
  Namespace: NAMESPACES,
  Service: { group: '', version: 'v1', plural: 'services', kind: 'Service', namespaced: true },
  Deployment: { group: 'apps', version: 'v1', plural: 'deployments', kind: 'Deployment', namespaced: true },
  StatefulSet: { group: 'apps', version: 'v1', plural: 'statefulsets', kind: 'StatefulSet', namespaced: true },
  Pod: { group: '', version: 'v1', plural: 'pods', kind: 'Pod', namespaced: true },
  Role: { group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'roles', kind: 'Role', namespaced: true },
  RoleBinding: { group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'rolebindings', kind: 'RoleBinding', namespaced: true },
  PodDisruptionBudget: { group: 'policy', version: 'v1', plural: 'poddisruptionbudgets', kind: 'PodDisruptionBudget', namespaced: true },
  NetworkPolicy: { group: 'networking.k8s.io', version: 'v1', plural: 'networkpolicies', kind: 'NetworkPolicy', namespaced: true },
  PriorityClass: { group: 'scheduling.k8s.io', version: 'v1', plural: 'priorityclasses', kind: 'PriorityClass', namespaced: false },
  ClusterRole: { group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'clusterroles', kind: 'ClusterRole', namespaced: false },
  ClusterRoleBinding: { group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'clusterrolebindings', kind: 'ClusterRoleBinding', namespaced: false },
  ValidatingAdmissionPolicy: { group: 'admissionregistration.k8s.io', version: 'v1', plural: 'validatingadmissionpolicies', kind: 'ValidatingAdmissionPolicy', namespaced: false },
  ValidatingAdmissionPolicyBinding: {
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    plural: 'validatingadmissionpolicybindings',
    kind: 'ValidatingAdmissionPolicyBinding',
    namespaced: false,
  },
};

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { fieldRef?: { fieldPath: string }; secretKeyRef?: { name: string; key: string } };
}
interface Probe {
  httpGet?: { path: string; port: string | number };
  periodSeconds?: number;
  timeoutSeconds?: number;
  failureThreshold?: number;
}
interface SecurityContext {
  runAsNonRoot?: boolean;
  runAsUser?: number;
  runAsGroup?: number;
  fsGroup?: number;
  allowPrivilegeEscalation?: boolean;
  readOnlyRootFilesystem?: boolean;
  privileged?: boolean;
  capabilities?: { drop?: string[]; add?: string[] };
  seccompProfile?: { type: string };
}
interface Container {
  name: string;
  args?: string[];
  env?: EnvVar[];
  envFrom?: { secretRef?: { name: string; optional?: boolean } }[] | null;
  ports?: { name?: string; containerPort: number }[];
  startupProbe?: Probe;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  securityContext?: SecurityContext;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}
interface PodSpec {
  serviceAccountName: string;
  terminationGracePeriodSeconds?: number;
  securityContext?: SecurityContext;
  containers: Container[];
  volumes?: { name: string; emptyDir?: { sizeLimit?: string }; configMap?: { name: string }; persistentVolumeClaim?: { claimName: string } }[];
}
interface Workload extends KubeObject {
  spec: {
    replicas: number;
    template: { metadata?: { labels?: Record<string, string> }; spec: PodSpec };
    volumeClaimTemplates?: { metadata: { name: string } }[];
  };
}
interface PolicyPeer {
  podSelector?: { matchLabels?: Record<string, string> };
  namespaceSelector?: { matchLabels?: Record<string, string> };
  ipBlock?: { cidr: string; except?: string[] };
}
interface PolicyRule {
  from?: PolicyPeer[];
  to?: PolicyPeer[];
  ports?: { protocol?: string; port?: number }[];
}
interface NetworkPolicy extends KubeObject {
  spec: { podSelector: { matchLabels: Record<string, string> }; policyTypes: string[]; ingress?: PolicyRule[]; egress?: PolicyRule[] };
}
interface DisruptionBudget extends KubeObject {
  spec: { maxUnavailable?: number | string; minAvailable?: number | string; selector: { matchLabels: Record<string, string> } };
}

/**
 * Each workload's health routes as its server serves them: [named port, path] per probe. cw-api: api/routes/health.ts;
 * cw-operator: src/controller-runtime/http-server.ts; cw-runtime: runtime-server/status-server.ts; cw-git:
 * git-server/routes/health.ts; cw-db: database-server/admin-server.ts (liveness) and the Hrana port's /health
 * (database-server/hrana/http-server.ts), which opens only once every database is restored.
 */
const PROBES: Record<string, Partial<Record<'startupProbe' | 'livenessProbe' | 'readinessProbe', [string, string]>>> = {
  'cloudwright-api': { startupProbe: ['http', '/healthz'], livenessProbe: ['http', '/healthz'], readinessProbe: ['http', '/readyz'] },
  'cloudwright-operator': { startupProbe: ['metrics', '/healthz'], livenessProbe: ['metrics', '/healthz'], readinessProbe: ['metrics', '/readyz'] },
  'cloudwright-runtime': { startupProbe: ['status', '/healthz'], livenessProbe: ['status', '/healthz'], readinessProbe: ['status', '/readyz'] },
  'cloudwright-git': { startupProbe: ['http', '/healthz'], livenessProbe: ['http', '/healthz'], readinessProbe: ['http', '/readyz'] },
  'cloudwright-db': { startupProbe: ['admin', '/healthz'], livenessProbe: ['admin', '/healthz'], readinessProbe: ['hrana', '/health'] },
};
/** The variable each process reads the port of a named container port from (cw-git's is in its ConfigMap). */
const PORT_ENV: Record<string, Record<string, string>> = {
  'cloudwright-api': { http: 'CW_API_PORT', metrics: 'CW_API_METRICS_PORT' },
  'cloudwright-operator': { metrics: 'CW_OPERATOR_PORT' },
  'cloudwright-runtime': { http: 'CW_RUNTIME_PORT', status: 'CW_RUNTIME_STATUS_PORT' },
  'cloudwright-db': { hrana: 'CW_DB_PORT', admin: 'CW_DB_ADMIN_PORT' },
};
/** Where each process writes besides /tmp: a volume, since the root file system is read-only. */
const DATA_DIRS: Record<string, string[]> = {
  'cloudwright-api': [],
  'cloudwright-operator': [],
  'cloudwright-runtime': ['/var/lib/cw-runtime'],
  'cloudwright-git': ['/var/cache/cw-git'],
  'cloudwright-db': ['/var/lib/cw-db'],
};

const running: Service[] = [];
const temporary: string[] = [];
/** Each workload's ServiceAccount kubeconfig, as its process ran with it. */
const kubeconfigs = new Map<string, string>();
let releaseNamespace: string;
let rendered: KubeObject[];
/** The values the release is installed with. */
let releaseValues: Record<string, string | number | boolean>;
/** Every workload as a complete install renders it (cw-git and cw-db on, which the running release leaves out). */
let complete: KubeObject[];
/** Each running workload's named ports, as this machine reaches them. */
const livePorts = new Map<string, Record<string, string>>();
let member: MemberAccount;
let apiUrl: string;
let runtimePort: number;
let runtime: Service;
/** The Pod object the runtime replica runs as. */
let runtimePod: { name: string; uid: string };

afterAll(async () => {
  await Promise.all(running.map((s) => s.stop(5_000)));
  for (const object of rendered ?? []) {
    if (KINDS[object.kind ?? '']?.namespaced === false) await objectClient(conn, KINDS[object.kind ?? '']!).delete('', object.metadata?.name ?? '');
  }
  if (releaseNamespace) await objectClient(conn, NAMESPACES).delete('', releaseNamespace);
  for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
});

/** The test apiserver's URL, as the kubeconfig names it. */
function apiServerUrl(): string {
  const config = new KubeConfig();
  config.loadFromFile(kubeconfig);
  return config.getCurrentCluster()?.server ?? '';
}

/** `helm template` of the chart into `namespace` with `values` (strings as strings, the rest as YAML); rejects with helm's message. */
async function helmTemplate(namespace: string, values: Record<string, string | number | boolean>): Promise<string> {
  const sets = Object.entries(values).flatMap(([key, value]) => [typeof value === 'string' ? '--set-string' : '--set', `${key}=${value}`]);
  const { stdout } = await promisify(execFile)(toolPath('helm'), ['template', RELEASE, chartDir, '--namespace', namespace, '--kube-version', CHART_KUBE_VERSION, ...sets], { maxBuffer: 16 << 20 });
  return stdout;
}

function parseRender(yaml: string): KubeObject[] {
  return parseAllDocuments(yaml)
    .map((doc) => doc.toJS() as KubeObject | null)
    .filter((o): o is KubeObject => o !== null);
}

function find<T extends KubeObject>(kind: string, name: string, objects = rendered): T {
  const found = objects.find((o) => o.kind === kind && o.metadata?.name === name);
  if (!found) throw new Error(`the chart renders no ${kind} ${name}`);
  return found as T;
}

/** A rendered workload's pod spec. */
function podSpecOf(kind: string, name: string): PodSpec {
  return find<Workload>(kind, name).spec.template.spec;
}

/** The Deployments and StatefulSets of `objects`. */
function workloadsOf(objects: KubeObject[]): Workload[] {
  return objects.filter((o): o is Workload => o.kind === 'Deployment' || o.kind === 'StatefulSet');
}

/** A Pod as `workload`'s controller would make it (a StatefulSet's claims become volumes), for a dry run. */
function podOf(workload: Workload, namespace: string): KubeObject {
  const { spec } = workload.spec.template;
  const claims = (workload.spec.volumeClaimTemplates ?? []).map((c) => ({ name: c.metadata.name, persistentVolumeClaim: { claimName: `${c.metadata.name}-${workload.metadata?.name}-0` } }));
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `${workload.metadata?.name}-dry-run`, namespace, labels: workload.spec.template.metadata?.labels ?? {} },
    spec: { ...spec, volumes: [...(spec.volumes ?? []), ...claims] },
  } as KubeObject;
}

/** Creates `pod` as a dry run: the apiserver validates and admits it (Pod Security included) and stores nothing. */
async function dryRunPod(pod: KubeObject): Promise<void> {
  await conn.api.request('POST', resourcePath(KINDS.Pod!, pod.metadata?.namespace), { body: pod, query: { dryRun: 'All' } });
}

/** The one container of a rendered workload. */
function containerOf(kind: string, name: string): Container {
  return podSpecOf(kind, name).containers[0]!;
}

/** Server-side apply, as `kubectl apply --server-side` would. */
async function apply(object: KubeObject): Promise<void> {
  const ref = KINDS[object.kind ?? ''];
  if (!ref) throw new Error(`no resource known for kind ${object.kind}`);
  await objectClient(conn, ref).apply(object, { fieldManager: 'helm-chart-test', force: true });
}

/**
 * A kubeconfig that authenticates as `serviceAccount` of the release, with a token from the TokenRequest API;
 * bound to `pod` when given, as the kubelet's projected tokens are (the token then names the pod).
 */
async function serviceAccountKubeconfig(serviceAccount: string, pod?: { name: string; uid: string }): Promise<string> {
  const boundObjectRef = pod ? { boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: pod.name, uid: pod.uid } } : {};
  const request = { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600, ...boundObjectRef } };
  const path = `/api/v1/namespaces/${releaseNamespace}/serviceaccounts/${serviceAccount}/token`;
  const { status } = await conn.api.request<{ status: { token: string } }>('POST', path, { body: request });
  const admin = new KubeConfig();
  admin.loadFromFile(kubeconfig);
  const cluster = admin.getCurrentCluster()!;
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [cluster],
    users: [{ name: serviceAccount, token: status.token }],
    contexts: [{ name: serviceAccount, cluster: cluster.name, user: serviceAccount }],
    currentContext: serviceAccount,
  });
  const file = join(stateDir, `chart-${serviceAccount}-${releaseNamespace}.kubeconfig`);
  writeFileSync(file, config.exportConfig(), { mode: 0o600 });
  return file;
}

/** Binds `user` the chart's tenant role in `namespace`, as an administrator does (docs/security-model.md). */
async function bindTenant(user: string, namespace: string): Promise<void> {
  await apply({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: user, namespace },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `${RELEASE}-tenant` },
    subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: user }],
  } as KubeObject);
}

/** The test's admin connection acting as `user` (impersonation: the user's own RBAC and no admin group apply). */
function impersonating(user: string): KubeConnection {
  const admin = new KubeConfig();
  admin.loadFromFile(kubeconfig);
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: admin.clusters,
    users: admin.users.map((u) => ({ ...u, impersonateUser: user })),
    contexts: admin.contexts,
    currentContext: admin.currentContext,
  });
  return connectionFor(config);
}

/** The environment the kubelet would give `container` of pod `pod`: values, field refs, Secret keys and `envFrom` Secrets. */
async function podEnv(container: Container, pod: { name: string; uid: string }, serviceAccountName: string): Promise<Record<string, string>> {
  const secrets = objectClient<KubeObject & { data?: Record<string, string> }>(conn, SECRETS);
  const env: Record<string, string> = {};
  for (const from of container.envFrom ?? []) {
    if (!from.secretRef) continue;
    const secret = await secrets.get(releaseNamespace, from.secretRef.name);
    if (!secret && !from.secretRef.optional) throw new Error(`Secret ${from.secretRef.name} is missing`);
    for (const [key, value] of Object.entries(secret?.data ?? {})) env[key] = Buffer.from(value, 'base64').toString();
  }
  for (const variable of container.env ?? []) {
    const field = variable.valueFrom?.fieldRef?.fieldPath;
    const secretKey = variable.valueFrom?.secretKeyRef;
    if (variable.value !== undefined) env[variable.name] = variable.value;
    else if (secretKey) {
      const value = (await secrets.get(releaseNamespace, secretKey.name))?.data?.[secretKey.key];
      if (value === undefined) throw new Error(`${container.name}: Secret ${secretKey.name} has no key ${secretKey.key}`);
      env[variable.name] = Buffer.from(value, 'base64').toString();
    } else if (field === 'metadata.namespace') env[variable.name] = releaseNamespace;
    else if (field === 'metadata.name') env[variable.name] = pod.name;
    else if (field === 'metadata.uid') env[variable.name] = pod.uid;
    else if (field === 'spec.serviceAccountName') env[variable.name] = serviceAccountName;
    // The "pod" is a process on this machine.
    else if (field === 'status.podIP') env[variable.name] = '127.0.0.1';
    else throw new Error(`${container.name}: no way to resolve ${variable.name}`);
  }
  return env;
}

/**
 * Runs a rendered workload's container as a child process with `env` on top of its pod environment, as the
 * ServiceAccount its pod spec names.
 */
async function runPod(kind: string, name: string, env: Record<string, string>, pod = { name: `${name}-0`, uid: '' }): Promise<Service> {
  const container = containerOf(kind, name);
  const serviceAccountKubeconfigFile = await serviceAccountKubeconfig(podSpecOf(kind, name).serviceAccountName, pod.uid ? pod : undefined);
  kubeconfigs.set(name, serviceAccountKubeconfigFile);
  const binary = container.args?.[0] ?? '';
  const service = startService({
    name: `chart-${binary}`,
    command: toolPath('node'),
    args: [join(repoRoot, `bin/${binary}.ts`)],
    logPath: join(stateDir, `chart-${binary}-${releaseNamespace}.log`),
    // Only PATH from this process: nothing of the test's own environment leaks into the pod's.
    env: { PATH: process.env.PATH ?? '', ...(await podEnv(container, pod, podSpecOf(kind, name).serviceAccountName)), KUBECONFIG: serviceAccountKubeconfigFile, ...env },
  });
  running.push(service);
  return service;
}

beforeAll(async () => {
  releaseNamespace = await createTestNamespace(conn, 'chart');
  // Pods here must pass the restricted Pod Security Standard: the runtime's below, and the dry runs.
  await objectClient(conn, NAMESPACES).patch('', releaseNamespace, {
    metadata: { labels: { 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/enforce-version': 'latest' } },
  });
  const s3 = inject('s3');
  releaseValues = {
    'objectStore.endpoint': s3.endpoint ?? '',
    'objectStore.bucket': inject('bucket'),
    'objectStore.region': s3.region,
    'objectStore.credentialsSecret': 'chart-s3',
    'runtime.baseDomain': BASE_DOMAIN,
    'runtime.replicas': RUNTIME_REPLICAS,
    'runtime.publicScheme': 'http',
    'dns.route53.endpoint': inject('route53Endpoint'),
    'dns.route53.credentialsSecret': 'chart-route53',
    // Lookups that give up at once (the discard port): nothing here should reach the internet.
    'dns.resolver': '127.0.0.1:9',
    'dns.timeoutMs': 300,
    'dns.ownerId': `chart-${releaseNamespace}`,
    'api.publicUrl': 'https://api.chart.test',
    // The API runs with it: a value the chart passes wrongly would stop it at start.
    // (`--set` splits at commas: a list given on the command line escapes them.)
    'api.trustProxy': '127.0.0.1\\,10.0.0.0/8',
    'git.enabled': false,
    'database.enabled': false,
    // Where the runtime's pods reach the apiserver (helm template cannot look it up): this test's.
    'networkPolicy.runtime.apiServer[0].cidr': '127.0.0.1/32',
    'networkPolicy.runtime.apiServer[0].port': Number(new URL(apiServerUrl()).port),
  };
  rendered = parseRender(await helmTemplate(releaseNamespace, releaseValues));
  complete = parseRender(await helmTemplate(releaseNamespace, { ...releaseValues, 'git.enabled': true, 'database.enabled': true, 'database.publicUrl': 'https://db.chart.test' }));
  // The Secrets the chart refers to and leaves to the admin.
  await apply({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'chart-s3', namespace: releaseNamespace },
    stringData: { CW_S3_ACCESS_KEY_ID: s3.credentials?.accessKeyId ?? '', CW_S3_SECRET_ACCESS_KEY: s3.credentials?.secretAccessKey ?? '' },
  } as KubeObject);
  await apply({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'chart-route53', namespace: releaseNamespace },
    stringData: { CW_ROUTE53_ACCESS_KEY_ID: 'AKIDCHARTTEST', CW_ROUTE53_SECRET_ACCESS_KEY: 'chart-test-secret' },
  } as KubeObject);
  for (const object of rendered) await apply(object);

  member = await createMemberAccount(kubeconfig, 'chart');
  await createProjectNamespace(kubeconfig, member.project);

  runtimePort = await freePort();
  const runtimeStatusPort = await freePort();
  const runtimeStatusUrl = `http://127.0.0.1:${runtimeStatusPort}`;
  const dataDir = mkdtempSync('/tmp/cw-chart-');
  temporary.push(dataDir);
  // The pod a ReplicaSet of the Deployment would create (the apiserver takes it; nothing schedules it).
  const template = find<Workload>('Deployment', 'cloudwright-runtime').spec.template;
  const pod = await objectClient<KubeObject>(conn, KINDS.Pod!).create({
    metadata: { name: 'cloudwright-runtime-7c9d5-x2x4q', namespace: releaseNamespace, labels: template.metadata?.labels ?? {} },
    spec: template.spec,
  } as KubeObject);
  runtimePod = { name: pod.metadata?.name ?? '', uid: pod.metadata?.uid ?? '' };
  runtime = await runPod(
    'Deployment',
    'cloudwright-runtime',
    {
      CW_RUNTIME_HOST: '127.0.0.1',
      CW_RUNTIME_PORT: String(runtimePort),
      CW_RUNTIME_STATUS_HOST: '127.0.0.1',
      CW_RUNTIME_STATUS_PORT: String(runtimeStatusPort),
      CW_RUNTIME_DATA_DIR: dataDir,
    },
    runtimePod,
  );
  const apiPort = await freePort();
  apiUrl = `http://127.0.0.1:${apiPort}`;
  // Neither the API nor the operator is told where the runtime is: they find its RuntimeReplica.
  const api = await runPod('Deployment', 'cloudwright-api', {
    CW_API_HOST: '127.0.0.1',
    CW_API_PORT: String(apiPort),
  });
  const operatorPort = await freePort();
  const operator = await runPod('Deployment', 'cloudwright-operator', {
    CW_OPERATOR_PORT: String(operatorPort),
    // Tests share the control plane: this operator keeps to the member's project.
    CW_WATCH_NAMESPACE: member.project,
  });
  livePorts.set('cloudwright-runtime', { http: `http://127.0.0.1:${runtimePort}`, status: runtimeStatusUrl });
  livePorts.set('cloudwright-api', { http: apiUrl });
  livePorts.set('cloudwright-operator', { metrics: `http://127.0.0.1:${operatorPort}` });
  await Promise.all([
    waitForHttp(runtime, `${runtimeStatusUrl}/readyz`, 60_000),
    waitForHttp(api, `${apiUrl}/readyz`, 60_000),
    waitForHttp(operator, `http://127.0.0.1:${operatorPort}/healthz`, 60_000),
  ]);
}, 180_000);

async function callApi(method: string, path: string, body?: Uint8Array | object): Promise<{ status: number; body: Record<string, unknown> }> {
  const raw = body instanceof Uint8Array;
  const res = await fetch(`${apiUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${member.token}`,
      ...(body === undefined ? {} : { 'content-type': raw ? 'application/octet-stream' : 'application/json' }),
    },
    ...(body === undefined ? {} : { body: raw ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

describe('the Helm chart', () => {
  it('renders objects the kube-apiserver accepts, each of them stored', async () => {
    expect(rendered.map((o) => o.kind)).toEqual(expect.arrayContaining(['Deployment', 'Service', 'ClusterRole', 'Role', 'Namespace', 'PodDisruptionBudget']));
    expect(
      rendered
        .filter((o) => o.kind === 'Deployment')
        .map((o) => o.metadata?.name)
        .sort(),
    ).toEqual(['cloudwright-api', 'cloudwright-operator', 'cloudwright-runtime']);
    // Cluster-scoped names carry the release's name.
    for (const object of rendered.filter((o) => o.kind?.startsWith('Cluster'))) expect(object.metadata?.name).toMatch(new RegExp(`^${RELEASE}-`));
    for (const object of rendered) {
      const stored = await objectClient(conn, KINDS[object.kind ?? '']!).get(object.metadata?.namespace ?? '', object.metadata?.name ?? '');
      expect(stored, `${object.kind} ${object.metadata?.name}`).toBeDefined();
    }
  });

  it('runs cw-runtime as a scalable Deployment whose pods report themselves: no runtime address anywhere', () => {
    const runtime = find<Workload>('Deployment', 'cloudwright-runtime');
    expect(runtime.spec.replicas).toBe(RUNTIME_REPLICAS);
    const env = containerOf('Deployment', 'cloudwright-runtime').env ?? [];
    expect(Object.fromEntries(env.filter((e) => e.valueFrom).map((e) => [e.name, e.valueFrom?.fieldRef?.fieldPath]))).toMatchObject({
      POD_NAME: 'metadata.name',
      POD_UID: 'metadata.uid',
      POD_NAMESPACE: 'metadata.namespace',
    });
    // The bounds on apps' code (the pod below runs with them); the shard count defaults to the node's cores.
    expect(Object.fromEntries(env.filter((e) => e.value !== undefined).map((e) => [e.name, e.value]))).toMatchObject({
      CW_RUNTIME_CPU_LIMIT: '500ms',
      CW_RUNTIME_STARTUP_CPU_LIMIT: '1s',
      CW_RUNTIME_ISOLATE_HEAP_MB: '128',
      CW_RUNTIME_SHARD_MEMORY_MB: '1536',
      CW_RUNTIME_QUARANTINE: '60s',
      CW_RUNTIME_QUARANTINE_MAX: '1h',
      // Served on demand, its LRU within the default share of the data volume.
      CW_RUNTIME_ON_DEMAND: 'true',
      CW_RUNTIME_PREPARED_APPS: '1000',
    });
    expect(env.map((e) => e.name)).not.toContain('CW_RUNTIME_SHARDS');
    expect(env.map((e) => e.name)).not.toContain('CW_RUNTIME_BUILD_CACHE_SIZE');
    for (const name of ['cloudwright-api', 'cloudwright-operator', 'cloudwright-runtime']) {
      expect(
        containerOf('Deployment', name).env?.map((e) => e.name),
        name,
      ).not.toContain('CW_RUNTIME_STATUS_URL');
    }
    expect(rendered.some((o) => o.kind === 'Service' && o.metadata?.name === 'cloudwright-runtime-status')).toBe(false);
  });

  it('gives the DNS provider and its credentials to the operator only: the API gets the runtime target', () => {
    const api = containerOf('Deployment', 'cloudwright-api');
    const operator = containerOf('Deployment', 'cloudwright-operator');
    const names = (c: typeof api) => (c.env ?? []).map((e) => e.name);
    expect(names(api)).toEqual(expect.arrayContaining(['CW_RUNTIME_BASE_DOMAIN']));
    expect(names(api).filter((n) => n.startsWith('CW_ROUTE53_') || n.startsWith('CW_DNS_'))).toEqual([]);
    expect(JSON.stringify(api.envFrom ?? [])).not.toContain('chart-route53');
    expect(names(operator)).toEqual(expect.arrayContaining(['CW_DNS_PROVIDER', 'CW_ROUTE53_REGION', 'CW_DNS_PENDING_RECHECK_SECONDS']));
    expect(JSON.stringify(operator.envFrom ?? [])).toContain('chart-route53');
  });

  it.each<[string, string, string, string, string, boolean]>([
    // The runtime writes its own report and lease in the release's namespace, and nothing else.
    ['runtime', 'patch', 'cloudwright.dev', 'runtimereplicas', 'release', true],
    ['runtime', 'create', 'cloudwright.dev', 'runtimereplicas', 'release', true],
    ['runtime', 'patch', 'cloudwright.dev', 'runtimereplicareports', 'release', true],
    ['runtime', 'delete', 'cloudwright.dev', 'runtimereplicareports', 'release', true],
    ['runtime', 'list', 'cloudwright.dev', 'runtimereplicareports', 'release', false],
    ['runtime', 'patch', 'cloudwright.dev', 'runtimereplicareports', 'other', false],
    ['runtime', 'delete', 'coordination.k8s.io', 'leases', 'release', true],
    ['runtime', 'create', 'coordination.k8s.io', 'leases', 'other', false],
    ['runtime', 'patch', 'cloudwright.dev', 'runtimereplicas', 'other', false],
    ['runtime', 'list', 'cloudwright.dev', 'runtimereplicas', 'release', false],
    ['runtime', 'patch', 'cloudwright.dev', 'runtimeapps', 'other', false],
    ['runtime', 'watch', 'cloudwright.dev', 'apphostnames', 'other', true],
    ['runtime', 'patch', 'cloudwright.dev', 'apphostnames', 'other', false],
    ['runtime', 'watch', 'cloudwright.dev', 'projectdomains', 'other', true],
    ['runtime', 'get', '', 'secrets', 'release', false],
    // The operator and the API read them; the operator removes an expired replica's.
    ['operator', 'watch', 'cloudwright.dev', 'runtimereplicas', 'release', true],
    ['operator', 'watch', 'cloudwright.dev', 'runtimereplicareports', 'release', true],
    ['operator', 'delete', 'cloudwright.dev', 'runtimereplicareports', 'release', true],
    ['operator', 'watch', 'coordination.k8s.io', 'leases', 'release', true],
    ['operator', 'delete', 'coordination.k8s.io', 'leases', 'release', true],
    ['api', 'watch', 'cloudwright.dev', 'runtimereplicas', 'release', true],
    ['api', 'list', 'coordination.k8s.io', 'leases', 'release', true],
    ['api', 'delete', 'coordination.k8s.io', 'leases', 'release', false],
    ['api', 'list', 'coordination.k8s.io', 'leases', 'other', false],
    // The API writes intent, never a status or a name claim: each has one writer, a controller.
    ['api', 'create', 'cloudwright.dev', 'projectdomains', 'other', true],
    // Git tokens: the API writes them (and revokes them: a patch), in the project's namespace.
    ['api', 'create', 'cloudwright.dev', 'gittokens', 'other', true],
    ['api', 'patch', 'cloudwright.dev', 'gittokens', 'other', true],
    ['api', 'update', 'cloudwright.dev', 'projectdomains/status', 'other', false],
    ['api', 'update', 'cloudwright.dev', 'apphostnames/status', 'other', false],
    ['api', 'create', 'cloudwright.dev', 'domainclaims', 'other', false],
    ['operator', 'update', 'cloudwright.dev', 'projectdomains/status', 'other', true],
    ['operator', 'create', 'cloudwright.dev', 'hostnameclaims', 'other', true],
    // No Secret anywhere but in project namespaces, through the binding the Project controller writes there (none
    // here yet: this operator runs no Project controller; the operator's scope test below binds it).
    ['operator', 'get', '', 'secrets', 'release', false],
    ['operator', 'list', '', 'secrets', 'cluster', false],
    ['operator', 'watch', '', 'secrets', 'cluster', false],
    ['operator', 'create', '', 'secrets', 'release', false],
    // Project namespaces are created, never changed or deleted (the garbage collector deletes them with their Project).
    ['operator', 'create', '', 'namespaces', 'cluster', true],
    ['operator', 'delete', '', 'namespaces', 'cluster', false],
    ['operator', 'patch', '', 'namespaces', 'cluster', false],
    ['operator', 'update', '', 'namespaces', 'cluster', false],
    // The API's only Secrets are device sign-ins, in a namespace of their own.
    ['api', 'get', '', 'secrets', 'release', false],
    ['api', 'list', '', 'secrets', 'other', false],
    ['api', 'list', '', 'secrets', 'cluster', false],
    ['runtime', 'list', '', 'secrets', 'cluster', false],
    // The runtime reads Databases (no secret in them) everywhere, and Secrets only through its project binding.
    ['runtime', 'watch', 'cloudwright.dev', 'databases', 'cluster', true],
    ['runtime', 'get', '', 'secrets', 'release', false],
    ['runtime', 'get', '', 'secrets', 'other', false],
    // Builds: the operator runs their Jobs and reads their pods and logs in the builds namespace, and there only.
    ['operator', 'create', 'batch', 'jobs', 'builds', true],
    ['operator', 'delete', 'batch', 'jobs', 'builds', true],
    ['operator', 'watch', 'batch', 'jobs', 'builds', true],
    ['operator', 'watch', '', 'pods', 'builds', true],
    ['operator', 'get', '', 'pods/log', 'builds', true],
    ['operator', 'create', '', 'pods', 'builds', false],
    ['operator', 'get', '', 'secrets', 'builds', false],
    ['operator', 'create', 'batch', 'jobs', 'release', false],
    ['operator', 'create', 'batch', 'jobs', 'other', false],
    ['operator', 'get', '', 'pods/log', 'other', false],
  ])('ServiceAccount %s may %s %s/%s in the %s namespace: %s', async (component, verb, group, resource, where, allowed) => {
    const namespace = where === 'release' ? releaseNamespace : where === 'other' ? member.project : where === 'builds' ? `${releaseNamespace}-builds` : undefined;
    expect(await mayDo(conn, serviceAccount(releaseNamespace, `cloudwright-${component}`), { verb, group, resource, ...(namespace ? { namespace } : {}) })).toBe(allowed);
  });

  it("confines the operator's writes to project namespaces: its Secret binding, quotas and the namespaces it creates (admission policy)", async () => {
    const asOperator = loadKubeConnection(kubeconfigs.get('cloudwright-operator'));
    const operator = serviceAccount(releaseNamespace, 'cloudwright-operator');
    const access = { clusterRole: `${RELEASE}-operator-project`, serviceAccount: { namespace: releaseNamespace, name: 'cloudwright-operator' } };
    expect(containerOf('Deployment', 'cloudwright-operator').env?.find((e) => e.name === 'CW_PROJECT_ROLE')?.value).toBe(access.clusterRole);
    const bindings = objectClient<RoleBinding>(asOperator, ROLE_BINDINGS);
    const APPLY = { fieldManager: 'cloudwright-operator', force: true };
    /** A write as the operator, stored nowhere (the apiserver admits a dry run as it would the write). */
    const dryRun = (ref: ResourceRef, object: KubeObject) => asOperator.api.request('POST', resourcePath(ref, object.metadata?.namespace), { body: object, query: { dryRun: 'All' } });

    // In the member's project namespace (labelled as the Project controller labels it), the binding is the
    // operator's to write, and it then reads that namespace's Secrets, and no other namespace's.
    await bindings.apply(operatorRoleBinding(member.project, access), APPLY);
    // The apiserver's authorizer sees a new binding through its own cache, a moment after the write.
    await eventually(
      'the operator binding in force',
      () => mayDo(conn, operator, { verb: 'get', group: '', resource: 'secrets', namespace: member.project }),
      (ok) => ok,
    );
    expect(await mayDo(conn, operator, { verb: 'list', group: '', resource: 'secrets', namespace: member.project })).toBe(false);
    expect(await mayDo(conn, operator, { verb: 'get', group: '', resource: 'secrets', namespace: releaseNamespace })).toBe(false);
    // The same binding in the release namespace would reach cw-db's admin token and the cloud credentials.
    await expect(bindings.apply(operatorRoleBinding(releaseNamespace, access), APPLY)).rejects.toThrow(/only in project namespaces/);
    // Another subject, or another name, in a project namespace: refused too.
    const forSomeoneElse = { ...operatorRoleBinding(member.project, access), subjects: [{ kind: 'User', name: 'mallory' }] };
    await expect(bindings.apply(forSomeoneElse, APPLY)).rejects.toThrow(/binds only its project role to itself/);
    // Nor may it remove an administrator's binding there (a tenant's, say).
    const teams = { ...operatorRoleBinding(member.project, access), metadata: { name: 'team', namespace: member.project } };
    await apply({ ...teams, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' } } as KubeObject);
    await expect(asOperator.api.request('DELETE', resourcePath(ROLE_BINDINGS, member.project, 'team'), { query: { dryRun: 'All' } })).rejects.toThrow(/binds only its project role to itself/);
    // The runtime's binding: its project role, to the runtime, under its own name; it then gets (never lists) that
    // namespace's Secrets, and none of the release namespace.
    const runtime = serviceAccount(releaseNamespace, 'cloudwright-runtime');
    const runtimeAccess = { ...access, runtime: { clusterRole: `${RELEASE}-runtime-project`, serviceAccount: { namespace: releaseNamespace, name: 'cloudwright-runtime' } } };
    expect(containerOf('Deployment', 'cloudwright-operator').env?.find((e) => e.name === 'CW_RUNTIME_PROJECT_ROLE')?.value).toBe(runtimeAccess.runtime.clusterRole);
    const [, runtimeBinding] = projectRoleBindings(member.project, runtimeAccess);
    await bindings.apply(runtimeBinding!, APPLY);
    // The apiserver's authorizer sees a new binding through its own cache, a moment after the write.
    await eventually(
      'the runtime binding in force',
      () => mayDo(conn, runtime, { verb: 'get', group: '', resource: 'secrets', namespace: member.project }),
      (ok) => ok,
    );
    expect(await mayDo(conn, runtime, { verb: 'list', group: '', resource: 'secrets', namespace: member.project })).toBe(false);
    expect(await mayDo(conn, runtime, { verb: 'watch', group: '', resource: 'secrets', namespace: member.project })).toBe(false);
    expect(await mayDo(conn, runtime, { verb: 'get', group: '', resource: 'secrets', namespace: releaseNamespace })).toBe(false);
    // The runtime's role bound to the operator, or the operator's role under the runtime's binding: refused.
    await expect(dryRun(ROLE_BINDINGS, { ...runtimeBinding!, subjects: operatorRoleBinding(member.project, access).subjects } as KubeObject)).rejects.toThrow(
      /the runtime's project role to the runtime/,
    );
    await expect(dryRun(ROLE_BINDINGS, { ...runtimeBinding!, roleRef: operatorRoleBinding(member.project, access).roleRef } as KubeObject)).rejects.toThrow(
      /the runtime's project role to the runtime/,
    );
    // (A create: the chart's own binding of that name in the release namespace names another role, which an apply
    // would fail on before admission.)
    await expect(dryRun(ROLE_BINDINGS, { ...runtimeBinding!, metadata: { ...runtimeBinding!.metadata, namespace: releaseNamespace } } as KubeObject)).rejects.toThrow(/only in project namespaces/);
    // A role it may not bind (RBAC's own escalation check): refused whatever the namespace.
    const edit = { ...operatorRoleBinding(member.project, access), roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' } };
    await expect(dryRun(ROLE_BINDINGS, edit)).rejects.toMatchObject({ code: 403 });

    // Quotas: the project quota in a project namespace, nothing else.
    await dryRun(RESOURCE_QUOTAS, projectResourceQuota(member.project));
    await expect(dryRun(RESOURCE_QUOTAS, projectResourceQuota(releaseNamespace))).rejects.toThrow(/only in project namespaces/);
    const another = projectResourceQuota(member.project);
    another.metadata = { ...another.metadata, name: 'pods-zero' };
    await expect(dryRun(RESOURCE_QUOTAS, another)).rejects.toThrow(/only the project quota/);

    // Namespaces: a project's, labelled and owned by its Project, and nothing else.
    const project = await objectClient<Project>(conn, PROJECTS).get('', member.project);
    const fresh = projectNamespace({ ...project!, metadata: { ...project!.metadata, name: `${member.project}-x` } });
    await dryRun(NAMESPACES, fresh);
    await expect(dryRun(NAMESPACES, { metadata: { name: `${member.project}-y` } })).rejects.toThrow(/creates only project namespaces/);
    await expect(dryRun(NAMESPACES, { metadata: { name: `${member.project}-z`, labels: { [PROJECT_LABEL]: `${member.project}-z` } } })).rejects.toThrow(/creates only project namespaces/);
    await expect(objectClient(asOperator, NAMESPACES).delete('', member.project)).rejects.toMatchObject({ code: 403 });
    expect(await mayDo(conn, operator, { verb: 'bind', group: 'rbac.authorization.k8s.io', resource: 'clusterroles', name: access.clusterRole })).toBe(true);
    expect(await mayDo(conn, operator, { verb: 'bind', group: 'rbac.authorization.k8s.io', resource: 'clusterroles', name: 'cluster-admin' })).toBe(false);
  });

  it("ships a tenant ClusterRole: a project member's kubectl rights in the project's namespace, the specs and never a status or a claim", async () => {
    const name = `${RELEASE}-tenant`;
    const binding = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'alice', namespace: member.project },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' }],
    };
    await apply(binding as KubeObject);
    const alice = person('alice');
    const may = (verb: string, group: string, resource: string, namespace?: string) => mayDo(conn, alice, { verb, group, resource, ...(namespace ? { namespace } : {}) });
    // The apiserver's authorizer sees a new binding through its own cache, a moment after the write.
    await eventually(
      'the tenant binding in force',
      () => may('get', 'cloudwright.dev', 'runtimeapps', member.project),
      (ok) => ok,
    );
    for (const kind of ['runtimeapps', 'builds', 'apphostnames', 'projectdomains', 'dnsrecords', 'databases', 'repositories']) {
      for (const verb of ['get', 'list', 'watch', 'create', 'patch', 'delete']) expect(await may(verb, 'cloudwright.dev', kind, member.project), `${verb} ${kind}`).toBe(true);
      expect(await may('patch', 'cloudwright.dev', `${kind}/status`, member.project), `${kind}/status`).toBe(false);
      expect(await may('create', 'cloudwright.dev', kind, releaseNamespace), `${kind} elsewhere`).toBe(false);
    }
    for (const [verb, group, resource, allowed] of [
      ['create', 'cloudwright.dev', 'runtimereplicas', false],
      ['create', 'cloudwright.dev', 'repositorywebhooks', false],
      ['get', '', 'secrets', true],
      ['delete', '', 'secrets', true],
      ['create', '', 'secrets', false],
      ['list', '', 'resourcequotas', true],
      ['patch', '', 'resourcequotas', false],
      ['create', 'rbac.authorization.k8s.io', 'rolebindings', false],
      ['create', '', 'pods', false],
    ] as const) {
      expect(await may(verb, group, resource, member.project), `${verb} ${resource}`).toBe(allowed);
    }
    // Nothing of the builds namespace, where every project's builds run: no pod, log or Job to read or change.
    for (const [verb, resource] of [
      ['list', 'pods'],
      ['get', 'pods/log'],
      ['create', 'pods/exec'],
      ['delete', 'pods'],
      ['list', 'jobs'],
      ['delete', 'jobs'],
    ] as const) {
      expect(await may(verb, resource === 'jobs' ? 'batch' : '', resource, `${releaseNamespace}-builds`), `${verb} ${resource} of builds`).toBe(false);
    }
    // Nothing cluster-scoped: no claim, no project, no token, no namespace.
    for (const resource of ['domainclaims', 'hostnameclaims', 'projects', 'accesstokens', 'users']) expect(await may('create', 'cloudwright.dev', resource), resource).toBe(false);
    expect(await may('create', '', 'namespaces')).toBe(false);
  });

  it("lets a tenant delete Cloudwright's objects but not strip the finalizers the operator's cleanup needs (admission policy)", { timeout: 60_000 }, async () => {
    await bindTenant('alice', member.project);
    const asAlice = objectClient<RuntimeApp>(impersonating('alice'), RUNTIME_APPS);
    const apps = objectClient<RuntimeApp>(conn, RUNTIME_APPS);
    await asAlice.create({ metadata: { name: 'held', namespace: member.project }, spec: { displayName: 'held' } });
    // The chart's operator puts the artifact finalizer on it.
    await eventually(
      'the finalizer on the app',
      () => apps.get(member.project, 'held'),
      (app) => app?.metadata?.finalizers?.includes(RUNTIME_APP_FINALIZER) === true,
    );
    await expect(asAlice.patch(member.project, 'held', { metadata: { finalizers: null } })).rejects.toThrow(/only cw-operator removes Cloudwright's finalizers/);
    await expect(asAlice.patch(member.project, 'held', { metadata: { finalizers: ['example.com/mine'] } })).rejects.toThrow(/only cw-operator removes/);
    // Everything else stays hers to change, and to delete: the operator then lets the app go.
    await asAlice.patch(member.project, 'held', { metadata: { labels: { team: 'web' } } });
    await asAlice.delete(member.project, 'held');
    await eventually(
      'the app gone, its finalizer removed by the operator',
      () => apps.get(member.project, 'held'),
      (app) => app === undefined,
    );
    // A source build's finalizer frees its build slot (a stripped one held a slot every project shares); a
    // certificate's revokes it and deletes its sealed key.
    const held = [
      {
        ref: SOURCE_BUILDS,
        finalizer: SOURCE_BUILD_FINALIZER,
        spec: { app: 'held', source: 'held', context: 'production', repository: `${member.project}/site`, branch: 'main', commit: 'a'.repeat(40) },
      },
      { ref: TLS_CERTIFICATES, finalizer: TLS_CERTIFICATE_FINALIZER, spec: { dnsNames: [`held.${member.project}.apps.example.test`] } },
    ];
    for (const { ref, finalizer, spec } of held) {
      await objectClient(conn, ref).create({ metadata: { name: 'held', namespace: member.project, finalizers: [finalizer] }, spec } as KubeObject);
      await expect(objectClient(impersonating('alice'), ref).patch(member.project, 'held', { metadata: { finalizers: null } }), ref.plural).rejects.toThrow(/only cw-operator removes/);
      // As a cluster admin may, when no operator runs.
      await objectClient(conn, ref).patch(member.project, 'held', { metadata: { finalizers: null } });
      await objectClient(conn, ref).delete(member.project, 'held');
    }
  });

  it("bounds the labels and annotations a tenant writes on Cloudwright's objects (admission policy)", { timeout: 60_000 }, async () => {
    await bindTenant('alice', member.project);
    const records = objectClient<KubeObject>(impersonating('alice'), DNS_RECORDS);
    const record = (name: string, note: string) =>
      ({ metadata: { name, namespace: member.project, annotations: { note } }, spec: { domainRef: { name: 'bounded.example' }, name: 'www', type: 'A', values: ['192.0.2.1'] } }) as KubeObject;
    // A few kilobytes, as GitOps tools write: accepted.
    await records.create(record('small', 'x'.repeat(4000)));
    // 200 KB on each of a project's records would be gigabytes of etcd: refused, on create and on a later patch.
    await expect(records.create(record('large', 'x'.repeat(200_000)))).rejects.toThrow(/labels and annotations may take at most 8192 bytes together .* on this DnsRecord; this one has 2000\d\d/);
    await expect(records.patch(member.project, 'small', { metadata: { annotations: { more: 'y'.repeat(9000) } } })).rejects.toThrow(/at most 8192 bytes/);
    // Bytes, not characters: 3,000 three-byte characters are 9,000 bytes.
    await expect(records.patch(member.project, 'small', { metadata: { annotations: { more: '€'.repeat(3000) } } })).rejects.toThrow(/at most 8192 bytes/);
    await expect(records.patch(member.project, 'small', { metadata: { finalizers: Array.from({ length: 17 }, (_, i) => `example.com/f${i}`) } })).rejects.toThrow(/at most 16 finalizers/);
    // kubectl's client-side apply copies the object into an annotation: counted apart, as large as the spec may be on
    // a kind whose spec is large (a RuntimeApp's environment), 16 KiB on one whose spec is small (an AppHostname).
    const lastApplied = 'kubectl.kubernetes.io/last-applied-configuration';
    const apps = objectClient<RuntimeApp>(impersonating('alice'), RUNTIME_APPS);
    await apps.create({ metadata: { name: 'annotated', namespace: member.project, annotations: { [lastApplied]: 'z'.repeat(100_000) } }, spec: { displayName: 'annotated' } });
    const hostnames = objectClient<KubeObject>(impersonating('alice'), APP_HOSTNAMES);
    // An AppHostname is named after its host name.
    const hostname = (host: string, size: number) =>
      ({ metadata: { name: host, namespace: member.project, annotations: { [lastApplied]: 'z'.repeat(size) } }, spec: { hostname: host, appRef: { name: 'annotated' } } }) as KubeObject;
    await hostnames.create(hostname('applied.bounded.example', 10_000));
    await expect(hostnames.create(hostname('too-applied.bounded.example', 20_000))).rejects.toThrow(/last-applied-configuration may take at most 16384 bytes on this AppHostname/);
    // The platform's own writes (cw-api's ServiceAccount, which writes what the API checked) are not bounded by it.
    const asApi = loadKubeConnection(await serviceAccountKubeconfig('cloudwright-api'));
    await objectClient<KubeObject>(asApi, DNS_RECORDS).patch(member.project, 'small', { metadata: { annotations: { more: 'y'.repeat(9000) } } });
    await hostnames.delete(member.project, 'applied.bounded.example');
    await records.delete(member.project, 'small');
    await apps.delete(member.project, 'annotated');
  });

  it("keeps the API's created-by annotations the API's: a tenant cannot count its objects against someone else (admission policy)", { timeout: 60_000 }, async () => {
    await bindTenant('alice', member.project);
    const byUser = 'cloudwright.dev/created-by-user';
    const records = objectClient<KubeObject>(impersonating('alice'), DNS_RECORDS);
    const record = (name: string, annotations: Record<string, string>) =>
      ({ metadata: { name, namespace: member.project, annotations }, spec: { domainRef: { name: 'attributed.example' }, name: 'www', type: 'A', values: ['192.0.2.1'] } }) as KubeObject;
    const refusal = /created-by-\* annotations are written by the platform's API only/;
    await expect(records.create(record('framed', { [byUser]: 'u-someone-else' }))).rejects.toThrow(refusal);
    await records.create(record('attributed', {}));
    await expect(records.patch(member.project, 'attributed', { metadata: { annotations: { [byUser]: 'u-someone-else' } } })).rejects.toThrow(refusal);
    // Written by the API (its ServiceAccount), they are kept through a tenant's edits, and may be dropped, not changed.
    const asApi = loadKubeConnection(await serviceAccountKubeconfig('cloudwright-api'));
    await objectClient<KubeObject>(asApi, DNS_RECORDS).patch(member.project, 'attributed', { metadata: { annotations: { [byUser]: 'u-alice' } } });
    await records.patch(member.project, 'attributed', { metadata: { labels: { team: 'web' } } });
    await expect(records.patch(member.project, 'attributed', { metadata: { annotations: { [byUser]: 'u-someone-else' } } })).rejects.toThrow(refusal);
    await records.patch(member.project, 'attributed', { metadata: { annotations: { [byUser]: null } } });
    await records.delete(member.project, 'attributed');
  });

  it('lets a tenant name only itself as who deployed, for the deploy history (admission policy)', { timeout: 60_000 }, async () => {
    await bindTenant('alice', member.project);
    const byKey = 'cloudwright.dev/deployed-by';
    const apps = objectClient<RuntimeApp>(impersonating('alice'), RUNTIME_APPS);
    const refusal = /deployed-by says who deployed .* may write only kubectl:alice/;
    const app = (name: string, by: string) => ({ metadata: { name, namespace: member.project, annotations: { [byKey]: by } }, spec: { displayName: name } });
    await expect(apps.create(app('framed', 'user:someone-else'))).rejects.toThrow(refusal);
    await expect(apps.create(app('pushed', 'push:acme/site@0123456789abcdef'))).rejects.toThrow(refusal);
    await apps.create(app('honest', 'kubectl:alice'));
    // Written by the platform (the API's ServiceAccount), it is kept through a tenant's edits, never changed by one.
    const asApi = loadKubeConnection(await serviceAccountKubeconfig('cloudwright-api'));
    await objectClient<RuntimeApp>(asApi, RUNTIME_APPS).patch(member.project, 'honest', { metadata: { annotations: { [byKey]: 'user:u-alice' } } });
    await apps.patch(member.project, 'honest', { metadata: { labels: { team: 'web' } } });
    await expect(apps.patch(member.project, 'honest', { metadata: { annotations: { [byKey]: 'user:u-bob' } } })).rejects.toThrow(refusal);
    await apps.delete(member.project, 'honest');
  });

  it('gives the API the proxies to trust', () => {
    expect(containerOf('Deployment', 'cloudwright-api').env?.find((e) => e.name === 'CW_API_TRUST_PROXY')?.value).toBe('127.0.0.1,10.0.0.0/8');
  });

  it("bounds the API's and the operator's V8 heap to three quarters of their memory limit, so they collect before the kernel kills them", () => {
    for (const name of ['cloudwright-api', 'cloudwright-operator']) {
      const container = containerOf('Deployment', name);
      const limit = String(container.resources?.limits?.memory);
      const limitMiB = Number.parseInt(limit, 10) * (limit.endsWith('Gi') ? 1024 : 1);
      expect(container.env?.find((e) => e.name === 'NODE_OPTIONS')?.value, name).toBe(`--max-old-space-size=${Math.floor(limitMiB * 0.75)}`);
    }
    // The runtime's Node heap has a bound of its own: the pod's memory is mostly workerd's.
    expect(containerOf('Deployment', 'cloudwright-runtime').env?.find((e) => e.name === 'NODE_OPTIONS')?.value).toBe('--max-old-space-size=512');
  });

  it("probes every container on its process's own health routes, on the ports it listens on", () => {
    const workloads = workloadsOf(complete);
    expect(workloads.map((w) => w.metadata?.name).sort()).toEqual(Object.keys(PROBES).sort());
    const gitConfig = parseYaml(find<KubeObject & { data: Record<string, string> }>('ConfigMap', 'cloudwright-git', complete).data['cw-git.yaml']!) as { server: { listen: string } };
    for (const workload of workloads) {
      const name = workload.metadata?.name ?? '';
      for (const container of workload.spec.template.spec.containers) {
        const where = `${name}/${container.name}`;
        expect(container.livenessProbe, `${where} liveness`).toBeDefined();
        expect(container.readinessProbe, `${where} readiness`).toBeDefined();
        const probes = { startupProbe: container.startupProbe, livenessProbe: container.livenessProbe, readinessProbe: container.readinessProbe };
        const routes = Object.fromEntries(Object.entries(probes).flatMap(([kind, probe]) => (probe ? [[kind, [probe.httpGet?.port, probe.httpGet?.path]]] : [])));
        expect(routes, where).toEqual(PROBES[name]);
        for (const probe of Object.values(probes)) {
          if (!probe) continue;
          // Timings given, not the kubelet's defaults (a 1 s timeout): room for an answer under load, a probe at a time.
          expect(probe.timeoutSeconds, where).toBeGreaterThanOrEqual(2);
          expect(probe.periodSeconds, where).toBeGreaterThanOrEqual(probe.timeoutSeconds ?? 1);
        }
        // A startup probe holds liveness off for a slow start: at least a minute of it.
        if (container.startupProbe) expect((container.startupProbe.periodSeconds ?? 10) * (container.startupProbe.failureThreshold ?? 3), where).toBeGreaterThanOrEqual(60);
        // Each probed port is one the process listens on.
        const env = Object.fromEntries((container.env ?? []).map((e) => [e.name, e.value]));
        for (const port of container.ports ?? []) {
          const listens = name === 'cloudwright-git' ? gitConfig.server.listen.split(':').at(-1) : env[PORT_ENV[name]?.[port.name ?? ''] ?? ''];
          expect(String(port.containerPort), `${where} port ${port.name}`).toBe(listens);
        }
      }
    }
  });

  it('the running processes answer 200 on their probe routes', async () => {
    for (const [name, ports] of livePorts) {
      const container = containerOf('Deployment', name);
      for (const probe of [container.startupProbe, container.livenessProbe, container.readinessProbe]) {
        if (!probe?.httpGet) continue;
        const url = `${ports[String(probe.httpGet.port)]}${probe.httpGet.path}`;
        await eventually(
          url,
          () => fetch(url),
          (r) => r.status === 200,
        );
      }
    }
  });

  it('runs every pod as user 10001 under the restricted profile, with a read-only root and volumes where it writes, within its resources', async () => {
    // The pods' ServiceAccounts (cw-git's and cw-db's too), which admission looks up.
    for (const account of complete.filter((o) => o.kind === 'ServiceAccount')) await apply(account);
    for (const workload of workloadsOf(complete)) {
      const name = workload.metadata?.name ?? '';
      const pod = workload.spec.template.spec;
      expect(pod.securityContext, name).toMatchObject({ runAsNonRoot: true, runAsUser: 10001, runAsGroup: 10001, fsGroup: 10001, seccompProfile: { type: 'RuntimeDefault' } });
      const volumes = new Map((pod.volumes ?? []).map((v) => [v.name, v]));
      const claims = new Set((workload.spec.volumeClaimTemplates ?? []).map((c) => c.metadata.name));
      for (const container of pod.containers) {
        const where = `${name}/${container.name}`;
        expect(container.securityContext, where).toMatchObject({
          runAsNonRoot: true,
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ['ALL'] },
          seccompProfile: { type: 'RuntimeDefault' },
        });
        expect(container.securityContext?.capabilities?.add ?? [], where).toEqual([]);
        expect(container.securityContext?.privileged ?? false, where).toBe(false);
        // What it writes: /tmp (TMPDIR) on an emptyDir, its data directory on an emptyDir or its volume.
        const mounts = new Map((container.volumeMounts ?? []).map((m) => [m.mountPath, m]));
        expect(volumes.get(mounts.get('/tmp')?.name ?? '')?.emptyDir, `${where} /tmp`).toMatchObject({ sizeLimit: expect.any(String) });
        expect(container.env?.find((e) => e.name === 'TMPDIR')?.value, where).toBe('/tmp');
        for (const dir of DATA_DIRS[name] ?? []) {
          const mount = mounts.get(dir);
          expect(mount?.readOnly ?? false, `${where} ${dir}`).toBe(false);
          expect(volumes.get(mount?.name ?? '')?.emptyDir !== undefined || claims.has(mount?.name ?? ''), `${where} ${dir}`).toBe(true);
        }
        expect(container.resources?.requests, where).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
        expect(container.resources?.limits?.memory, where).toEqual(expect.any(String));
      }
      // The apiserver admits each pod in the release namespace, which enforces the restricted standard.
      await dryRunPod(podOf(workload, releaseNamespace));
    }
    // It does enforce it: a pod allowed to escalate its privileges is refused.
    const loose = podOf(find<Workload>('Deployment', 'cloudwright-api'), releaseNamespace) as KubeObject & { spec: PodSpec };
    loose.spec.containers[0]!.securityContext = { ...loose.spec.containers[0]!.securityContext, allowPrivilegeEscalation: true };
    await expect(dryRunPod(loose)).rejects.toThrow(/violates PodSecurity "restricted/);
  });

  it("runs builds in a namespace of their own that enforces the restricted profile, on an account with no rights, below the apps' priority", async () => {
    const buildsNamespace = `${releaseNamespace}-builds`;
    const namespace = find<KubeObject>('Namespace', buildsNamespace);
    expect(namespace.metadata?.labels).toMatchObject({ 'pod-security.kubernetes.io/enforce': 'restricted' });
    expect(find<KubeObject & { value: number; preemptionPolicy: string }>('PriorityClass', `${RELEASE}-build`)).toMatchObject({ value: -100, preemptionPolicy: 'Never', globalDefault: false });
    expect(find<KubeObject & { automountServiceAccountToken: boolean }>('ServiceAccount', 'cloudwright-build').automountServiceAccountToken).toBe(false);
    const builder = serviceAccount(buildsNamespace, 'cloudwright-build');
    for (const [verb, group, resource, where] of [
      ['list', '', 'pods', buildsNamespace],
      ['get', '', 'secrets', buildsNamespace],
      ['list', 'batch', 'jobs', buildsNamespace],
      ['get', '', 'configmaps', releaseNamespace],
      ['list', 'cloudwright.dev', 'runtimeapps', member.project],
    ] as const) {
      expect(await mayDo(conn, builder, { verb, group, resource, namespace: where }), `${verb} ${resource} in ${where}`).toBe(false);
    }
    // With cw-git (the sources), the operator builds in Jobs, told where and as what they run and their limits.
    const operatorEnv = (objects: KubeObject[]) =>
      Object.fromEntries((find<Workload>('Deployment', 'cloudwright-operator', objects).spec.template.spec.containers[0]?.env ?? []).map((e) => [e.name, e.value]));
    expect(operatorEnv(rendered).CW_BUILD_RUNNER).toBeUndefined();
    const env = operatorEnv(complete);
    expect(buildSettingsFromEnv(new EnvReader(env))).toMatchObject({ runner: 'job', limits: { cpuMillis: 1000, memoryBytes: 2 * 2 ** 30, diskBytes: 4 * 2 ** 30, deadlineSeconds: 900 } });
    const settings = buildJobSettingsFromEnv(env);
    expect(settings).toMatchObject({ namespace: buildsNamespace, serviceAccountName: 'cloudwright-build', priorityClassName: `${RELEASE}-build` });
    // A build's pod as the Job controller would make it is admitted there; one loosened is refused.
    const spec: BuildRunSpec = {
      id: 'site-1a2b3c-1',
      namespace: member.project,
      build: 'site-1a2b3c',
      sourceUrl: 'http://bucket.test/s',
      outputUrl: 'http://bucket.test/o',
      command: 'true',
      outputDirectory: '.',
      environment: {},
      limits: DEFAULT_BUILD_LIMITS,
    };
    const template = buildJob(spec, settings!).spec!.template!;
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { ...template.metadata, name: 'build-dry-run', namespace: buildsNamespace }, spec: template.spec } as unknown as KubeObject & {
      spec: PodSpec;
    };
    await dryRunPod(pod);
    pod.spec.containers[0]!.securityContext = { ...pod.spec.containers[0]!.securityContext, capabilities: { drop: ['ALL'], add: ['NET_RAW'] } };
    await expect(dryRunPod(pod)).rejects.toThrow(/violates PodSecurity "restricted/);
  });

  it("gives cw-git's pods a termination grace covering the spec's whole drain: 30 s of maintenance, drainTimeout, 2 s", async () => {
    const graceOf = (objects: KubeObject[]) => find<Workload>('Deployment', 'cloudwright-git', objects).spec.template.spec.terminationGracePeriodSeconds;
    expect(graceOf(complete)).toBe(60);
    const withGit = { ...releaseValues, 'git.enabled': true, 'database.enabled': false };
    expect(graceOf(parseRender(await helmTemplate(releaseNamespace, { ...withGit, 'git.drainTimeout': '45s' })))).toBe(85);
    expect(graceOf(parseRender(await helmTemplate(releaseNamespace, { ...withGit, 'git.drainTimeout': '2m' })))).toBe(160);
    expect(graceOf(parseRender(await helmTemplate(releaseNamespace, { ...withGit, 'git.drainTimeout': '1500ms', 'git.terminationGracePeriodSeconds': 50 })))).toBe(50);
    const failure = await helmTemplate(releaseNamespace, { ...withGit, 'git.drainTimeout': '1500ms' }).catch((err: unknown) => err);
    expect(String((failure as { stderr?: string }).stderr)).toContain('git.drainTimeout "1500ms" is not whole seconds or minutes');
  });

  it("passes cw-git's initialize and import sources, its events settings, its fetch bounds, its public URL, its maintenance settings and its write deadline through, parsed by cw-git's own configuration loader", async () => {
    const gitConfigOf = (objects: KubeObject[]) =>
      parseConfig(
        find<KubeObject & { data: Record<string, string> }>('ConfigMap', 'cloudwright-git', objects).data['cw-git.yaml']!,
        { SERVICE__AUTH__TOKEN_SECRET: 'x'.repeat(32) },
        { source: 'chart', baseDir: stateDir },
      );
    // The defaults are safe: no initialize, no import, no bucket-wide webhook, no internal receiver.
    const defaults = gitConfigOf(complete);
    expect(defaults.api).toMatchObject({ initializeSources: [], importSources: [], importTimeoutMs: 300_000, importMaxBytes: 1024 ** 3, importAllowPrivateTargets: false, writeDeadlineMs: 300_000 });
    expect(defaults.events).toMatchObject({ webhookUrl: undefined, allowPrivateTargets: false, deniedTargetRanges: [], sweepIntervalMs: 300_000 });
    expect(defaults.server.fetches).toEqual({ total: 16, perCaller: 8, perOwner: 12, waitMs: 30_000 });
    expect(defaults.server.publicUrl).toBeUndefined();
    // The chart's maintenance defaults are cw-git's own.
    expect(defaults.maintenance).toEqual({ intervalMs: 60_000, unitDeadlineMs: 1_800_000, ownerBudgetMs: 600_000, gracePeriodMs: 3_600_000, logRetentionMs: 7 * 86_400_000 });
    const tuned = gitConfigOf(
      parseRender(
        await helmTemplate(releaseNamespace, {
          ...releaseValues,
          'git.enabled': true,
          'database.enabled': false,
          'git.initializeSources[0]': 'templates/starter',
          'git.importSources[0]': 'mirrors/upstream',
          'git.importSources[1]': 'https://github.com/acme/*',
          'git.importTimeout': '90s',
          'git.importMaxSize': '256MiB',
          'git.importAllowPrivateTargets': true,
          'git.writeDeadline': '2m',
          'git.events.webhookUrl': 'https://hooks.example.com/git',
          'git.events.sweepInterval': '1m',
          'git.events.allowPrivateTargets': true,
          'git.events.deniedTargetRanges[0]': '10.96.0.0/12',
          'git.fetches.max': 32,
          'git.fetches.perCaller': 16,
          'git.fetches.perOwner': 24,
          'git.fetches.wait': '20s',
          'git.publicUrl': 'https://git.example.com/',
          'git.maintenance.interval': '2m',
          'git.maintenance.unitDeadline': '45m',
          'git.maintenance.ownerBudget': '5m',
          'git.maintenance.gracePeriod': '2h',
          'git.maintenance.logRetention': '14d',
        }),
      ),
    );
    expect(tuned.api).toMatchObject({
      initializeSources: ['templates/starter'],
      importSources: ['mirrors/upstream', 'https://github.com/acme/*'],
      importTimeoutMs: 90_000,
      importMaxBytes: 256 * 1024 ** 2,
      importAllowPrivateTargets: true,
      writeDeadlineMs: 120_000,
    });
    expect(tuned.events).toMatchObject({ webhookUrl: 'https://hooks.example.com/git', sweepIntervalMs: 60_000, allowPrivateTargets: true, deniedTargetRanges: ['10.96.0.0/12'] });
    expect(tuned.server.fetches).toEqual({ total: 32, perCaller: 16, perOwner: 24, waitMs: 20_000 });
    // LFS transfer links under the public URL, not the request's Host (review-177 L3).
    expect(tuned.server.publicUrl).toBe('https://git.example.com');
    expect(tuned.maintenance).toEqual({ intervalMs: 120_000, unitDeadlineMs: 2_700_000, ownerBudgetMs: 300_000, gracePeriodMs: 7_200_000, logRetentionMs: 14 * 86_400_000 });
  });

  it('keeps one API and one runtime pod at most out at a time in voluntary disruptions, a one-replica install still drainable', async () => {
    for (const component of ['api', 'runtime']) {
      const budget = find<DisruptionBudget>('PodDisruptionBudget', `cloudwright-${component}`);
      expect(budget.spec.maxUnavailable, component).toBe(1);
      expect(budget.spec.minAvailable, component).toBeUndefined();
      expect(budget.spec.selector.matchLabels).toEqual(find<Workload>('Deployment', `cloudwright-${component}`).spec.template.metadata?.labels);
      expect(await objectClient(conn, KINDS.PodDisruptionBudget!).get(releaseNamespace, `cloudwright-${component}`), component).toBeDefined();
    }
    // minAvailable, when set, replaces maxUnavailable; a budget can be turned off.
    const tuned = parseRender(await helmTemplate(releaseNamespace, { ...releaseValues, 'runtime.podDisruptionBudget.minAvailable': 1, 'api.podDisruptionBudget.enabled': false }));
    expect(tuned.filter((o) => o.kind === 'PodDisruptionBudget').map((o) => [o.metadata?.name, (o as DisruptionBudget).spec])).toEqual([
      ['cloudwright-runtime', expect.objectContaining({ minAvailable: 1 })],
    ]);
    expect(find<DisruptionBudget>('PodDisruptionBudget', 'cloudwright-runtime', tuned).spec.maxUnavailable).toBeUndefined();
  });

  it("lets only cw-api's pods reach the runtime's status port and only cw-operator's and cw-db's own cw-db's admin port; other ports are open", async () => {
    const labels = new Map(workloadsOf(complete).map((w) => [w.metadata?.name ?? '', w.spec.template.metadata?.labels ?? {}]));
    const selects = (selector: Record<string, string> | undefined, of: Record<string, string>) => Object.entries(selector ?? {}).every(([key, value]) => of[key] === value);
    /** The workloads whose pods `rule` lets in (peers in the release namespace: podSelector only). */
    const admitted = (rule: PolicyRule) =>
      [...labels].filter(([, of]) => rule.from?.some((peer) => !peer.namespaceSelector && !peer.ipBlock && selects(peer.podSelector?.matchLabels, of))).map(([name]) => name);
    // cw-db's admin port: the operator, and cw-db's own pods (a replica forwards a database's admin calls to its owner).
    const expectations: [string, string[], number, number][] = [
      ['cloudwright-runtime', ['cloudwright-api'], 8081, 8080],
      ['cloudwright-db', ['cloudwright-operator', 'cloudwright-db'], 8081, 8080],
    ];
    for (const [workload, only, guarded, open] of expectations) {
      const policy = find<NetworkPolicy>('NetworkPolicy', workload, complete);
      // It selects the workload's pods, and no other workload's.
      expect([...labels].filter(([, of]) => selects(policy.spec.podSelector.matchLabels, of)).map(([name]) => name)).toEqual([workload]);
      expect(policy.spec.policyTypes).toContain('Ingress');
      const rules = policy.spec.ingress ?? [];
      expect(rules.map((rule) => rule.ports?.map((p) => p.port))).toEqual([[open], [guarded]]);
      // The open port: from anywhere (no `from`). The guarded one: one workload's pods, in the release namespace.
      expect(rules[0]?.from).toBeUndefined();
      expect(admitted(rules[1]!).sort()).toEqual([...only].sort());
      expect(rules[1]?.from).toHaveLength(only.length);
    }
    // Only what the values add (a Prometheus, say) joins cw-api.
    const prometheus = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } };
    expect(find<NetworkPolicy>('NetworkPolicy', 'cloudwright-runtime', rendered).spec.ingress?.[1]?.from).toHaveLength(1);
    const yaml = await helmTemplate(releaseNamespace, { ...releaseValues, 'networkPolicy.runtime.statusFrom[0].namespaceSelector.matchLabels.kubernetes\\.io/metadata\\.name': 'monitoring' });
    expect(find<NetworkPolicy>('NetworkPolicy', 'cloudwright-runtime', parseRender(yaml)).spec.ingress?.[1]?.from?.[1]).toEqual(prometheus);
  });

  it("lets the runtime's pods, where tenants' code runs, reach the apiserver, cluster DNS, cw-db's SQL port and public addresses only", async () => {
    const egress = find<NetworkPolicy>('NetworkPolicy', 'cloudwright-runtime').spec.egress ?? [];
    expect(find<NetworkPolicy>('NetworkPolicy', 'cloudwright-runtime').spec.policyTypes).toEqual(['Ingress', 'Egress']);
    expect(egress[0]).toEqual({ to: [{ ipBlock: { cidr: '127.0.0.1/32' } }], ports: [{ protocol: 'TCP', port: Number(new URL(apiServerUrl()).port) }] });
    expect(egress[1]).toEqual({
      to: [{ namespaceSelector: {}, podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } } }],
      ports: [
        { protocol: 'UDP', port: 53 },
        { protocol: 'TCP', port: 53 },
      ],
    });
    const [v4, v6] = egress[2]?.to ?? [];
    expect(egress[2]?.ports).toBeUndefined();
    expect(v4?.ipBlock?.cidr).toBe('0.0.0.0/0');
    // The cluster's ranges, the node's own and the cloud metadata service are not "public".
    expect(v4?.ipBlock?.except).toEqual(expect.arrayContaining(['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', '169.254.0.0/16', '127.0.0.0/8', '0.0.0.0/8']));
    expect(v6?.ipBlock).toEqual({ cidr: '::/0', except: expect.arrayContaining(['fc00::/7', 'fe80::/10', '::/96']) });
    // Nor are the IPv6 forms of private IPv4 addresses that workerd's filter is told to deny (NAT64, 6to4, …).
    expect(v6?.ipBlock?.except).toEqual(expect.arrayContaining([...TRANSLATED_PRIVATE_DENY]));
    expect(egress).toHaveLength(3);
    // No apps' internet: none of that rule; a private bucket: a rule of the admin's, appended.
    const closed = parseRender(
      await helmTemplate(releaseNamespace, {
        ...releaseValues,
        'networkPolicy.runtime.internet': false,
        'networkPolicy.runtime.extraEgress[0].to[0].ipBlock.cidr': '10.0.5.7/32',
        'networkPolicy.runtime.extraEgress[0].ports[0].port': 9000,
      }),
    );
    expect(find<NetworkPolicy>('NetworkPolicy', 'cloudwright-runtime', closed).spec.egress?.slice(2)).toEqual([{ to: [{ ipBlock: { cidr: '10.0.5.7/32' } }], ports: [{ port: 9000 }] }]);
    // With cw-db: its pods on the SQL port, the one private destination apps have (the admin port is not
    // opened), and the runtime told the SQL Service's name, which resolves to its ClusterIP.
    const withDb = find<NetworkPolicy>('NetworkPolicy', 'cloudwright-runtime', complete).spec.egress ?? [];
    expect(withDb).toHaveLength(4);
    expect(withDb[2]).toEqual({
      to: [{ podSelector: { matchLabels: { 'app.kubernetes.io/component': 'database', 'app.kubernetes.io/part-of': 'cloudwright' } } }],
      ports: [{ protocol: 'TCP', port: 8080 }],
    });
    const runtimeEnv = find<Workload>('Deployment', 'cloudwright-runtime', complete).spec.template.spec.containers[0]?.env ?? [];
    expect(runtimeEnv.find((e) => e.name === 'CW_RUNTIME_DATABASE_URL')?.value).toBe(`http://cloudwright-db.${releaseNamespace}.svc`);
    expect(find<Workload>('Deployment', 'cloudwright-runtime').spec.template.spec.containers[0]?.env?.some((e) => e.name === 'CW_RUNTIME_DATABASE_URL')).toBe(false);
    const sqlService = find<KubeObject & { spec: { ports: { port: number; targetPort: string }[]; clusterIP?: string } }>('Service', 'cloudwright-db', complete);
    expect(sqlService.spec.ports).toEqual([{ name: 'hrana', port: 80, targetPort: 'hrana' }]);
    expect(sqlService.spec.clusterIP).toBeUndefined(); // a ClusterIP of its own, not headless (a pod IP has the admin port too)
    // Off: no policy at all.
    const off = parseRender(await helmTemplate(releaseNamespace, { ...releaseValues, 'networkPolicy.enabled': false }));
    expect(off.filter((o) => o.kind === 'NetworkPolicy')).toEqual([]);
  });

  it('runs cw-db as database.replicas pods that own databases by lease, each named by its pod and reached at its pod IP', async () => {
    const db = find<Workload>('StatefulSet', 'cloudwright-db', complete);
    expect(db.spec.replicas).toBe(1);
    const env = db.spec.template.spec.containers[0]?.env ?? [];
    expect(env.find((e) => e.name === 'CW_DB_REPLICA_NAME')?.valueFrom).toEqual({ fieldRef: { fieldPath: 'metadata.name' } });
    expect(env.find((e) => e.name === 'CW_DB_REPLICA_ADDRESS')?.valueFrom).toEqual({ fieldRef: { fieldPath: 'status.podIP' } });
    expect(env.find((e) => e.name === 'CW_DB_LEASE_DURATION')?.value).toBe('15s');
    const three = parseRender(await helmTemplate(releaseNamespace, { ...releaseValues, 'database.enabled': true, 'database.publicUrl': 'https://db.chart.test', 'database.replicas': 3 }));
    expect(find<Workload>('StatefulSet', 'cloudwright-db', three).spec.replicas).toBe(3);
  });

  it('gives cw-runtime and cw-api one status token from a Secret the chart makes (or the one named), never in plain text', async () => {
    const secret = find<KubeObject & { data: { token: string } }>('Secret', 'cloudwright-runtime-status');
    expect(Buffer.from(secret.data.token, 'base64').toString()).toMatch(/^[A-Za-z0-9]{48}$/);
    for (const name of ['cloudwright-runtime', 'cloudwright-api']) {
      expect(
        containerOf('Deployment', name).env?.find((e) => e.name === 'CW_RUNTIME_STATUS_TOKEN'),
        name,
      ).toEqual({
        name: 'CW_RUNTIME_STATUS_TOKEN',
        valueFrom: { secretKeyRef: { name: 'cloudwright-runtime-status', key: 'token' } },
      });
    }
    expect(containerOf('Deployment', 'cloudwright-operator').env?.map((e) => e.name)).not.toContain('CW_RUNTIME_STATUS_TOKEN');
    const own = parseRender(await helmTemplate(releaseNamespace, { ...releaseValues, 'runtime.statusTokenSecret': 'my-status-token' }));
    expect(own.filter((o) => o.kind === 'Secret')).toEqual([]);
    expect(find<Workload>('Deployment', 'cloudwright-api', own).spec.template.spec.containers[0]?.env?.find((e) => e.name === 'CW_RUNTIME_STATUS_TOKEN')?.valueFrom?.secretKeyRef).toEqual({
      name: 'my-status-token',
      key: 'token',
    });
    // The running replica answers its app routes to the token's holder only.
    const status = livePorts.get('cloudwright-runtime')?.status ?? '';
    expect((await fetch(`${status}/apps`)).status).toBe(401);
    const token = Buffer.from((await objectClient<KubeObject & { data: { token: string } }>(conn, SECRETS).get(releaseNamespace, 'cloudwright-runtime-status'))!.data.token, 'base64').toString();
    expect((await fetch(`${status}/apps`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
  });

  it('serves HTTPS from cw-runtime only with tls.enabled: its port on the container, the Service and the NetworkPolicy, the sealing key from the Secret', async () => {
    // Off (the default, TLS ends at an ingress): no HTTPS anywhere.
    const off = containerOf('Deployment', 'cloudwright-runtime');
    expect(off.env?.map((e) => e.name)).not.toContain('CW_RUNTIME_HTTPS_PORT');
    expect(off.ports?.map((p) => p.name)).toEqual(['http', 'status']);
    const tlsValues = { ...releaseValues, 'tls.enabled': true, 'tls.acme.directoryUrl': 'https://ca.chart.test/dir' };
    const on = parseRender(await helmTemplate(releaseNamespace, tlsValues));
    const runtime = find<Workload>('Deployment', 'cloudwright-runtime', on).spec.template.spec.containers[0]!;
    const env = Object.fromEntries((runtime.env ?? []).map((e) => [e.name, e.value ?? e.valueFrom]));
    expect(env).toMatchObject({ CW_RUNTIME_HTTPS_PORT: '8443', CW_RUNTIME_TLS_CACHE: '1000', CW_TLS_SEALING_KEY: { secretKeyRef: { name: 'cloudwright-tls-sealing', key: 'key' } } });
    expect(runtime.ports).toContainEqual({ name: 'https', containerPort: 8443 });
    const service = find<KubeObject & { spec: { ports: { name: string; port: number; targetPort: string }[] } }>('Service', 'cloudwright-runtime', on);
    expect(service.spec.ports).toContainEqual({ name: 'https', port: 443, targetPort: 'https' });
    expect(find<NetworkPolicy>('NetworkPolicy', 'cloudwright-runtime', on).spec.ingress?.[0]?.ports?.map((p) => p.port)).toEqual([8080, 8443]);
    const own = parseRender(await helmTemplate(releaseNamespace, { ...tlsValues, 'tls.sealingKeySecret': 'my-sealing-key' }));
    const named = find<Workload>('Deployment', 'cloudwright-runtime', own).spec.template.spec.containers[0]!.env?.find((e) => e.name === 'CW_TLS_SEALING_KEY');
    expect(named?.valueFrom?.secretKeyRef).toEqual({ name: 'my-sealing-key', key: 'key' });
    // The chart's own key outlives an uninstall, as the sealed keys in the bucket do; so do people's passwords.
    expect(find<KubeObject>('Secret', 'cloudwright-tls-sealing', on).metadata?.annotations).toEqual({ 'helm.sh/resource-policy': 'keep' });
    expect(find<KubeObject>('Namespace', `${releaseNamespace}-sign-ins`, on).metadata?.annotations).toEqual({ 'helm.sh/resource-policy': 'keep' });
  });

  it.each([
    [{ 'api.publicUrl': 'https://api.chart.test', 'dns.provider': 'memory' }, 'dns.provider must be route53 in a cluster, not "memory"'],
    [{}, 'api.publicUrl is required'],
    [{ 'api.publicUrl': 'https://api.chart.test' }, 'database.publicUrl is required with database.enabled'],
    [{ 'api.publicUrl': 'https://api.chart.test', 'database.enabled': false }, 'networkPolicy.runtime.apiServer is required when the chart is rendered without a cluster'],
  ])('refuses to render %j: %s', async (values, message) => {
    const failure = await helmTemplate(releaseNamespace, values).catch((err: unknown) => err);
    expect(String((failure as { stderr?: string }).stderr)).toContain(message);
  });

  it('runs the platform on its ServiceAccounts alone: an app deployed, served and Ready; a domain; a device sign-in', { timeout: 120_000 }, async () => {
    const project = `/v1/projects/${member.project}`;
    expect((await callApi('POST', `${project}/apps`, { name: 'hello' })).status).toBe(201);
    const deploy = await callApi('POST', `${project}/apps/hello/deployments`, packWorker('export default { fetch() { return new Response("installed by the chart"); } };\n'));
    expect(deploy.status, JSON.stringify(deploy.body)).toBe(200);
    const host = `hello.${member.project}.${BASE_DOMAIN}`;
    await eventually(
      `${host} served`,
      () => send(runtimePort, host),
      (r) => r.status === 200 && r.body === 'installed by the chart',
    );
    const apps = objectClient<RuntimeApp>(conn, RUNTIME_APPS);
    // The API follows the app's logs on the replica's status port with the Secret's token.
    const logs = await EventStream.open(`${apiUrl}${project}/apps/hello/logs?recent=0`, { headers: { authorization: `Bearer ${member.token}` } });
    expect(await logs.next({ events: true })).toEqual({ event: 'live', data: { replicas: 1 } });
    expect((await send(runtimePort, host, '/logged')).status).toBe(200);
    expect(await logs.next({ events: true })).toMatchObject({ event: 'log', data: { request: { url: `http://${host}/logged` } } });
    logs.close();
    await eventually(
      'RuntimeApp Ready (the operator asked the runtime)',
      () => apps.get(member.project, 'hello'),
      (app) => app?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true,
    );

    // The zone is created in Route 53 with the chart's endpoint and the credentials from its Secret.
    const domain = await callApi('POST', `${project}/domains`, { domain: `${member.project}.chart.test`, dns_mode: 'zone_delegated' });
    expect(domain.status, JSON.stringify(domain.body)).toBe(201);
    expect((domain.body.domain as { nameservers: string[] }).nameservers.length).toBeGreaterThan(0);

    // Device sign-ins are Secrets in a namespace of their own; the link is the chart's public URL.
    const device = await fetch(`${apiUrl}/v1/device/code`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ scope: 'projects:read' }) });
    expect(device.status).toBe(200);
    expect(((await device.json()) as { verification_uri: string }).verification_uri).toBe('https://api.chart.test/device');
    const signIns = containerOf('Deployment', 'cloudwright-api').env?.find((e) => e.name === 'CW_SYSTEM_NAMESPACE')?.value ?? '';
    expect(signIns).not.toBe(releaseNamespace);
    expect((await objectClient(conn, SECRETS).list(signIns)).items).toHaveLength(1);
  });

  it('the runtime ServiceAccount writes only its own pod’s report and lease (admission policy)', async () => {
    const asRuntime = loadKubeConnection(kubeconfigs.get('cloudwright-runtime'));
    const labels = { 'cloudwright.dev/runtime-replica': 'true' };
    const write = (name: string) =>
      objectClient<RuntimeReplica>(asRuntime, REPLICA_OBJECTS).apply({ metadata: { name, namespace: releaseNamespace, labels }, spec: { ready: false } }, { fieldManager: 'cw-runtime', force: true });
    // Its own, named after its pod, it has written already (the flow above was served and counted through it).
    expect(await objectClient<RuntimeReplica>(conn, REPLICA_OBJECTS).get(releaseNamespace, runtimePod.name)).toBeDefined();
    await expect(write('cloudwright-runtime-someone-else')).rejects.toThrow(/writes only its own/);
    // Its per-project reports: `<pod>.<project>`, saying they are its pod's, for that project; no one else's.
    const reports = objectClient<RuntimeReplicaReport>(asRuntime, RUNTIME_REPLICA_REPORTS);
    const report = (name: string, replica: string, project: string, label = replica) =>
      reports.apply(
        { metadata: { name, namespace: releaseNamespace, labels: { 'cloudwright.dev/runtime-replica': label } }, spec: { replica, project, apps: [] } },
        { fieldManager: 'cw-runtime', force: true },
      );
    const own = replicaReportName(runtimePod.name, 'some-project');
    await report(own, runtimePod.name, 'some-project');
    await expect(report(replicaReportName('cloudwright-runtime-someone-else', 'some-project'), 'cloudwright-runtime-someone-else', 'some-project')).rejects.toThrow(/writes only its own/);
    await expect(report(replicaReportName(runtimePod.name, 'other-project'), runtimePod.name, 'some-project')).rejects.toThrow(/writes only its own/);
    await expect(report(own, runtimePod.name, 'some-project', 'cloudwright-runtime-someone-else')).rejects.toThrow(/writes only its own/);
    expect(await reports.delete(releaseNamespace, own)).toBe(true);
    const leader = { metadata: { name: 'cloudwright-operator', namespace: releaseNamespace }, spec: { holderIdentity: 'cw-runtime' } };
    await expect(objectClient<KubeObject>(asRuntime, LEASES).apply(leader, { fieldManager: 'cw-runtime', force: true })).rejects.toThrow(/writes only its own/);
  });

  it('the runtime reports as its pod, owned by it: the status counts it, and the pod takes the report with it', { timeout: 90_000 }, async () => {
    const replicas = objectClient<RuntimeReplica>(conn, REPLICA_OBJECTS);
    const reports = objectClient<RuntimeReplicaReport>(conn, RUNTIME_REPLICA_REPORTS);
    const leases = objectClient<KubeObject>(conn, LEASES);
    const replica = await replicas.get(releaseNamespace, runtimePod.name);
    const reportName = replicaReportName(runtimePod.name, member.project);
    const report = await reports.get(releaseNamespace, reportName);
    const ownedByPod = [expect.objectContaining({ kind: 'Pod', name: runtimePod.name, uid: runtimePod.uid })];
    expect(replica?.metadata?.ownerReferences).toEqual(ownedByPod);
    expect(report?.metadata?.ownerReferences).toEqual(ownedByPod);
    const hello = await objectClient<RuntimeApp>(conn, RUNTIME_APPS).get(member.project, 'hello');
    expect(findCondition(hello?.status?.conditions, 'Ready')?.status).toBe('True');
    // Listed, or implied by the report's mark: Ready says the operator read it as served.
    expect(reportOf(report, hello, '1')?.servingBuildId).toMatch(/^b-/);

    // The pod is deleted while its process hangs (killed: it cannot clean up): the garbage collector does.
    await killHard(runtime);
    await objectClient(conn, KINDS.Pod!).delete(releaseNamespace, runtimePod.name, { propagationPolicy: 'Background' });
    await eventually(
      'the replica, its project report and the lease gone with the pod',
      async () => [await replicas.get(releaseNamespace, runtimePod.name), await reports.get(releaseNamespace, reportName), await leases.get(releaseNamespace, runtimePod.name)],
      (objects) => objects.every((o) => !o),
      60_000,
    );
  });
});
