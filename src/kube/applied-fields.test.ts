import { describe, expect, it } from 'vitest';
import { fieldsAppliedByOthers, managersApplying, managersApplyingField, mergePatched } from './applied-fields.ts';
import type { KubeObject } from './types.ts';

type App = KubeObject & { spec: Record<string, unknown> };

/** An app whose `spec.environment.GREETING` and `spec.displayName` are applied by `manager`. */
function applied(manager: string, operation = 'Apply', spec: Record<string, unknown> = { displayName: 'web', environment: { GREETING: 'from git' } }): App {
  return {
    kind: 'RuntimeApp',
    metadata: {
      name: 'web',
      managedFields: [
        { manager, operation, fieldsV1: { 'f:spec': { 'f:displayName': {}, 'f:environment': { '.': {}, 'f:GREETING': {} } } } },
        { manager: 'cw-api', operation: 'Update', fieldsV1: { 'f:spec': { 'f:activeBuildId': {} } } },
        { manager, operation, subresource: 'status', fieldsV1: { 'f:status': { 'f:state': {} } } },
      ],
    } as KubeObject['metadata'],
    spec,
  };
}

const withSpec = (app: App, spec: Record<string, unknown>): App => ({ ...app, spec: { ...app.spec, ...spec } });

describe('fieldsAppliedByOthers', () => {
  it.each([
    ['a value git applies, changed', { environment: { GREETING: 'by hand' } }, [{ path: 'spec.environment.GREETING', managers: ['kustomize-controller'] }]],
    ['a value git applies, removed', { environment: {} }, [{ path: 'spec.environment.GREETING', managers: ['kustomize-controller'] }]],
    ['a key git does not apply, added beside it', { environment: { GREETING: 'from git', EXTRA: '1' } }, []],
    ['a field git leaves out (the build a deploy chooses)', { activeBuildId: 'b-1' }, []],
    ['nothing changed', {}, []],
    [
      'two fields at once',
      { displayName: 'other', environment: {} },
      [
        { path: 'spec.displayName', managers: ['kustomize-controller'] },
        { path: 'spec.environment.GREETING', managers: ['kustomize-controller'] },
      ],
    ],
  ])('%s', (_, change, expected) => {
    const current = applied('kustomize-controller');
    expect(fieldsAppliedByOthers(current, withSpec(current, change), 'cw-api')).toEqual(expected);
  });

  it("takes a map git declares empty for one: removing the last key the API set beside it is not a change of git's", () => {
    const current: App = {
      metadata: {
        name: 'web',
        managedFields: [{ manager: 'kustomize-controller', operation: 'Apply', fieldsV1: { 'f:spec': { 'f:environment': {} } } }],
      } as KubeObject['metadata'],
      spec: { environment: { SET_BY_API: '1' } },
    };
    const { environment: _removed, ...withoutMap } = current.spec;
    expect(fieldsAppliedByOthers(current, { ...current, spec: withoutMap } as App, 'cw-api')).toEqual([]);
    expect(fieldsAppliedByOthers(current, withSpec(current, { environment: {} }), 'cw-api')).toEqual([]);
    // A map git fills is still git's when the whole map goes.
    const filled = applied('kustomize-controller');
    const { environment: _gone, ...withoutFilled } = filled.spec;
    expect(fieldsAppliedByOthers(filled, { ...filled, spec: withoutFilled } as App, 'cw-api')).toEqual([{ path: 'spec.environment.GREETING', managers: ['kustomize-controller'] }]);
  });

  it('leaves alone what a one-off kubectl apply, an Update, or the writer itself owns', () => {
    for (const current of [applied('kubectl'), applied('kubectl-client-side-apply', 'Update'), applied('argocd-controller', 'Update'), applied('cw-api')]) {
      expect(fieldsAppliedByOthers(current, withSpec(current, { environment: {} }), 'cw-api')).toEqual([]);
    }
  });

  it("counts no more what Flux marks as no longer applied (reconcile disabled, ssa IfNotPresent or Ignore); another tool's apply still counts", () => {
    for (const [key, value] of [
      ['kustomize.toolkit.fluxcd.io/reconcile', 'disabled'],
      ['kustomize.toolkit.fluxcd.io/ssa', 'IfNotPresent'],
      ['kustomize.toolkit.fluxcd.io/ssa', 'Ignore'],
    ] as const) {
      const flux = applied('kustomize-controller');
      flux.metadata = { ...flux.metadata, annotations: { [key]: value } };
      expect(fieldsAppliedByOthers(flux, withSpec(flux, { environment: {} }), 'cw-api')).toEqual([]);
      expect(managersApplying(flux, 'cw-api')).toEqual([]);
      const argo = applied('argocd-controller');
      argo.metadata = { ...argo.metadata, annotations: { [key]: value } };
      expect(managersApplying(argo, 'cw-api')).toEqual(['argocd-controller']);
    }
    const merged = applied('kustomize-controller');
    merged.metadata = { ...merged.metadata, annotations: { 'kustomize.toolkit.fluxcd.io/ssa': 'Merge' } };
    expect(managersApplying(merged, 'cw-api')).toEqual(['kustomize-controller']);
  });

  it('judges labels and annotations too, never status', () => {
    const current: App = {
      metadata: {
        name: 'web',
        annotations: { team: 'a' },
        managedFields: [{ manager: 'argocd-controller', operation: 'Apply', fieldsV1: { 'f:metadata': { 'f:annotations': { 'f:team': {} } } } }],
      } as KubeObject['metadata'],
      spec: {},
    };
    const next = { ...current, metadata: { ...current.metadata, annotations: { team: 'b', 'cloudwright.dev/restore-request': 'x' } } };
    expect(fieldsAppliedByOthers(current, next, 'cw-api')).toEqual([{ path: 'metadata.annotations.team', managers: ['argocd-controller'] }]);
    expect(fieldsAppliedByOthers(current, { ...current, status: { state: 'x' } } as App, 'cw-api')).toEqual([]);
  });
});

describe('managersApplying', () => {
  it('names the tools that would create the object again, not one-off applies or status writers', () => {
    expect(managersApplying(applied('kustomize-controller'), 'cw-api')).toEqual(['kustomize-controller']);
    expect(managersApplying(applied('kubectl'), 'cw-api')).toEqual([]);
    expect(managersApplying({ metadata: { name: 'x' } }, 'cw-api')).toEqual([]);
  });
});

describe('managersApplyingField', () => {
  it('names the tools applying a field or something under it, not its neighbours', () => {
    const current = applied('kustomize-controller');
    expect(managersApplyingField(current, ['spec', 'environment'], 'cw-api')).toEqual(['kustomize-controller']);
    expect(managersApplyingField(current, ['spec', 'environment', 'GREETING'], 'cw-api')).toEqual(['kustomize-controller']);
    expect(managersApplyingField(current, ['spec', 'activeBuildId'], 'cw-api')).toEqual([]);
    expect(managersApplyingField(applied('kubectl'), ['spec', 'environment'], 'cw-api')).toEqual([]);
  });
});

describe('mergePatched', () => {
  it('applies RFC 7386: objects merged, null removes, anything else replaces', () => {
    expect(mergePatched({ a: { b: 1, c: 2 }, d: [1], e: 'x' }, { a: { b: null, z: 3 }, d: [2], f: { g: 1 } })).toEqual({ a: { c: 2, z: 3 }, d: [2], e: 'x', f: { g: 1 } });
  });
});
