// `checkpoints/<seq>.json`: the state (refs and live packs) at a seq, so that a reader of an old seq, or of a
// log whose start retention has folded away, need not replay from seq 1. Maintenance writes them; the
// manifest's `checkpoint` points at the newest.
import { encodeJson, Fields, schemaFor } from './json-fields.ts';
import { packRefJson, readPackRef } from './log-entry.ts';
import { CorruptObjectError } from './errors.ts';
import { isOid, isValidRefName, type ObjectFormat } from './refs.ts';
import { seqToString } from './seq.ts';
import { sortRefs, type LivePack, type RepoState } from './state.ts';

export function encodeCheckpoint(repoId: string, state: RepoState): Uint8Array {
  return encodeJson({
    schema: schemaFor(state.packs),
    repoId,
    seq: seqToString(state.seq),
    packs: state.packs.map((p) => ({ ...packRefJson(p), seq: seqToString(p.seq) })),
    refs: Object.fromEntries(sortRefs(state.refs)),
  });
}

/** Decodes the checkpoint at `key`, which must belong to incarnation `repoId` and fold the log to `seq`. */
export function decodeCheckpoint(key: string, bytes: Uint8Array, expect: { repoId: string; seq: number; objectFormat: ObjectFormat }): RepoState {
  const f = Fields.parse(key, bytes);
  if (f.string('repoId') !== expect.repoId) throw new CorruptObjectError(key, 'belongs to another incarnation of the repository');
  const seq = f.seq('seq');
  if (seq !== expect.seq) throw new CorruptObjectError(key, `holds seq ${seq}, not ${expect.seq}`);
  return {
    seq,
    packs: f.array('packs', (p): LivePack => ({ ...readPackRef(p), seq: p.seq('seq') })),
    refs: sortRefs(f.stringMap('refs', (name, oid) => isValidRefName(name) && isOid(oid, expect.objectFormat))),
  };
}
