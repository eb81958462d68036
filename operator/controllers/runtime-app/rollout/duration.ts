// Durations of a rollout policy (`30s`, `5m`, `1h30m`): the CRD's pattern admits them, this reads them.

const UNITS = { h: 3_600_000, m: 60_000, s: 1_000 } as const;

/** Milliseconds of a duration such as `1h30m`; `undefined` for text the CRD's pattern would refuse. */
export function parseDuration(text: string): number | undefined {
  const match = /^(?:(\d{1,5})h)?(?:(\d{1,5})m)?(?:(\d{1,5})s)?$/.exec(text);
  if (!match || text === '') return undefined;
  const [, h, m, s] = match;
  return Number(h ?? 0) * UNITS.h + Number(m ?? 0) * UNITS.m + Number(s ?? 0) * UNITS.s;
}
