// The receive-pack ref advertisement (smart HTTP, protocol v0: push has no v2). Built from the manifest's refs,
// so a push advertisement never needs the local cache.
import type { ObjectFormat } from '../../../src/repo-store/index.ts';
import { zeroOid } from '../../../src/repo-store/index.ts';
import { FLUSH, pktLine } from '../pkt-line.ts';

export const AGENT = 'cloudwright-git/0.1';

/** What our receive-pack does; git clients use only what both sides list. */
export function receivePackCapabilities(format: ObjectFormat): string[] {
  return ['report-status', 'report-status-v2', 'delete-refs', 'side-band-64k', 'quiet', 'atomic', 'ofs-delta', 'push-options', `object-format=${format}`, `agent=${AGENT}`];
}

/** `# service=…` header, then every ref (capabilities on the first), then a flush. */
export function receivePackAdvertisement(refs: ReadonlyMap<string, string>, format: ObjectFormat): Buffer {
  const capabilities = receivePackCapabilities(format).join(' ');
  const lines: Buffer[] = [pktLine('# service=git-receive-pack\n'), FLUSH];
  if (refs.size === 0) {
    lines.push(pktLine(`${zeroOid(format)} capabilities^{}\0${capabilities}\n`));
  } else {
    let first = true;
    for (const [ref, oid] of refs) {
      lines.push(pktLine(first ? `${oid} ${ref}\0${capabilities}\n` : `${oid} ${ref}\n`));
      first = false;
    }
  }
  lines.push(FLUSH);
  return Buffer.concat(lines);
}
