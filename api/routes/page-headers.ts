/** What every HTML page cw-api serves (the console, the device page) sends besides its own CSP: never framed (clickjacking), never sniffed, no referrer. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};
