// The project's quotas on builds under its apps: what its apps' active builds unpack to (what every runtime
// replica keeps for it) and what its stored builds take in the bucket (past which the oldest are let go).
import { api, ok } from '../api/client.ts';
import { useLoad } from '../ui.tsx';

/** "1,204 of 10,000 bytes": a figure against its quota. */
function against(used: number, quota: number): string {
  return `${used.toLocaleString('en-US')} of ${quota.toLocaleString('en-US')} bytes`;
}

export function ProjectBuildQuotas({ projectId, round }: { projectId: string; round: unknown }) {
  const { data } = useLoad(() => ok(api.GET('/v1/projects/{projectId}', { params: { path: { projectId } } })), [projectId, round]);
  const usage = data?.project.usage;
  const quotas = data?.project.quotas;
  if (!usage || !quotas) return null;
  return (
    <section aria-labelledby="build-quotas">
      <h2 id="build-quotas">Builds</h2>
      <dl>
        <dt>Active builds, unpacked</dt>
        <dd>{against(usage.active_builds_unpacked_bytes, quotas.active_builds_unpacked_bytes)}</dd>
        <dt>Stored builds</dt>
        <dd>{against(usage.stored_builds_bytes, quotas.stored_builds_bytes)}</dd>
      </dl>
      <p class="muted">Past the stored quota the oldest builds no app serves are deleted; a deploy past the unpacked quota is refused.</p>
    </section>
  );
}
