// Annotated tags point at a tag object; what a listing also shows is the object it finally names (a commit,
// usually). The copy's long-lived `git cat-file` answers a whole page in one round trip.
import { objectReaders } from './object-readers.ts';

/** For each of `oids` that is a tag object, the object it peels to; the others are left out. */
export async function peelTags(dir: string, oids: readonly string[]): Promise<Map<string, string>> {
  const peeled = new Map<string, string>();
  if (oids.length === 0) return peeled;
  const targets = await objectReaders.for(dir).info(oids.map((oid) => `${oid}^{}`));
  oids.forEach((oid, i) => {
    const target = targets[i]?.oid;
    // A missing object answers nothing; an object that peels to itself is not a tag.
    if (target !== undefined && target !== oid) peeled.set(oid, target);
  });
  return peeled;
}
