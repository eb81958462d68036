// The project quota on unpacked builds: what it counts, and its refusals. The figure is the bytes the
// project's apps' active builds unpack to, which is what every runtime replica unpacks and keeps on its disk
// for the project (stored builds kept for rollbacks cost the bucket, compressed, and are bounded per app).
import type { Build } from '../apis/v1alpha1/build.ts';
import { PublicError } from '../errors.ts';

const MIB = 1024 * 1024;

/** What a project's apps' active builds may unpack to together, unless configured otherwise (`CW_PROJECT_UNPACKED_QUOTA`). */
export const DEFAULT_PROJECT_UNPACKED_QUOTA = 256 * MIB;

/** The bytes a build counts for: as measured on upload, else (a Build written by hand) its compressed size. */
export function unpackedSizeOf(build: Build): number {
  return build.spec.unpackedSize ?? build.spec.size;
}

/** One app's active build, as the quota sees it. */
export interface ActiveBuild {
  readonly appId: string;
  readonly buildId: string;
  readonly unpackedBytes: number;
}

/** The bytes the active builds unpack to, leaving out `exceptApp` (whose build a deploy or rollback replaces). */
export function activeUnpackedBytes(active: readonly ActiveBuild[], exceptApp?: string): number {
  return active.reduce((sum, b) => (b.appId === exceptApp ? sum : sum + b.unpackedBytes), 0);
}

/**
 * The project quota refuses a build: 413 when the build alone unpacks to more than the quota (no change to
 * the project would make room), else 409 (the project's other builds leave too little room: deleting apps,
 * or deploying smaller builds to them, does). The detail names the figures.
 */
export class ProjectQuotaError extends PublicError {
  override readonly name = 'ProjectQuotaError';
  readonly quota: number;
  readonly used: number;
  readonly build: number;

  constructor(project: string, figures: { quota: number; used: number; build: number; atLeast: boolean }) {
    const { quota, used, build, atLeast } = figures;
    const size = `${atLeast ? 'at least ' : ''}${build} bytes`;
    super(
      used === 0 || build > quota ? 413 : 409,
      used === 0 || build > quota
        ? `This build unpacks to ${size}, more than project ${project}'s quota of ${quota} bytes of unpacked builds.`
        : `Project ${project}'s other apps' active builds unpack to ${used} bytes and this build to ${size}: together more than the project's quota of ${quota} bytes of unpacked builds. Delete apps, or deploy smaller builds to them, to make room.`,
    );
    this.quota = quota;
    this.used = used;
    this.build = build;
  }
}

/** Throws `ProjectQuotaError` when `build` bytes on top of `used` pass `quota`. */
export function checkProjectQuota(project: string, quota: number, used: number, build: number, atLeast = false): void {
  if (used + build > quota) throw new ProjectQuotaError(project, { quota, used, build, atLeast });
}
