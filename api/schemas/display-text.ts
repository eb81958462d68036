/**
 * The pattern of names and descriptions people read in listings (app and project names, token descriptions,
 * user display names): at least one character that is not white space, and none that could hide or disguise
 * text: control characters (C0, DEL, C1) and bidirectional overrides and marks (a "U+202E" name reads
 * backwards). Unpaired surrogates are refused in any JSON body (app.ts), not here: a pattern naming them
 * cannot be compiled by the regular-expression engines of other languages, so clients and fuzzers that read
 * the document would drop the whole pattern.
 */
export const DISPLAY_TEXT_PATTERN = '^(?=.*\\S)[^\\x00-\\x1F\\x7F-\\x9F\\u061C\\u200E\\u200F\\u202A-\\u202E\\u2066-\\u2069]*$';

/** What {@link DISPLAY_TEXT_PATTERN} refuses, in words for a schema's description. */
export const DISPLAY_TEXT_RULE = 'not blank; no control characters or bidirectional overrides';
