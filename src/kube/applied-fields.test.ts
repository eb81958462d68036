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
    const values = ['spec.https.hsts'];
    expect(fieldsAppliedByOthers(current, { ...current, spec: withoutMap } as App, 'cw-api', values)).toEqual([]);
    expect(fieldsAppliedByOthers(current, withSpec(current, { environment: {} }), 'cw-api', values)).toEqual([]);
    // A map git fills is still git's when the whole map goes.
    const filled = applied('kustomize-controller');
    const { environment: _gone, ...withoutFilled } = filled.spec;
    expect(fieldsAppliedByOthers(filled, { ...filled, spec: withoutFilled } as App, 'cw-api', values)).toEqual([{ path: 'spec.environment.GREETING', managers: ['kustomize-controller'] }]);
  });

  it('keeps an empty object whose presence means something a value: removing `hsts: {}` git applies turns HSTS off, refused', () => {
    const current: App = {
      metadata: {
        name: 'web',
        managedFields: [{ manager: 'kustomize-controller', operation: 'Apply', fieldsV1: { 'f:spec': { 'f:https': { 'f:hsts': {} } } } }],
      } as KubeObject['metadata'],
      spec: { https: { hsts: {} } },
    };
    expect(fieldsAppliedByOthers(current, withSpec(current, { https: {} }), 'cw-api', ['spec.https.hsts'])).toEqual([{ path: 'spec.https.hsts', managers: ['kustomize-controller'] }]);
    // A settings object git declares empty is not: the API may drop it once it has emptied it.
    const https: App = {
      ...current,
      metadata: { ...current.metadata, managedFields: [{ manager: 'kustomize-controller', operation: 'Apply', fieldsV1: { 'f:spec': { 'f:https': {} } } }] } as KubeObject['metadata'],
      spec: { https: { hsts: {} } },
    };
    expect(fieldsAppliedByOthers(https, withSpec(https, { https: undefined }), 'cw-api', ['spec.https.hsts'])).toEqual([]);
  });

  it('leaves alone what a one-off kubectl apply, an Update, or the writer itself owns', () => {
    for (const current of [applied('kubectl'), applied('kubectl-client-side-apply', 'Update'), applied('argocd-controller', 'Update'), applied('cw-api')]) {
      expect(fieldsAppliedByOthers(current, withSpec(current, { environment: {} }), 'cw-api')).toEqual([]);
    }
  });

  it("counts no more what Flux marks as no longer applied, as kustomize-controller reads its marks; another tool's apply still counts", () => {
    const marked = (manager: string, kind: 'labels' | 'annotations', key: string, value: string, fluxAppliedIt = false): App => {
      const object = applied(manager);
      const fields = (object.metadata as { managedFields: { fieldsV1: Record<string, object> }[] }).managedFields[0]!.fieldsV1;
      if (fluxAppliedIt) fields['f:metadata'] = { [`f:${kind}`]: { [`f:${key}`]: {} } };
      object.metadata = { ...object.metadata, [kind]: { [key]: value } };
      return object;
    };
    const letGo = [
      marked('kustomize-controller', 'annotations', 'kustomize.toolkit.fluxcd.io/reconcile', 'disabled'),
      marked('kustomize-controller', 'labels', 'kustomize.toolkit.fluxcd.io/reconcile', 'Disabled'),
      marked('kustomize-controller', 'annotations', 'kustomize.toolkit.fluxcd.io/ssa', 'ignore'),
      // IfNotPresent counts only from git (Flux reads it from the desired object): applied by Flux.
      marked('kustomize-controller', 'annotations', 'kustomize.toolkit.fluxcd.io/ssa', 'IfNotPresent', true),
    ];
    for (const object of letGo) {
      expect(fieldsAppliedByOthers(object, withSpec(object, { environment: {} }), 'cw-api')).toEqual([]);
      expect(managersApplying(object, 'cw-api')).toEqual([]);
    }
    const held = [
      marked('kustomize-controller', 'annotations', 'kustomize.toolkit.fluxcd.io/ssa', 'IfNotPresent'), // set by hand: Flux still applies
      marked('kustomize-controller', 'annotations', 'kustomize.toolkit.fluxcd.io/ssa', 'Merge'),
      marked('argocd-controller', 'annotations', 'kustomize.toolkit.fluxcd.io/reconcile', 'disabled'),
    ];
    for (const object of held) expect(managersApplying(object, 'cw-api')).toHaveLength(1);
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
