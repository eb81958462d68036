// How much of a finished build's log is kept. Each build may log 4 MiB and an app keeps its 20 newest builds, and
// previews are apps: whole logs for all of them would let a project keep gigabytes in the shared bucket, counted by
// no quota (review-162 F9). A build's whole log is what a user reads soon after it ran; of an older one, the end
// (where it failed, what it stored) is what is still read, as CI services keep logs for a while, not for ever.

/** An app's newest finished builds whose logs are kept whole. */
export const FULL_LOGS_PER_APP = 5;

/** Of an older build's log, at most this many bytes of its end are kept (whole chunks: at least its last one). */
export const TRIMMED_LOG_BYTES = 64 * 1024;

/** The line a reader gets where chunks of a log were removed: a trimmed log never reads as if it were whole. */
export const TRIMMED_LOG_NOTICE =
  `[cloudwright] the earlier part of this log was removed: once its app has ${FULL_LOGS_PER_APP} newer finished builds, ` + `a build keeps only the last ${TRIMMED_LOG_BYTES / 1024} KiB of its log\n`;
