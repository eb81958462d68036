// A small, hand-picked excerpt of the Public Suffix List (https://publicsuffix.org/list/): names under which
// anyone can register a domain, so a project may not claim the suffix itself. There is no network access at
// build or run time to fetch the full list (about 10,000 rules), so we ship the common ones; every single-label
// name (a top-level domain) is refused by rule and is not listed. docs/dns.md says how to extend the list.

/** Multi-label suffixes from the ICANN section of the list: second-level registries of country-code TLDs. */
const ICANN: readonly string[] = [
  // United Kingdom
  'co.uk', 'org.uk', 'me.uk', 'ltd.uk', 'plc.uk', 'net.uk', 'ac.uk', 'gov.uk', 'sch.uk', 'nhs.uk', 'police.uk',
  // Australia, New Zealand
  'com.au', 'net.au', 'org.au', 'edu.au', 'gov.au', 'id.au', 'asn.au',
  'co.nz', 'net.nz', 'org.nz', 'govt.nz', 'ac.nz', 'geek.nz', 'school.nz',
  // Asia
  'co.jp', 'ne.jp', 'or.jp', 'ac.jp', 'go.jp', 'ad.jp', 'ed.jp', 'gr.jp', 'lg.jp',
  'com.cn', 'net.cn', 'org.cn', 'gov.cn', 'edu.cn', 'ac.cn',
  'com.hk', 'org.hk', 'net.hk', 'edu.hk', 'gov.hk',
  'com.tw', 'org.tw', 'net.tw', 'edu.tw', 'gov.tw',
  'co.kr', 'or.kr', 'ne.kr', 'go.kr', 'ac.kr', 're.kr',
  'com.sg', 'org.sg', 'net.sg', 'edu.sg', 'gov.sg',
  'com.my', 'org.my', 'net.my', 'edu.my', 'gov.my',
  'co.in', 'net.in', 'org.in', 'firm.in', 'gen.in', 'ind.in', 'ac.in', 'edu.in', 'gov.in', 'res.in',
  'co.id', 'or.id', 'ac.id', 'go.id', 'web.id', 'my.id', 'biz.id',
  'co.th', 'in.th', 'ac.th', 'go.th', 'or.th',
  'com.ph', 'net.ph', 'org.ph', 'com.vn', 'net.vn', 'org.vn', 'com.pk', 'net.pk', 'org.pk',
  'co.il', 'org.il', 'net.il', 'ac.il', 'gov.il', 'com.sa', 'net.sa', 'org.sa', 'com.tr', 'net.tr', 'org.tr',
  // Europe
  'co.at', 'or.at', 'gv.at', 'ac.at', 'com.pl', 'net.pl', 'org.pl', 'com.ua', 'org.ua', 'net.ua',
  'com.es', 'org.es', 'nom.es', 'com.pt', 'org.pt', 'com.gr', 'org.gr', 'com.cy', 'com.mt',
  // Americas
  'com.br', 'net.br', 'org.br', 'gov.br', 'edu.br', 'com.mx', 'org.mx', 'net.mx', 'gob.mx',
  'com.ar', 'org.ar', 'net.ar', 'gob.ar', 'com.co', 'org.co', 'net.co', 'com.pe', 'org.pe', 'cl.cl',
  // Africa
  'co.za', 'org.za', 'net.za', 'gov.za', 'ac.za', 'web.za', 'co.ke', 'or.ke', 'ac.ke',
  'com.ng', 'org.ng', 'com.eg', 'org.eg', 'co.tz', 'co.ug',
];

/** From the PRIVATE section: hosting platforms that hand out subdomains to their customers. */
const PRIVATE: readonly string[] = [
  'github.io', 'githubusercontent.com', 'gitlab.io', 'bitbucket.io', 'codeberg.page', 'readthedocs.io',
  'herokuapp.com', 'vercel.app', 'now.sh', 'netlify.app', 'pages.dev', 'workers.dev', 'web.app',
  'firebaseapp.com', 'appspot.com', 'blogspot.com', 'cloudfront.net', 'elasticbeanstalk.com',
  's3.amazonaws.com', 'azurewebsites.net', 'azurestaticapps.net', 'cloudapp.net', 'fly.dev', 'onrender.com',
  'railway.app', 'deno.dev', 'glitch.me', 'repl.co', 'surge.sh', 'ngrok.io', 'ngrok-free.app',
  'digitaloceanspaces.com', 'duckdns.org', 'ddns.net', 'hopto.org', 'eu.org', 'us.org',
];

/** Names a project domain can never be or be under (RFC 6761, RFC 6762, RFC 7686, RFC 8375 and ICANN). */
export const RESERVED_SUFFIXES: readonly string[] = ['localhost', 'local', 'invalid', 'onion', 'arpa', 'internal'];

/** The multi-label public suffixes we know of (see the file comment). */
export const PUBLIC_SUFFIXES: ReadonlySet<string> = new Set([...ICANN, ...PRIVATE]);
