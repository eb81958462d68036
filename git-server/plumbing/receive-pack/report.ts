// The report-status answer of a push (gitprotocol-pack "Report Status", and report-status-v2), wrapped in
// side-band channel 1 when the client asked for side-band-64k.
import { Band, FLUSH, pktLine, sideband } from '../pkt-line.ts';

export type CommandStatus = { readonly ref: string; readonly ok: true } | { readonly ref: string; readonly ok: false; readonly reason: string };

export interface PushReport {
  /** `ok`, or why the pack could not be unpacked (then every command failed). */
  readonly unpack: string;
  readonly commands: readonly CommandStatus[];
}

/** The report-status pkt-lines (v1 and v2 agree on everything we send: we never rename a ref). */
export function reportStatus(report: PushReport): Buffer {
  const lines = [pktLine(`unpack ${oneLine(report.unpack)}\n`)];
  for (const command of report.commands) {
    lines.push(pktLine(command.ok ? `ok ${command.ref}\n` : `ng ${command.ref} ${oneLine(command.reason)}\n`));
  }
  lines.push(FLUSH);
  return Buffer.concat(lines);
}

/** The full response body: the report on band 1 and a closing flush with side-band, else the bare report. */
export function reportBody(report: PushReport, useSideband: boolean, progress: readonly string[] = []): Buffer {
  const status = reportStatus(report);
  if (!useSideband) return status;
  const packets = progress.flatMap((message) => sideband(Band.progress, Buffer.from(`${message}\n`)));
  return Buffer.concat([...packets, ...sideband(Band.data, status), FLUSH]);
}

function oneLine(text: string): string {
  return text.replace(/[\r\n]+/g, ' ').slice(0, 500);
}
