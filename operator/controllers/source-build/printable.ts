/**
 * `text` as a SourceBuild's status takes it: its messages, commit subject and author refuse control characters
 * (`^[^\x00-\x1F\x7F]*$`), each of which becomes a space. What a build's output names, or a commit says, may hold them.
 */
export function printable(text: string): string {
  return Array.from(text, (c) => (c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f ? ' ' : c)).join('');
}
