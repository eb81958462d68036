/**
 * `fn` over `items`, at most `width` at a time (in chunks), answering the results in order: many writes to
 * the apiserver or the object store without opening hundreds of requests at once.
 */
export async function inParallel<T, R>(items: readonly T[], fn: (item: T) => Promise<R>, width = 16): Promise<R[]> {
  const results: R[] = [];
  for (let i = 0; i < items.length; i += width) results.push(...(await Promise.all(items.slice(i, i + width).map(fn))));
  return results;
}
