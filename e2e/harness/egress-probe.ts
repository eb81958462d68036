// A tenant's app that tries to reach what it should not: `GET /?url=<target>` fetches the target from inside
// the app's isolate and answers whether it got through. workerd shows the app only "internal error; reference
// = <id>" for a refused connection and logs the reason under that id: `refusalReason` finds it in the
// runtime's log, so a test tells workerd's network filter ("connecting to … is not allowed") apart from a
// target that is merely down or a name that does not resolve.

/** The app's code: `{ reached: true, status }`, or `{ reached: false, error }` with workerd's message. */
export const EGRESS_PROBE_WORKER = `export default {
  async fetch(request) {
    const target = new URL(request.url).searchParams.get('url');
    if (!target) return new Response('probe ok');
    try {
      const res = await fetch(target, { redirect: 'manual' });
      return Response.json({ reached: true, status: res.status });
    } catch (err) {
      return Response.json({ reached: false, error: String(err) });
    }
  },
};
`;

export interface ProbeAnswer {
  reached: boolean;
  status?: number;
  error?: string;
}

/** The reference workerd gave the app for an error it does not show it. */
export function errorReference(answer: ProbeAnswer): string | undefined {
  return /reference = (\w+)/.exec(answer.error ?? '')?.[1];
}

/**
 * What workerd logged for `reference`: its error line (`error: e = … failed: <reason>`) is the last one before
 * the line naming the reference (`wdErrId = <reference>`); undefined while the log does not hold it yet, and for
 * no reference at all (an error workerd shows the app, such as `Network connection lost.`, has none: an empty
 * one matched the first refusal of any other URL, so a fetch never refused passed for refused, found in
 * review-183).
 */
export function refusalReason(log: string, reference: string | undefined): string | undefined {
  if (!reference || !/^\w+$/.test(reference)) return undefined;
  const named = new RegExp(`wdErrId = ${reference}\\b`);
  const lines = log.split('\n');
  const at = lines.findIndex((line) => named.test(line));
  const error = lines.slice(0, Math.max(at, 0)).findLast((line) => line.includes('error: e = '));
  return at < 0 ? undefined : /failed: ([^"]*)/.exec(error ?? '')?.[1];
}
