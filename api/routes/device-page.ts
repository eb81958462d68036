import { createHash } from 'node:crypto';
import { DEVICE_CODE_LIFETIME_SECONDS } from '../../src/auth/index.ts';
import { PAGE_HEADERS } from './page-headers.ts';

// The verification page of the device flow (`verification_uri`): one self-contained HTML document, no
// external assets. A person signed in to the console (the session cookie) approves as themself: the script
// sends the session's CSRF token, never a credential of its own. Someone not signed in signs in here (a
// password, or the OpenID provider), or pastes an access token with `tokens:write`, sent as a bearer header.
// Approving takes two steps: the page first shows the scopes the device asks for
// (GET /v1/device/requests/{code}), then approves exactly those (RFC 8628 §5.4: a user sent a code by
// someone else must see what they would grant).

const STYLE = `
body { font: 16px/1.5 system-ui, sans-serif; max-width: 40rem; margin: 2rem auto; padding: 0 1rem; color: #1b1b1b; }
label { display: block; margin-top: 1rem; font-weight: 600; }
input { width: 100%; box-sizing: border-box; padding: .5rem; font: inherit; }
#user_code { font-family: ui-monospace, monospace; letter-spacing: .15em; text-transform: uppercase; }
button { margin: 1rem .5rem 0 0; padding: .5rem 1.25rem; font: inherit; cursor: pointer; }
pre { background: #f3f3f3; padding: .75rem; overflow-x: auto; font-size: 14px; }
#out, #signin-out { min-height: 1.5em; font-weight: 600; }
fieldset { border: 1px solid #ccc; padding: 0 1rem 1rem; margin-top: 1rem; }
`;

const SCRIPT = `
const form = document.getElementById('f');
const signin = document.getElementById('signin');
const who = document.getElementById('who');
// The console session's CSRF token once signed in; null while the page works with a pasted token.
let csrf = null;
const signedIn = (userId, token) => {
  csrf = token;
  signin.hidden = true;
  form.token.required = false;
  document.getElementById('token-field').hidden = true;
  who.textContent = 'Signed in as ' + userId + '.';
};
fetch('v1/session').then(async (res) => {
  if (res.ok) { const { session } = await res.json(); signedIn(session.user_id, session.csrf_token); return; }
  signin.hidden = false;
  const methods = await (await fetch('v1/session/methods')).json().catch(() => ({}));
  if (methods.openid) {
    const link = document.getElementById('openid');
    link.href = methods.openid.url + '?return_to=' + encodeURIComponent(location.pathname + '?user_code=' + encodeURIComponent(form.user_code.value.trim()));
    link.textContent = 'Sign in with ' + methods.openid.name;
    link.hidden = false;
  }
}).catch(() => { signin.hidden = false; });
signin.addEventListener('submit', async (event) => {
  event.preventDefault();
  const status = document.getElementById('signin-out');
  const res = await fetch('v1/session', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user: signin.user.value.trim(), password: signin.password.value }) });
  signin.password.value = '';
  if (!res.ok) { const problem = await res.json().catch(() => ({})); status.textContent = problem.detail || 'The server answered ' + res.status + '.'; return; }
  const { session } = await res.json();
  status.textContent = '';
  signedIn(session.user_id, session.csrf_token);
});
const out = document.getElementById('out');
const review = document.getElementById('review');
const approve = document.getElementById('approve');
for (const el of document.querySelectorAll('[data-origin]')) el.textContent = new URL('.', location.href).href.replace(/\\/$/, '');
// What was reviewed: approving sends these scopes, and the server refuses a request that asks for others.
let reviewed = null;
const forget = () => { reviewed = null; review.hidden = true; approve.textContent = 'Review the request'; };
form.user_code.addEventListener('input', forget);
const call = (method, path, body) => fetch(path, {
  method,
  headers: csrf ? { 'content-type': 'application/json', 'x-csrf-token': csrf } : { 'content-type': 'application/json', authorization: 'Bearer ' + form.token.value.trim() },
  body: body && JSON.stringify(body),
});
const explain = async (res) => {
  const problem = await res.json().catch(() => ({}));
  out.textContent = problem.detail || 'The server answered ' + res.status + '.';
};
form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const deny = event.submitter && event.submitter.value === 'deny';
  out.textContent = 'Sending…';
  try {
    if (!deny && reviewed === null) {
      const res = await call('GET', 'v1/device/requests/' + encodeURIComponent(form.user_code.value.trim()));
      if (res.status !== 200) return await explain(res);
      const { device_request: request } = await res.json();
      reviewed = request.scopes;
      const list = document.getElementById('scopes');
      list.replaceChildren(...request.scopes.map((scope) => Object.assign(document.createElement('li'), { textContent: scope })));
      document.getElementById('expires').textContent = new Date(request.expires_at).toLocaleString();
      review.hidden = false;
      approve.textContent = 'Approve these scopes';
      out.textContent = 'Check the scopes below, then approve, or deny.';
      return;
    }
    const res = deny
      ? await call('POST', 'v1/device/deny', { user_code: form.user_code.value })
      : await call('POST', 'v1/device/approve', { user_code: form.user_code.value, scopes: reviewed });
    if (res.status !== 204) return await explain(res);
    form.token.value = '';
    forget();
    out.textContent = deny ? 'Denied. The device will not get a token.' : 'Approved. Return to your device: it signs in within a few seconds.';
  } catch {
    out.textContent = 'Could not reach the server; try again.';
  }
});
`;

const hashOf = (text: string): string => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/** Response headers of the page: only its own inline script and style run; it cannot be framed (clickjacking). */
export const DEVICE_PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': [
    "default-src 'none'",
    `script-src ${hashOf(SCRIPT)}`,
    `style-src ${hashOf(STYLE)}`,
    "connect-src 'self'",
    "form-action 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; '),
  ...PAGE_HEADERS,
  'cache-control': 'no-store',
};

/** The page, with `userCode` (from `verification_uri_complete`) filled in. */
export function devicePage(userCode: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Approve a device sign-in · Cloudwright</title>
<style>${STYLE}</style>
</head>
<body>
<h1>Approve a device sign-in</h1>
<p>A device or command-line tool (for example <code>cw login</code>) is showing you a code. Approving it gives
that device an access token that acts as you, with the scopes it asked for, which you review before approving.
<strong>If you did not start this sign-in yourself, deny it.</strong></p>
<p id="who" role="status"></p>
<form id="signin" hidden>
<fieldset>
<legend>Sign in</legend>
<label for="signin-user">User</label>
<input id="signin-user" name="user" autocomplete="username" required>
<label for="signin-password">Password</label>
<input id="signin-password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
<a id="openid" hidden></a>
<p id="signin-out" role="status"></p>
</fieldset>
</form>
<form id="f" autocomplete="off">
<label for="user_code">Code shown on the device</label>
<input id="user_code" name="user_code" value="${escapeHtml(userCode)}" placeholder="XXXX-XXXX" maxlength="32" required>
<div id="token-field">
<label for="token">Or, without signing in: your access token (<code>cwt_…</code> with the <code>tokens:write</code> scope)</label>
<input id="token" name="token" type="password" placeholder="cwt_…" required>
</div>
<div id="review" hidden>
<p>The device asks for these scopes; the token it gets carries exactly these (never more than you hold):</p>
<ul id="scopes"></ul>
<p>This request can be answered until <span id="expires"></span>.</p>
</div>
<button id="approve" type="submit" value="approve">Review the request</button>
<button type="submit" value="deny">Deny</button>
</form>
<p id="out" role="status"></p>
<h2>From a terminal</h2>
<pre tabindex="0" aria-label="The same from a terminal">curl <span data-origin>$CW_API_URL</span>/v1/device/requests/XXXX-XXXX -H "Authorization: Bearer $CW_TOKEN"
curl -X POST <span data-origin>$CW_API_URL</span>/v1/device/approve \\
  -H "Authorization: Bearer $CW_TOKEN" -H 'content-type: application/json' \\
  -d '{"user_code": "XXXX-XXXX", "scopes": ["…the scopes the first call showed…"]}'</pre>
<p>Use <code>/v1/device/deny</code> to refuse. The code expires ${DEVICE_CODE_LIFETIME_SECONDS / 60} minutes after the device asked for it.</p>
<script>${SCRIPT}</script>
</body>
</html>
`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
