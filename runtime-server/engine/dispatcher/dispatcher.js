// The runtime's request path, inside workerd: behind the entry point (Node's strict HTTP parser, which sets
// `X-Forwarded-*` and `X-Request-Id`), this worker picks the app by `Host`, bounds its concurrent requests,
// and calls the app's isolate, loaded on demand with workerd's Worker Loader from the code the runtime
// process hands out (`GET /code/{id}` on its Unix socket). The runtime process steers it over the control
// socket: the routing table, load checks, health, and the per-app request statistics behind `/metrics`.
//
// State is module-level: one isolate serves every request of this workerd process, and JavaScript's single
// thread makes each table swap atomic. No request waits on a promise another request created (workerd
// forbids I/O across requests), so a queued request polls its own flag.
import { WorkerEntrypoint } from 'cloudflare:workers';
import { keyHash } from './key-hash.js';

/**
 * How long a request may wait for a slot, and how often it looks: the first in line every few milliseconds, the
 * others less and less often (up to a tenth of a second), as each look is a wake-up on the shard's one thread.
 */
const QUEUE_TIMEOUT_MS = 10_000;
const QUEUE_POLL_MS = 5;
const QUEUE_POLL_MAX_MS = 100;
/** Upper bounds (ms) of the latency histogram's buckets, as the runtime's `/metrics` reports them. */
const BUCKETS_MS = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000];
/** The tail worker ships log entries at most this often, and sooner once LOG_FLUSH_BYTES are queued. */
const LOG_FLUSH_MS = 50;
const MAX_QUEUED_LOG_ENTRIES = 5000;
/**
 * Log bytes (UTF-8 JSON) the tail worker queues at most, for every app of the shard: a batch holds no more, well under
 * the runtime's bound on one (node-service.ts MAX_LOG_BATCH_BYTES, 16 MiB), past which it drops the batch whole,
 * every app's entries in it (found in review-183: one app's console output lost 59 % of a co-tenant's entries).
 * One app's entries take at most LOG_APP_BYTES of a batch; past either bound, entries are dropped and counted, and
 * the app's followers get a `dropped` event. LOG_FLUSHES_AT_ONCE batches are sent at most at once.
 */
const LOG_FLUSH_BYTES = 1024 * 1024;
const MAX_QUEUED_LOG_BYTES = 4 * 1024 * 1024;
const LOG_APP_BYTES = 512 * 1024;
const LOG_FLUSHES_AT_ONCE = 2;
/** The runtime's LOG_LIMITS (src/runtime-contract/app-logs.ts; log-sink.test.ts checks they agree), applied here before an entry is queued. */
const LOG_LIMITS = { linesPerEntry: 100, messageChars: 8192, urlChars: 2048, stackChars: 4096, entryChars: 32_768 };
/** The request header that forces a release of a rollout (ROLLOUT_BUILD_HEADER), and the affinity cookie's lifetime. */
const ROLLOUT_BUILD_HEADER = 'cw-rollout-build';
const AFFINITY_COOKIE_MAX_AGE = 86400;
/**
 * How many requests of one affinity key a minute count in a rollout's analysis, and how many keys a minute each run
 * of a split tracks (by their hash): whoever sends a key chooses its release, so without a bound one client's flood
 * on one release could abort a good rollout or hide a broken one's errors. Past the keys tracked, that run's keyed
 * requests are served uncounted; each run has its own, so one tenant's keys never stop another's from counting.
 */
const COUNTED_PER_KEY_MINUTE = 5;
const TRACKED_KEYS = 5_000;
/**
 * Builds an app keeps counts of (`s.builds`, a series set each in `/metrics`): its current pair of releases and the
 * latest others, so rollouts to ever new builds grow neither this isolate nor the scrape. The runtime's `BUILDS_KEPT`
 * (request-stats.ts), from the config, so RequestStats keeps as many.
 */
let buildsKept;

/**
 * The routing table the runtime pushes: `hosts` (normalised host → app key) and `apps` (key → `{id, build,
 * limit, depth, assets?, split?}`: the loader id of the app's code and environment, its build, its concurrency
 * limit and queue depth, the binding prefix of its assets service when it has one, and during a rollout the new
 * release served beside it: `{id, build, weight, affinity, tag, assets?}`, weight in hundredths of a percent).
 */
let table;
/** The generation starts with the table of its config (`ROUTES`); later ones arrive over the control socket. */
function routes(env) {
  table ??= env.ROUTES;
  buildsKept ??= env.BUILDS_KEPT;
  return table;
}
/** Per app: requests being served, requests queued, and the statistics. */
const states = new Map();
let loads = 0;

/** Zeroed statistics: answers by status class, latency buckets, their count and sum, exceptions, refusals. */
function newCounts() {
  return { classes: [0, 0, 0, 0, 0], buckets: BUCKETS_MS.map(() => 0), count: 0, sumMs: 0, exceptions: 0, refused: 0 };
}

function state(key) {
  let s = states.get(key);
  if (!s) {
    s = { active: 0, queue: [], ...newCounts() };
    states.set(key, s);
  }
  return s;
}

/** The host of a `Host` header as routed (as src/runtime-contract/hosts.ts): lowercase, no port, no trailing dot. */
function normalizeHost(header) {
  if (!header || header.startsWith('[')) return undefined;
  const colon = header.indexOf(':');
  let host = (colon === -1 ? header : header.slice(0, colon)).toLowerCase();
  if (host.endsWith('.')) host = host.slice(0, -1);
  return host || undefined;
}

function problem(status, title, detail, headers = {}) {
  return new Response(JSON.stringify({ title, status, detail }), { status, headers: { 'content-type': 'application/problem+json', ...headers } });
}

/**
 * A request's claim on a slot of its app: `waiting` in the queue, `active` (holding a slot) or `done`. Slots
 * are freed by `release`, whichever comes first: the app's answer, or the client going away (`request.signal`,
 * for a request workerd cancels before its handler resumes).
 */
function lease(key, app) {
  return { key, app, state: 'new', deadline: 0 };
}

/** The app's limit and queue depth now: a routing table pushed meanwhile may have changed them. */
function limits(l) {
  const app = table.apps[l.key] ?? l.app;
  return { limit: app.limit, depth: app.depth };
}

/**
 * Takes a slot for `l`, waiting in the app's queue (bounded in length and time) when all are taken. The first
 * in line takes a slot as soon as one is free or the limit is raised; it looks every few milliseconds, as
 * workerd forbids resolving one request's promise from another.
 */
async function acquire(s, l) {
  const { limit, depth } = limits(l);
  if (s.active < limit && s.queue.length === 0) {
    s.active += 1;
    l.state = 'active';
    return true;
  }
  if (s.queue.length >= depth) return false;
  l.state = 'waiting';
  l.deadline = Date.now() + QUEUE_TIMEOUT_MS;
  s.queue.push(l);
  let pollMs = QUEUE_POLL_MS;
  for (;;) {
    // Waiters whose time is up, or whose request was cancelled without resuming, leave the line.
    const now = Date.now();
    while (s.queue.length > 0 && (s.queue[0].deadline <= now || s.queue[0].state !== 'waiting')) s.queue.shift().state = 'done';
    if (l.state !== 'waiting') return false;
    if (s.queue[0] === l && s.active < limits(l).limit) {
      s.queue.shift();
      s.active += 1;
      l.state = 'active';
      return true;
    }
    pollMs = s.queue[0] === l ? QUEUE_POLL_MS : Math.min(QUEUE_POLL_MAX_MS, pollMs * 2);
    await scheduler.wait(pollMs);
  }
}

/** Frees `l`'s slot or leaves the queue; idempotent. */
function release(s, l) {
  if (l.state === 'active') s.active -= 1;
  else if (l.state === 'waiting') s.queue.splice(s.queue.indexOf(l), 1);
  l.state = 'done';
}

function record(s, status, ms) {
  s.classes[Math.min(Math.max(Math.floor(status / 100), 1), 5) - 1] += 1;
  s.count += 1;
  s.sumMs += ms;
  for (let i = 0; i < BUCKETS_MS.length; i++) {
    if (ms <= BUCKETS_MS[i]) {
      s.buckets[i] += 1;
      break;
    }
  }
}

/**
 * Which release of a rollout serves `request`: the one `cw-rollout-build` names (`stable`, `canary` or either's
 * build; ignored when it names neither), else the one its affinity key hashes to (`keyHash(key) % 10000 <
 * weight`: a key on the new release stays there as the weight rises), else a random one. `key`: the affinity key
 * the request brought (its counts are bounded); `newKey`: the cookie made for a request that had none (or one the
 * runtime did not sign), to be set on its answer.
 */
async function chooseRelease(request, appKey, app, split, env) {
  const forced = request.headers.get(ROLLOUT_BUILD_HEADER);
  if (forced === 'canary' || (forced === split.build && forced !== app.build)) return { canary: true, forced: true };
  if (forced === 'stable' || forced === app.build) return { canary: false, forced: true };
  const affinity = split.affinity;
  if (affinity.header !== undefined) {
    const key = request.headers.get(affinity.header);
    if (!key) return { canary: Math.random() * 10000 < split.weight };
    return { canary: keyHash(key) % 10000 < split.weight, key };
  }
  const key = cookieValue(request.headers.get('cookie'), affinity.cookie);
  if (key && (await signedByRuntime(env, appKey, key))) return { canary: keyHash(key) % 10000 < split.weight, key };
  const newKey = await signedKey(env, appKey, crypto.randomUUID());
  return { canary: keyHash(newKey) % 10000 < split.weight, newKey };
}

/** The value of cookie `name` in a `Cookie` header, if it is there and not empty. */
function cookieValue(header, name) {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim() || undefined;
  }
  return undefined;
}

/**
 * Affinity cookies are `<random>.<mac>`, the MAC an HMAC-SHA256 of the app and the random part under the runtime's
 * affinity key (every replica's the same), cut to 16 bytes: a client cannot make up a key computed to land on the
 * release it wants, nor bring one another app gave it; it can only keep keys this app gave it.
 */
let hmacKey;
async function macOf(env, appKey, random) {
  // A CryptoKey is no I/O object: made once, it serves every request of the isolate.
  hmacKey ??= await crypto.subtle.importKey('raw', hexBytes(env.AFFINITY_KEY), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await crypto.subtle.sign('HMAC', hmacKey, new TextEncoder().encode(`${appKey}\n${random}`))).subarray(0, 16);
}

async function signedKey(env, appKey, random) {
  return `${random}.${base64url(await macOf(env, appKey, random))}`;
}

async function signedByRuntime(env, appKey, value) {
  const dot = value.lastIndexOf('.');
  if (dot <= 0 || value.length > 200) return false;
  const given = fromBase64url(value.slice(dot + 1));
  if (given === undefined || given.length !== 16) return false;
  return crypto.subtle.timingSafeEqual(given, await macOf(env, appKey, value.slice(0, dot)));
}

function hexBytes(hex) {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

function base64url(bytes) {
  return btoa(String.fromCharCode(...bytes))
    .replaceAll('+', '-')
    .replaceAll('/', '_')
    .replace(/=+$/, '');
}

function fromBase64url(text) {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(text)) return undefined;
  const binary = atob(text.replaceAll('-', '+').replaceAll('_', '/'));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

/** The answer with the affinity cookie set (a WebSocket's handshake is passed on as it is). */
function withAffinityCookie(response, request, name, key) {
  if (response.status === 101) return response;
  const secure = new URL(request.url).protocol === 'https:' ? '; Secure' : '';
  const answer = new Response(response.body, response);
  answer.headers.append('set-cookie', `${name}=${key}; Path=/; Max-Age=${AFFINITY_COOKIE_MAX_AGE}; HttpOnly; SameSite=Lax${secure}`);
  return answer;
}

/**
 * Counts an answer of a rollout: requests and errors (5xx, an uncaught exception included) per release since
 * this pair of releases (`tag`) began, for the replica's report, and the app's statistics per build (`/metrics`).
 * A request that chose its release (`cw-rollout-build`) counts in the statistics only: anyone may send the
 * header, and its answers would let them sway the analysis that promotes or aborts the rollout. One whose
 * affinity key chose it counts a few times a minute per key (`keyCounted`), for the same reason.
 */
function recordRelease(s, appKey, split, choice, build, status, ms, threw) {
  if (s.rollout?.tag !== split.tag) s.rollout = { tag: split.tag, stable: { requests: 0, errors: 0 }, canary: { requests: 0, errors: 0 } };
  if (!choice.forced && (choice.key === undefined || keyCounted(`${appKey} ${split.tag}`, choice.key))) {
    const counts = choice.canary ? s.rollout.canary : s.rollout.stable;
    counts.requests += 1;
    if (status >= 500) counts.errors += 1;
  }
  s.builds ??= {};
  if (!s.builds[build]) {
    s.builds[build] = newCounts();
    trimBuilds(s.builds, [table.apps[appKey]?.build, split.build]);
  }
  if (threw) s.builds[build].exceptions += 1;
  record(s.builds[build], status, ms);
}

/**
 * Lets go of the earliest builds seen but the `current` pair, past `buildsKept`: their series leave `/metrics`, and
 * their answers stay in the app's totals (its series without a build label), which never go back.
 */
function trimBuilds(builds, current) {
  for (const build of Object.keys(builds)) {
    if (Object.keys(builds).length <= buildsKept) return;
    if (!current.includes(build)) delete builds[build];
  }
}

/** Per run of a split (`<app> <tag>`), the counted requests of each affinity key (by its hash) in the current minute. */
let keyMinute = { start: 0, runs: new Map() };

/** Whether a request with affinity key `key` in the split run `run` still counts in its analysis this minute. */
function keyCounted(run, key) {
  const now = Date.now();
  if (now - keyMinute.start >= 60_000) keyMinute = { start: now, runs: new Map() };
  let counts = keyMinute.runs.get(run);
  if (!counts) keyMinute.runs.set(run, (counts = new Map()));
  const tracked = keyHash(key);
  const counted = counts.get(tracked) ?? 0;
  if (counted >= COUNTED_PER_KEY_MINUTE || (counted === 0 && counts.size >= TRACKED_KEYS)) return false;
  counts.set(tracked, counted + 1);
  return true;
}

/** Loader ids this isolate has handed code for: workerd keeps those isolates, so their code is not fetched again. */
const loadedIds = new Set();

/**
 * The app's isolate: loaded once per id (code + environment) and cached by workerd. The code is fetched from
 * the runtime before `LOADER.get`, whose callback then answers at once: with the fetch inside the callback,
 * streamed responses of a freshly loaded isolate sometimes never arrived (workerd 2026-11-17).
 */
function worker(env, exports, key, app) {
  // Loaded before: workerd keeps the isolate under its id, and the callback is not called.
  if (loadedIds.has(app.id)) return env.LOADER.get(app.id, notLoaded).getEntrypoint();
  return firstLoad(env, exports, key, app);
}

/** The runtime would not hand out an app's code now: its problem (`body`) is the answer to give. */
class Refused extends Error {
  constructor(body, retryAfter) {
    super('refused');
    this.body = body;
    this.retryAfter = retryAfter ?? table?.retryAfter ?? '1';
  }

  get response() {
    return new Response(this.body, { status: 503, headers: { 'content-type': 'application/problem+json', 'retry-after': this.retryAfter } });
  }
}

function notLoaded() {
  throw new Error('the isolate is gone');
}

async function firstLoad(env, exports, key, app) {
  const res = await env.RUNTIME.fetch(`http://runtime/code/${encodeURIComponent(app.codeId ?? app.id)}`);
  // Not now (the project's startup budget): the client is told so, as the runtime words it.
  if (res.status === 503) throw new Refused(await res.text(), res.headers.get('retry-after'));
  if (!res.ok) throw new Error(`the runtime has no code for ${app.id}: ${await res.text()}`);
  const code = await res.json();
  const stub = env.LOADER.get(app.id, () => {
    loads += 1;
    const modules = {};
    for (const [name, module] of Object.entries(code.modules)) {
      const [type, value] = Object.entries(module)[0];
      modules[name] = type === 'wasm' || type === 'data' ? { [type]: Uint8Array.from(atob(value), (c) => c.charCodeAt(0)).buffer } : { [type]: value };
    }
    const assets = app.assets ? { ASSETS: env[`${app.assets}_ASSETS`] } : {};
    return {
      compatibilityDate: code.compatibilityDate,
      compatibilityFlags: code.compatibilityFlags,
      mainModule: code.mainModule,
      modules,
      env: { ...code.env, ...assets },
      // Only while someone follows the app's logs: a tail invocation costs every request.
      ...(app.tailed ? { tails: [exports.AppTail({ props: { app: key, build: app.build } })] } : {}),
    };
  });
  loadedIds.add(app.id);
  return stub.getEntrypoint();
}

/** Serves one request of the app `key` (already counted against its limit) by its assets service or its isolate. */
async function serve(env, exports, key, app, request) {
  if (app.assets) return env[`${app.assets}_ROUTER`].fetch(request);
  const entrypoint = worker(env, exports, key, app);
  return (entrypoint instanceof Promise ? await entrypoint : entrypoint).fetch(request);
}

export default {
  async fetch(request, env, ctx) {
    // The control socket marks its requests in `cf` (its `cfBlobHeader`) with the runtime's secret. The entry socket
    // takes `cf` from a header of its own too, which the entry point always sets to {} whatever the client sent
    // (entry-proxy.ts); the secret holds should that ever fail.
    if (typeof request.cf?.cloudwrightControl === 'string' && request.cf.cloudwrightControl === env.CONTROL_TOKEN) return controlRequest(request, env, ctx);
    routes(env);
    const host = normalizeHost(request.headers.get('host'));
    const key = host === undefined ? undefined : table.hosts[host];
    const app = key === undefined ? undefined : table.apps[key];
    if (!app) return problem(404, 'Not Found', host === undefined ? 'The request names no host.' : `No app is served at host ${JSON.stringify(host)}.`);
    const s = state(key);
    const l = lease(key, app);
    // workerd cancels a request whose client went away, and then nothing after an await below runs.
    request.signal.addEventListener('abort', () => release(s, l));
    if (!(await acquire(s, l))) {
      s.refused += 1;
      record(s, 503, 0);
      return problem(503, 'Service Unavailable', `The app is serving its maximum of ${limits(l).limit} concurrent requests; retry later.`, { 'retry-after': table.retryAfter });
    }
    const started = Date.now();
    const served = table.apps[key] ?? app;
    const split = served.split;
    let target = served;
    let choice;
    if (split) {
      choice = await chooseRelease(request, key, served, split, env);
      if (choice.canary) target = split;
      if (request.headers.has(ROLLOUT_BUILD_HEADER)) {
        request = new Request(request);
        request.headers.delete(ROLLOUT_BUILD_HEADER);
      }
    }
    let response;
    let threw = false;
    let refused = false;
    try {
      response = await serve(env, ctx.exports, key, target, request);
    } catch (err) {
      if (err instanceof Refused) {
        response = err.response;
        refused = true;
      } else {
        // The app threw (its tail has the exception) or could not be loaded: as workerd answers an uncaught exception.
        response = problem(500, 'Internal Server Error', 'The app failed to handle the request.');
        threw = true;
        s.exceptions += 1;
      }
    }
    // A load the runtime refused for now says nothing of the release: not counted for its rollout.
    if (split && !refused) {
      recordRelease(s, key, split, choice, target.build, response.status, Date.now() - started, threw);
      if (choice.newKey) response = withAffinityCookie(response, request, split.affinity.cookie, choice.newKey);
    }
    record(s, response.status, Date.now() - started);
    // The slot is the app's handler: it is free once the response is returned (a WebSocket once it is
    // accepted). The body streams on unwrapped, so workerd keeps its length (Content-Length); wrapping it to
    // hold the slot longer cost a third of the dispatcher's CPU per request and made every response chunked.
    release(s, l);
    return response;
  },
};

/** The runtime process's control socket: routing table, load checks, health and statistics (`/forget`: of apps removed). */
async function controlRequest(request, env, ctx) {
  routes(env);
  {
    const { pathname } = new URL(request.url);
    if (pathname === '/health') return new Response(`ok ${loads}`);
    if (pathname === '/routes' && request.method === 'GET') return Response.json(table);
    if (pathname === '/routes' && request.method === 'PUT') {
      table = await request.json();
      return new Response(null, { status: 204 });
    }
    if (pathname === '/forget' && request.method === 'POST') {
      // Apps removed from the replica: their counts go with them, unless routed here again meanwhile.
      for (const key of (await request.json()).keys) if (!table.apps[key]) states.delete(key);
      return new Response(null, { status: 204 });
    }
    if (pathname === '/probe' && request.method === 'POST') {
      const { key, app } = await request.json();
      // Loads the code (running the module's top level) without calling the app's handlers: a method no app
      // has is a TypeError once loaded; anything else is why it did not load. The runtime asks a throwaway
      // workerd, so a build that never finishes loading blocks nothing that serves.
      const probed = { ...app, assets: undefined };
      try {
        await (await worker(env, ctx.exports, key, probed)).__cloudwrightLoadCheck();
        return Response.json({ loaded: true });
      } catch (err) {
        const message = String(err?.message ?? err);
        if (err instanceof TypeError && message.includes('does not implement the method')) return Response.json({ loaded: true });
        return Response.json({ loaded: false, error: message });
      }
    }
    if (pathname === '/stats') {
      const apps = {};
      for (const [key, s] of states) {
        apps[key] = { active: s.active, queued: s.queue.length, classes: s.classes, buckets: s.buckets, count: s.count, sumMs: s.sumMs, exceptions: s.exceptions, refused: s.refused };
        if (s.rollout) apps[key].rollout = s.rollout;
        if (s.builds) apps[key].builds = s.builds;
      }
      return Response.json({ loads, bucketsMs: BUCKETS_MS, apps });
    }
    return new Response(null, { status: 404 });
  }
}

/** The assets service's user worker (`userWorker`): a request its assets did not answer goes to the app's isolate. */
export class AppWorker extends WorkerEntrypoint {
  fetch(request) {
    const key = this.ctx.props.app;
    const routed = routes(this.env).apps[key];
    // A rollout's new release has an assets service of its own, marked in its props.
    const app = this.ctx.props.canary ? routed?.split : routed;
    if (!app) return problem(404, 'Not Found', 'The app is no longer served here.');
    return Promise.resolve(worker(this.env, this.ctx.exports, key, app)).then(
      (entrypoint) => entrypoint.fetch(request),
      (err) => {
        if (err instanceof Refused) return err.response;
        throw err;
      },
    );
  }
}

// Logs: every app isolate reports to this entrypoint (workerd's tail workers), its key in the props the
// runtime gave it, so an app can neither choose nor read another's. Request headers and `cf` are dropped
// (they can hold secrets); each entry is cut to the runtime's LOG_LIMITS and goes to the runtime in batches,
// bounded in bytes, and in bytes per app (what an app's entries past its share are is counted and sent as
// `{app, dropped}`). The flush timer belongs to the invocation that found none scheduled; a queue past
// LOG_FLUSH_BYTES is sent by the invocation that filled it.
/** Serialized entries (JSON) waiting to be sent; their bytes (UTF-8) in all and per app, and their count per app. */
let logQueue = [];
let logQueueBytes = 0;
let logAppBytes = new Map();
let logAppEntries = new Map();
/** Entries dropped per app (past its share, the queue's bound, or in a batch the runtime did not take), to report. */
let logDropped = new Map();
let flushScheduled = false;
let flushesInFlight = 0;
const utf8 = new TextEncoder();

/** `text` cut to `max` characters (a surrogate pair is not split). */
function cut(text, max) {
  if (text.length <= max) return text;
  const end = /[\uD800-\uDBFF]/.test(text[max - 1] ?? '') ? max - 1 : max;
  return text.slice(0, end);
}

function logText(part) {
  if (typeof part === 'string') return part;
  try {
    return JSON.stringify(part) ?? String(part);
  } catch {
    return String(part);
  }
}

/** A console line's parts joined, no longer than a line may be (later parts past it are not even turned into text). */
function logMessage(message) {
  const parts = Array.isArray(message) ? message : [message];
  let text = '';
  for (let i = 0; i < parts.length && text.length < LOG_LIMITS.messageChars; i++) text += (i > 0 ? ' ' : '') + cut(logText(parts[i]), LOG_LIMITS.messageChars);
  return cut(text, LOG_LIMITS.messageChars);
}

/**
 * The entry the runtime gets for an invocation, cut as log-sink.ts cuts it: exceptions first, then lines, within
 * one budget of characters; `cut` counts what did not fit (the runtime says so in a line of its own).
 */
function logEntry(props, item) {
  const request = item.event?.request;
  const response = item.event?.response;
  let left = LOG_LIMITS.entryChars;
  let dropped = 0;
  const fits = (chars) => {
    if (dropped > 0 || chars > left) {
      dropped += 1;
      return false;
    }
    left -= chars;
    return true;
  };
  const rawExceptions = item.exceptions ?? [];
  const rawLogs = item.logs ?? [];
  const exceptions = [];
  for (const e of rawExceptions.slice(0, LOG_LIMITS.linesPerEntry)) {
    const exception = {
      time: e.timestamp,
      name: cut(String(e.name ?? ''), 256),
      message: cut(String(e.message ?? ''), LOG_LIMITS.messageChars),
      stack: cut(String(e.stack ?? ''), LOG_LIMITS.stackChars),
    };
    if (fits(exception.name.length + exception.message.length + exception.stack.length)) exceptions.push(exception);
  }
  const logs = [];
  for (const l of rawLogs.slice(0, LOG_LIMITS.linesPerEntry)) {
    if (dropped > 0) {
      dropped += 1;
      continue;
    }
    const message = logMessage(l.message);
    if (fits(message.length)) logs.push({ time: l.timestamp, level: l.level, message });
  }
  dropped += Math.max(0, rawExceptions.length - LOG_LIMITS.linesPerEntry) + Math.max(0, rawLogs.length - LOG_LIMITS.linesPerEntry);
  return {
    app: props.app,
    buildId: props.build,
    time: item.eventTimestamp ?? Date.now(),
    outcome: item.outcome ?? 'unknown',
    request: request ? { method: cut(String(request.method ?? ''), 16), url: cut(String(request.url ?? ''), LOG_LIMITS.urlChars) } : undefined,
    // The one header kept: the entry point's request id, which links the entry to its request (and its answer's).
    requestId: typeof request?.headers?.['x-request-id'] === 'string' ? cut(request.headers['x-request-id'], 128) : undefined,
    status: response?.status,
    logs,
    exceptions,
    ...(dropped > 0 ? { cut: dropped } : {}),
  };
}

function countDropped(app, count) {
  logDropped.set(app, (logDropped.get(app) ?? 0) + count);
}

/** Queues an app's entry, or counts it dropped: past the app's share of a batch, or the queue's bound. */
function queueLog(app, entry) {
  const text = JSON.stringify(entry);
  const bytes = utf8.encode(text).byteLength + 1;
  const mine = logAppBytes.get(app) ?? 0;
  if (mine + bytes > LOG_APP_BYTES || logQueueBytes + bytes > MAX_QUEUED_LOG_BYTES || logQueue.length >= MAX_QUEUED_LOG_ENTRIES) return countDropped(app, 1);
  logQueue.push(text);
  logQueueBytes += bytes;
  logAppBytes.set(app, mine + bytes);
  logAppEntries.set(app, (logAppEntries.get(app) ?? 0) + 1);
}

/** Sends what is queued, with the counts of what was dropped; a batch the runtime did not take counts as dropped. */
async function flushLogs(env) {
  if (flushesInFlight >= LOG_FLUSHES_AT_ONCE || (logQueue.length === 0 && logDropped.size === 0)) return;
  const parts = logQueue;
  const entries = logAppEntries;
  const dropped = logDropped;
  logQueue = [];
  logQueueBytes = 0;
  logAppBytes = new Map();
  logAppEntries = new Map();
  logDropped = new Map();
  for (const [app, count] of dropped) parts.push(JSON.stringify({ app, dropped: count }));
  flushesInFlight += 1;
  let taken = false;
  try {
    const res = await env.RUNTIME.fetch('http://runtime/logs', { method: 'POST', body: `[${parts.join(',')}]` });
    taken = res.ok;
    await res.body?.cancel();
  } catch {
    // counted below
  } finally {
    flushesInFlight -= 1;
  }
  if (taken) return;
  // Not taken: its entries are counted against their apps, and the counts it carried are sent again.
  for (const [app, count] of entries) countDropped(app, count);
  for (const [app, count] of dropped) countDropped(app, count);
}

export class AppTail extends WorkerEntrypoint {
  tail(events) {
    const app = this.ctx.props.app;
    // Requests only: the runtime's load check of an isolate is an RPC call, not the app's traffic.
    for (const item of events) if (item.event?.request) queueLog(app, logEntry(this.ctx.props, item));
    if (logQueueBytes >= LOG_FLUSH_BYTES && flushesInFlight < LOG_FLUSHES_AT_ONCE) this.ctx.waitUntil(flushLogs(this.env).catch(() => {}));
    if (flushScheduled) return;
    flushScheduled = true;
    this.ctx.waitUntil(
      scheduler
        .wait(LOG_FLUSH_MS)
        .then(async () => {
          flushScheduled = false;
          // Both batches at once still out (a slow runtime): this one goes once one is back.
          for (let i = 0; i < 200 && flushesInFlight >= LOG_FLUSHES_AT_ONCE; i++) await scheduler.wait(LOG_FLUSH_MS);
          await flushLogs(this.env);
        })
        .catch(() => {
          flushScheduled = false;
        }),
    );
  }
}
