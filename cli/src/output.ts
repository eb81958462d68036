// What commands print. Data goes to stdout (JSON for scripts, tables for people); progress and prompts go to
// stderr, so `cw … --json | jq` and `cw … > file` only ever see the data. Colour only reaches a terminal and
// never with NO_COLOR: util.styleText checks the stream and the environment.
import { styleText } from 'node:util';
import Table from 'cli-table3';

type Style = Parameters<typeof styleText>[0];

export function paint(style: Style, text: string, stream: NodeJS.WriteStream = process.stdout): string {
  return styleText(style, text, { stream, validateStream: true });
}

/**
 * Text someone else wrote (an app's log line, which may hold what any client sent it), made harmless for a
 * terminal: control characters (C0 but tab and line feed, DEL, C1: escape sequences that set the title, move the
 * cursor or erase lines) and bidirectional overrides shown as `\xNN` / `\u{NNNN}`; each line after the first
 * indented by `indent`, so a message cannot print a line that looks like another entry.
 */
export function terminalSafe(text: string, indent: string): string {
  return (
    text
      // eslint-disable-next-line no-control-regex -- finding control characters is the point
      .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)
      .replace(/[\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u{${c.charCodeAt(0).toString(16)}}`)
      .replace(/\n/g, `\n${indent}`)
  );
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function println(text = ''): void {
  process.stdout.write(`${text}\n`);
}

/** A line of progress or advice for the person at the terminal (stderr, so data on stdout stays clean). */
export function note(text: string): void {
  process.stderr.write(`${text}\n`);
}

/** `✓ text`, green on a terminal. */
export function success(text: string): void {
  println(`${paint('green', '✓')} ${text}`);
}

export type Cell = string | number | boolean | null | undefined;

/** Borderless aligned columns with a header, as `gh` and `kubectl` print lists. */
export function printTable(head: readonly string[], rows: readonly (readonly Cell[])[], empty = 'Nothing to show.'): void {
  if (rows.length === 0) {
    println(paint('dim', empty));
    return;
  }
  const table = new Table({
    head: head.map((h) => paint('bold', h)),
    chars: {
      top: '',
      'top-mid': '',
      'top-left': '',
      'top-right': '',
      bottom: '',
      'bottom-mid': '',
      'bottom-left': '',
      'bottom-right': '',
      left: '',
      'left-mid': '',
      mid: '',
      'mid-mid': '',
      right: '',
      'right-mid': '',
      middle: '  ',
    },
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0, compact: true },
  });
  for (const row of rows) table.push(row.map(cell));
  println(table.toString().replace(/[ \t]+$/gm, ''));
}

/** `key: value` lines for one resource, keys aligned. */
export function printFields(fields: readonly (readonly [string, Cell])[]): void {
  const width = Math.max(...fields.map(([k]) => k.length));
  for (const [key, value] of fields) println(`${paint('bold', `${key}:`.padEnd(width + 1))} ${cell(value)}`);
}

function cell(value: Cell): string {
  if (value === null || value === undefined || value === '') return '-';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return String(value);
}

/** A byte count for people: 1.2 MB. */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let value = bytes / 1000;
  let unit = 0;
  // Rounded before the unit is settled, so 999,500 B is 1.0 MB rather than 1000 kB.
  const shown = (v: number): string => v.toFixed(Number(v.toFixed(1)) < 10 ? 1 : 0);
  while (Number(shown(value)) >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${shown(value)} ${units[unit]}`;
}

/** How long ago an ISO time was, for people: `3m ago`. */
export function ago(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '-';
  const seconds = Math.round((now - Date.parse(iso)) / 1000);
  if (!Number.isFinite(seconds)) return iso;
  if (seconds < 60) return `${Math.max(seconds, 0)}s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h ago`;
  return `${Math.floor(seconds / 86_400)}d ago`;
}
