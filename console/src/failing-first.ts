// The order of the project overview: the app with the highest error ratio of the last hour first, then the
// busiest; apps without traffic (or whose replicas did not answer) after, by name.

interface Traffic {
  readonly requests: number;
  readonly error_ratio: number | null;
}

export function failingFirst<A extends { readonly name: string; readonly traffic?: Traffic }>(apps: readonly A[]): A[] {
  const ratio = (a: A) => a.traffic?.error_ratio ?? -1;
  const requests = (a: A) => a.traffic?.requests ?? -1;
  return [...apps].sort((a, b) => ratio(b) - ratio(a) || requests(b) - requests(a) || a.name.localeCompare(b.name));
}
