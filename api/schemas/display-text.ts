/** What display text may not hold: C0, DEL, C1, the Arabic letter mark, and bidirectional marks, overrides and isolates. */
const HIDING = '\\x00-\\x1F\\x7F-\\x9F\\u061C\\u200E\\u200F\\u202A-\\u202E\\u2066-\\u2069';

/**
 * The pattern of names and descriptions people read in listings (app and project names, token descriptions,
 * user display names): at least one character that is not white space, and none that could hide or disguise
 * text: control characters (C0, DEL, C1) and bidirectional overrides and marks (a "U+202E" name reads
 * backwards). Unpaired surrogates are refused in any JSON body (app.ts), not here: a pattern naming them
 * cannot be compiled by the regular-expression engines of other languages, so clients and fuzzers that read
 * the document would drop the whole pattern.
 *
 * No lookahead: the pattern was `^(?=.*\S)[^…]*$`, which accepts the same strings (display-text.test.ts compares
 * them), but a generator building strings from a pattern cannot satisfy a lookahead beside a length bound:
 * schemathesis spent some 30 s proving so for each boundary length of each such field, about 100 s of
 * e2e/schemathesis.test.ts. The white space before the first visible character leaves out the line and paragraph
 * separators, as the lookahead's `.` did.
 */
export const DISPLAY_TEXT_PATTERN = `^[^${HIDING}\\S\\u2028\\u2029]*[^${HIDING}\\s][^${HIDING}]*$`;

/** What {@link DISPLAY_TEXT_PATTERN} refuses, in words for a schema's description. */
export const DISPLAY_TEXT_RULE = 'not blank; no control characters or bidirectional overrides';
