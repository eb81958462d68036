// The Argo CD health snippet of docs/argocd-health/ against the reasons each kind really reports: every reason it
// names is one of its kind's, and each mapping (Healthy, Degraded, Suspended, Progressing, a status of an older
// generation) holds. e2e/flux-gitops.test.ts runs it on live objects too.
import { describe, expect, it } from 'vitest';
import { HostnameReasons } from '../src/apis/v1alpha1/app-hostname.ts';
import { AppSourceReasons } from '../src/apis/v1alpha1/app-source.ts';
import { DatabaseReasons } from '../src/apis/v1alpha1/database.ts';
import { ProjectDomainReasons } from '../src/apis/v1alpha1/project-domain.ts';
import { RepositoryWebhookReasons } from '../src/apis/v1alpha1/repository-webhook.ts';
import { RepositoryReasons } from '../src/apis/v1alpha1/repository.ts';
import { Reasons as RuntimeAppReasons } from '../operator/controllers/runtime-app/desired-status.ts';
import { STALLED_REASONS } from '../src/conditions/stalled.ts';
import { argoHealth, snippetReasons } from './harness/argocd-health.ts';

/** Each kind with a status, and the reasons its Ready condition can carry (DnsRecord shares its domain's). */
const KINDS: Record<string, Record<string, string>> = {
  RuntimeApp: RuntimeAppReasons,
  Database: DatabaseReasons,
  ProjectDomain: ProjectDomainReasons,
  DnsRecord: ProjectDomainReasons,
  AppHostname: HostnameReasons,
  RepositoryWebhook: RepositoryWebhookReasons,
  Repository: RepositoryReasons,
  AppSource: AppSourceReasons,
};

const object = (kind: string, ready: { status: string; reason: string } | undefined, generation = 2, observed = 2) => ({
  kind,
  metadata: { name: 'x', generation },
  status: { observedGeneration: observed, conditions: ready ? [{ type: 'Ready', ...ready, message: `${ready.reason} "quoted"\n`, lastTransitionTime: '2026-01-01T00:00:00Z' }] : [] },
});

describe('the Argo CD health snippet', () => {
  it('covers every kind with a status, and no other', () => {
    expect([...snippetReasons().keys()].sort()).toEqual(Object.keys(KINDS).sort());
  });

  it('names Degraded exactly the reasons the controllers mark Stalled (src/conditions/stalled.ts)', () => {
    for (const kind of Object.keys(KINDS)) expect([...(snippetReasons().get(kind)?.degraded ?? [])].sort(), kind).toEqual([...(STALLED_REASONS[kind] ?? [])].sort());
  });

  for (const [kind, reasons] of Object.entries(KINDS)) {
    it(`${kind}: names only its own reasons, and maps Ready as docs/gitops.md says`, () => {
      const { degraded, suspended } = snippetReasons().get(kind) ?? { degraded: [], suspended: [] };
      expect(degraded.length).toBeGreaterThan(0);
      for (const reason of [...degraded, ...suspended]) expect(Object.values(reasons), `${kind} reason ${reason}`).toContain(reason);

      expect(argoHealth(object(kind, { status: 'True', reason: 'Any' }))).toEqual({ status: 'Healthy', message: 'Any "quoted"\n' });
      for (const reason of degraded) expect(argoHealth(object(kind, { status: 'False', reason })).status).toBe('Degraded');
      for (const reason of suspended) expect(argoHealth(object(kind, { status: 'False', reason })).status).toBe('Suspended');
      const waiting = Object.values(reasons).filter((r) => !degraded.includes(r) && !suspended.includes(r));
      for (const reason of waiting) expect(argoHealth(object(kind, { status: 'False', reason })).status).toBe('Progressing');
      // A status written for an older generation, or none yet: still Progressing, whatever Ready says.
      expect(argoHealth(object(kind, { status: 'True', reason: 'Any' }, 3, 2))).toEqual({ status: 'Progressing', message: 'Waiting for the controller to observe generation 3' });
      expect(argoHealth({ kind, metadata: { generation: 1 } }).status).toBe('Progressing');
      expect(argoHealth(object(kind, undefined)).status).toBe('Progressing');
    });
  }

  it('is not installed for kinds without a status: Argo CD assesses no health for them', () => {
    for (const kind of ['Build', 'GitToken', 'DomainClaim', 'HostnameClaim', 'User']) expect(argoHealth({ kind }).status).toBe('Healthy');
  });
});
