import type { ArtifactSource, BuildRef } from '../ports.ts';

/** An `ArtifactSource` over a map of build id → artifact bytes (tests). Counts fetches. */
export class MemoryArtifactSource implements ArtifactSource {
  readonly builds = new Map<string, Uint8Array>();
  fetches = 0;

  put(buildId: string, artifact: Uint8Array): this {
    this.builds.set(buildId, artifact);
    return this;
  }

  async fetch(ref: BuildRef): Promise<Iterable<Uint8Array>> {
    this.fetches += 1;
    const artifact = this.builds.get(ref.buildId);
    if (!artifact) throw new Error(`no such build: ${ref.buildId}`);
    return [artifact];
  }
}
