import { createHash } from 'node:crypto';
import type { RuntimeApp } from '../../../src/apis/v1alpha1/runtime-app.ts';
import { servingView } from '../../../src/runtime-contract/serving-view.ts';

/**
 * When each app last changed in a way a runtime replica acts on (`servingView`: its spec, deletion, and the
 * releases its status names): the resourceVersion a replica's `acted` mark must reach before the reports it
 * leaves out say anything of the app (`impliedReport`). The operator's own status writes of conditions or
 * history are not such changes, so they hold nothing back. An app first seen (the operator's start) counts from
 * its version then: a replica's mark passes it within a heartbeat, even when that version was such a write.
 */
export class ServingChanges {
  /** App key → a digest of its serving view and the version it took it. */
  readonly #changes = new Map<string, { readonly digest: string; readonly version: string }>();

  /** Follows a change of `app` from the cache; `gone`: it left the cache. */
  changed(key: string, app: RuntimeApp | undefined): void {
    const version = app?.metadata?.resourceVersion;
    if (!app || version === undefined) {
      this.#changes.delete(key);
      return;
    }
    const digest = servingDigest(app);
    if (this.#changes.get(key)?.digest !== digest) this.#changes.set(key, { digest, version });
  }

  /** The resourceVersion of the app's latest change a replica acts on; its own version when none was followed. */
  version(key: string, app: RuntimeApp): string | undefined {
    return this.#changes.get(key)?.version ?? app.metadata?.resourceVersion;
  }
}

function servingDigest(app: RuntimeApp): string {
  const view = servingView(app);
  const { resourceVersion: _version, ...metadata } = view.metadata ?? {};
  return createHash('sha256')
    .update(JSON.stringify({ ...view, metadata }))
    .digest('base64url')
    .slice(0, 22);
}
