// Trimming a run of one character off a text's ends, by a loop. A regex such as `/\/+$/` tries again from every
// position of a long run, so it takes quadratic time on a text that ends in a long run followed by anything else;
// the texts trimmed here can come from tenants (paths, Host headers, commit messages).

/** `text` without the run of `char` at its end. */
export function trimTrailing(text: string, char: string): string {
  let end = text.length;
  while (end > 0 && text[end - 1] === char) end--;
  return end === text.length ? text : text.slice(0, end);
}

/** `text` without the runs of `char` at its start and its end. */
export function trimBoth(text: string, char: string): string {
  let start = 0;
  while (start < text.length && text[start] === char) start++;
  return trimTrailing(text.slice(start), char);
}
