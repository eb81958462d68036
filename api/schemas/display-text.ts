/**
 * The pattern of names and descriptions people read in listings (app and project names, token descriptions,
 * user display names): at least one character that is not white space, and none that could hide or disguise
 * text: control characters (C0, DEL, C1), bidirectional overrides and marks (a "U+202E" name reads backwards),
 * and unpaired surrogates (stored as U+FFFD by the apiserver, so the name would change on the way).
 */
export const DISPLAY_TEXT_PATTERN = '^(?=.*\\S)[^\\x00-\\x1F\\x7F-\\x9F\\u061C\\u200E\\u200F\\u202A-\\u202E\\u2066-\\u2069\\uD800-\\uDFFF]*$';

/** What {@link DISPLAY_TEXT_PATTERN} refuses, in words for a schema's description. */
export const DISPLAY_TEXT_RULE = 'not blank; no control characters or bidirectional overrides';
