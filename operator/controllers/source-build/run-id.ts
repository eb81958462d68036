// The id of one run of a SourceBuild: a Job's name in the builds namespace every project shares, and the local
// runner's key. The name and attempt alone would be the same for two projects' `web` builds of one commit (one
// would follow, or stop, the other's Job); the SourceBuild's uid makes it unique to this object, and the name
// stays in front so a Job can be told apart by eye.
import type { SourceBuild } from '../../../src/apis/v1alpha1/source-build.ts';

export function runId(build: SourceBuild): string {
  const { name = '', namespace = '', uid } = build.metadata ?? {};
  // Without a uid (never from the apiserver) the namespace still keeps projects apart.
  return `${name}-${build.status?.attempts ?? 1}-${uid ?? namespace}`;
}
