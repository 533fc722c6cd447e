/**
 * Nothing leaked, in the real browser.
 *
 * - Network: Chromium runs behind a recording proxy started here (every request line and CONNECT
 *   target is logged; only 127.0.0.1 is forwarded, anything else is refused), with loopback proxied too.
 *   While pages are browsed, captured and embedded, and the popup, results page, omnibox and options are
 *   used, the proxy sees the fixture page loads, the browser's favicon.ico requests for them, and
 *   Chromium's own service calls (which happen the same without the extension); Playwright's request
 *   events show that no extension context (pages, service worker) asks for anything outside the
 *   extension, and Chromium's net log, read at the end, attributes every request to who started it:
 *   none was started by the extension until the user chose a downloadable model (the positive control:
 *   that download is seen, by the proxy and in the net log, and goes to the model hub only).
 * - Senders: a web page cannot reach the extension; a content-script-only message sent from an extension
 *   page is refused; the content script's own world cannot ask for searches or admin actions, and the
 *   page URL it captures is the sender's, never one it claims.
 * - Form fields: values typed into inputs, textareas and editable regions never reach any store.
 * - Model download: a downloadable model chosen without the download allowed fetches nothing; chosen in
 *   the options page (which allows it), it is fetched from the hub and nowhere else.
 * - Browser history: what the user searches for should stay out of Chromium's history (a known bug,
 *   marked `.fails`).
 *
 * Each `.fails` test documents a bug reported with a proposed patch; it passes while the bug is there.
 * Debugging: PRIVACY_KEEP_NETLOG=1 keeps Chromium's net log and prints where.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Page, type Request as PwRequest, type Worker } from 'playwright';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { startRecordingProxy, type ProxyRecord, type RecordingProxy } from '../shared/proxy.js';
import { DIST, engineStats, readStats, searchPage, serve, until, visit, type Extension, type FixtureServer } from './harness.js';

// The recording proxy (shared with the Firefox privacy test): tests/shared/proxy.ts

// ---------------------------------------------------------------------------------------------------
// A launcher like harness.launch, with the proxy flags added.
// (Proposed harness change: `args?: string[]` in LaunchOptions, appended to the launch args; then this
// whole function becomes `launch({ args: proxyArgs(port) })`.)
// ---------------------------------------------------------------------------------------------------

const CHROMIUM = ['/usr/lib/chromium/chromium', '/usr/bin/chromium'].find((p) => existsSync(p));

async function launchBehindProxy(proxyPort: number, netLog: string): Promise<Extension> {
  if (!CHROMIUM) throw new Error('Chromium not found: apt-get install chromium (see .ci/run)');
  if (!existsSync(join(DIST, 'manifest.json'))) throw new Error('dist/chrome missing: run npm run build');
  const profile = mkdtempSync(join(tmpdir(), 'reread-privacy-'));
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    colorScheme: 'light',
    args: [
      // The same flags as harness.launch: they silence the browser's own background services
      // (variations, component updates, sync), never an extension's requests.
      `--disable-extensions-except=${DIST}`,
      `--load-extension=${DIST}`,
      '--no-first-run',
      '--disable-sync',
      '--disable-component-update',
      '--disable-background-networking',
      '--disable-gpu',
      '--no-sandbox',
      // Everything through the recording proxy, loopback included (Chromium bypasses it by default).
      `--proxy-server=http://127.0.0.1:${proxyPort}`,
      '--proxy-bypass-list=<-loopback>',
      // Chromium's own record of every network request and who started it (read after the browser closed).
      `--log-net-log=${netLog}`,
    ],
  });
  const worker: Worker = ctx.serviceWorkers()[0] ?? (await ctx.waitForEvent('serviceworker', { timeout: 30_000 }));
  const extId = new URL(worker.url()).host;
  return {
    ctx,
    extId,
    profile,
    // Playwright stays attached, so the worker never idles out here and this test never stops it.
    sw: async () => worker,
    extensionUrl: (path) => `chrome-extension://${extId}/${path.replace(/^\//, '')}`,
    stopWorker: async () => {
      throw new Error('not used by the privacy test');
    },
    evalSw: <T,>(fn: string) =>
      worker.evaluate(
        `(async () => { for (let i = 0; i < 200 && !globalThis.reread; i++) await new Promise((r) => setTimeout(r, 50)); const { engine, dense } = globalThis.reread; return (${fn}); })()`,
      ) as Promise<T>,
    async close() {
      await ctx.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// What Chromium itself asks for, with the same flags. The net log shows no initiator for any of them
// (the browser started them), and the first three happen just the same in a browser without the
// extension; the spellcheck dictionary is fetched because the test types into a web page's form.
// They go to Google's hosts and are refused by the proxy; none carries anything of Reread's.
// ---------------------------------------------------------------------------------------------------

const BROWSER_SERVICES: { kind: string; hosts: string[]; url: RegExp; why: string }[] = [
  {
    kind: 'component updater',
    hosts: ['update.googleapis.com:443', 'update.googleapis.com:80'],
    url: /^https?:\/\/update\.googleapis\.com\/service\/update2\/json\?/,
    why: 'an on-demand component update check Chromium makes even with --disable-component-update',
  },
  {
    kind: 'Google account check',
    hosts: ['accounts.google.com:443'],
    url: /^https:\/\/accounts\.google\.com\/ListAccounts\?/,
    why: "the account reconcilor's ListAccounts, at start-up and now and then",
  },
  {
    kind: 'autofill predictions',
    hosts: ['content-autofill.googleapis.com:443'],
    url: /^https:\/\/content-autofill\.googleapis\.com\/v1\/pages\//,
    why: 'Autofill asks its server about the forms of the pages loaded',
  },
  {
    kind: 'spellcheck dictionary',
    hosts: ['redirector.gvt1.com:443'],
    url: /^https:\/\/redirector\.gvt1\.com\/edgedl\/chrome\/dict\//,
    why: 'the spellchecker downloads its dictionary once text fields are typed into (the form page)',
  },
];
const BROWSER_SERVICE_HOSTS = new Set(BROWSER_SERVICES.flatMap((s) => s.hosts));
/** The one request the extension may make: the model the user chose, from the hub. */
const MODEL_DOWNLOAD = /^https:\/\/huggingface\.co\/Xenova\/all-MiniLM-L6-v2\//;

interface NetLogRequest {
  url: string;
  method: string;
  /** The origin that started it; undefined when the browser did ("not an origin" in the log). */
  initiator?: string;
}

/** Every network request in a finished Chromium net log, with its initiator. */
function readNetLog(path: string): NetLogRequest[] {
  const log = JSON.parse(readFileSync(path, 'utf8')) as { constants: { logEventTypes: Record<string, number> }; events: { type: number; params?: { url?: string; method?: string; initiator?: string } }[] };
  const start = log.constants.logEventTypes.URL_REQUEST_START_JOB;
  const out: NetLogRequest[] = [];
  for (const e of log.events) {
    if (e.type !== start || !e.params?.url) continue;
    const initiator = e.params.initiator && e.params.initiator !== 'not an origin' ? e.params.initiator : undefined;
    out.push({ url: e.params.url, method: e.params.method ?? '?', ...(initiator ? { initiator } : {}) });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------

let proxy: RecordingProxy;
let server: FixtureServer;
let ext: Extension | undefined;
let extOrigin: string;
let fixtureHost: string;
let netLog: string;
/** Every navigation this file makes to the fixture server, in order (path only). */
const navigations: string[] = [];
/** Every request Playwright reports, with the context that made it. */
const seen: { url: string; from: string }[] = [];

/** Who made a request: 'navigation' for a top-level or frame navigation (the test's or the user's), else the page or worker. */
function origin(r: PwRequest): string {
  try {
    if (r.isNavigationRequest()) return 'navigation';
    const sw = r.serviceWorker();
    if (sw) return sw.url();
    return r.frame().url() || r.frame().page().url();
  } catch {
    return '?';
  }
}

async function goto(page: Page, path: string): Promise<void> {
  navigations.push(path);
  await page.goto(server.url(path), { waitUntil: 'load' });
}

async function browse(paths: string[]): Promise<void> {
  navigations.push(...paths);
  await visit(
    live(),
    paths.map((p) => server.url(p)),
  );
}

function live(): Extension {
  if (!ext) throw new Error('the browser was closed');
  return ext;
}

interface Accounting {
  pages: number;
  favicons: number;
  browser: number;
  unexplained: ProxyRecord[];
}

/**
 * Sorts what the proxy saw: a GET of a page this file navigated to (each navigation accounts for one),
 * the browser's GET /favicon.ico on the fixture server, a connection to one of Chromium's own services
 * (attributed by URL and initiator from the net log at the end), or unexplained.
 */
function accountFor(records: ProxyRecord[]): Accounting {
  const expected = new Map<string, number>();
  for (const p of navigations) expected.set(p, (expected.get(p) ?? 0) + 1);
  const out: Accounting = { pages: 0, favicons: 0, browser: 0, unexplained: [] };
  for (const r of records) {
    const path = r.kind === 'http' && r.target === fixtureHost ? new URL(r.url).pathname : null;
    if (r.method === 'GET' && path && (expected.get(path) ?? 0) > 0) {
      expected.set(path, expected.get(path)! - 1);
      out.pages++;
    } else if (r.method === 'GET' && path === '/favicon.ico') out.favicons++;
    else if (!r.forwarded && BROWSER_SERVICE_HOSTS.has(r.target)) out.browser++;
    else out.unexplained.push(r);
  }
  return out;
}

const FORM_PAGE = `<!doctype html><html lang="en"><head><title>Garden club sign-up</title></head>
<body><main>
<h1>Join the plumbagoline garden club</h1>
<p>The plumbagoline garden club meets every second Sunday to swap cuttings, seeds and advice about climbing plants, shrubs and herbs. Fill in the form below to join; we will never share your details.</p>
<form id="signup" onsubmit="return false">
  <label>Name <input id="name" type="text" autocomplete="off"></label>
  <label>Email <input id="email" type="email" value="prefilledqqvalue@example.invalid"></label>
  <label>Password <input id="pw" type="password"></label>
  <label>Search the club <input id="q" type="search"></label>
  <label>About you <textarea id="notes"></textarea></label>
  <button type="submit">Join</button>
</form>
<h2>Preview of your note</h2>
<div id="notes-preview" class="preview"></div>
<script>
  // A live preview, as Markdown editors draw one: what is typed, rendered outside the form as it is typed.
  const notes = document.getElementById('notes');
  notes.addEventListener('input', () => { document.getElementById('notes-preview').innerHTML = notes.value.split(/\\n\\n+/).map((p) => '<p>' + p.replace(/\\*\\*(.+?)\\*\\*/g, '<b>$1</b>') + '</p>').join(''); });
</script>
<h2>Your note to the club</h2>
<div id="editor" contenteditable="true"><p>Write here.</p></div>
<div id="plain" contenteditable="plaintext-only"></div>
<div id="rich" role="textbox" contenteditable=""></div>
<h2>Meetings</h2>
<p><img src="/hold-load.png" alt="" width="1" height="1">Meetings are held in the old greenhouse behind the library. Bring a labelled pot for every cutting you take home, and a notebook for the plumbagoline pruning calendar.</p>
</main></body></html>`;

/** What a visitor types; none of it may reach a store. */
const TYPED = {
  '#name': 'Zorblatt Quimbyname',
  '#email': 'qvxsecret@mailhostzz.example',
  '#pw': 'Hunter2-Xyzzyplugh!',
  '#q': 'wubbalubbasearch',
  '#notes': 'my diary: **kalamazoofrond** confessions\n\nand the rest of this draft about quixotrellis',
  '#editor': 'snorkelwhatsit private draft',
  '#plain': 'glimmerplaintext',
  '#rich': 'tinderboxrichtext',
} as const;
/** Distinctive stems of the typed words (and of the prefilled value), checked too: the index stores stemmed terms. */
const SECRET_STEMS = ['quixotrel', 'zorblat', 'quimbyn', 'qvxsecr', 'mailhostzz', 'hunter2', 'xyzzypl', 'wubbalub', 'kalamazoof', 'snorkelwh', 'glimmerpl', 'tinderboxr', 'prefilledqq', 'florbnet'];

/**
 * Every record of every store the extension has: all IndexedDB databases (keys and values), extension
 * storage if any (Reread has no `storage` permission, so none), Cache Storage entries.
 */
const DUMP_EVERYTHING = `(async () => {
  const enc = (v) => JSON.stringify(v, (k, x) => (ArrayBuffer.isView(x) ? Array.from(x) : x instanceof ArrayBuffer ? Array.from(new Uint8Array(x)) : x));
  const req = (r) => new Promise((res, rej) => { r.onsuccess = () => res(r.result); r.onerror = () => rej(r.error); });
  const out = [];
  for (const info of await indexedDB.databases()) {
    const db = await req(indexedDB.open(info.name));
    for (const name of db.objectStoreNames) {
      const store = db.transaction(name).objectStore(name);
      const [keys, values] = await Promise.all([req(store.getAllKeys()), req(store.getAll())]);
      out.push('idb ' + info.name + '/' + name + ' ' + enc(keys) + ' ' + enc(values));
    }
    db.close();
  }
  if (chrome.storage?.local) out.push('storage.local ' + enc(await chrome.storage.local.get(null)));
  if (chrome.storage?.session) out.push('storage.session ' + enc(await chrome.storage.session.get(null)));
  for (const name of await caches.keys()) {
    const c = await caches.open(name);
    out.push('cache ' + name + ' ' + enc((await c.keys()).map((r) => r.url)));
  }
  return out.join('\\n');
})()`;

beforeAll(async () => {
  proxy = await startRecordingProxy();
  server = await serve();
  server.routes.set('/form.html', FORM_PAGE);
  fixtureHost = new URL(server.origin).host;
  netLog = join(mkdtempSync(join(tmpdir(), 'reread-netlog-')), 'netlog.json');
  ext = await launchBehindProxy(proxy.port, netLog);
  extOrigin = `chrome-extension://${ext.extId}/`;
  ext.ctx.on('request', (r) => seen.push({ url: r.url(), from: origin(r) }));
});
afterAll(async () => {
  await ext?.close();
  await server?.close();
  await proxy?.close();
  if (netLog && !process.env.PRIVACY_KEEP_NETLOG) rmSync(dirname(netLog), { recursive: true, force: true });
  else if (netLog) console.log('privacy: net log kept at', netLog);
});

/** Whether the offscreen document (Chrome: where the embedding model runs) is open. */
async function offscreenOpen(e: Extension): Promise<boolean> {
  const cdp = await e.ctx.browser()!.newBrowserCDPSession();
  try {
    const { targetInfos } = (await cdp.send('Target.getTargets')) as { targetInfos: { url: string }[] };
    return targetInfos.some((t) => t.url === `chrome-extension://${e.extId}/offscreen.html`);
  } finally {
    await cdp.detach().catch(() => undefined);
  }
}

/** Requests made by extension contexts (its pages and its service worker) for anything not inside the extension. */
const extensionLeaks = () => seen.filter((s) => s.from.startsWith(extOrigin) && !s.url.startsWith(extOrigin) && !/^(data|blob):/.test(s.url));

describe('network', () => {
  it('makes no request of its own while pages are browsed, captured, embedded and searched', async () => {
    const e = live();
    await browse(['/cats.html', '/git-undo.html', '/bread.html']);
    // Capture and the dense lane (transformers.js on files inside the extension) both done.
    await until(async () => {
      const s = await engineStats(e);
      return s.pages === 3 && s.pendingEmbeddings === 0;
    }, 'pages stored and embedded', 120_000, 200);
    const status = await e.evalSw<{ model: string | null; error?: string }>('dense.status()');
    expect(status).toEqual({ model: 'reread/glove-100d' });

    // Results page, both lanes.
    expect((await searchPage(e, { q: 'litter box' }))[0]?.href).toBe(server.url('/cats.html') + '#litter');
    expect((await searchPage(e, { q: 'baking a loaf' })).length).toBeGreaterThan(0);
    const lanes = await e.evalSw<{ lexical: boolean; dense: boolean }>(`engine.search({ q: 'baking a loaf' }).then((r) => r.lanesUsed)`);
    expect(lanes).toEqual({ lexical: true, dense: true });

    // Popup, typed into like a user (result cards show favicons through the browser's own service).
    const popup = await e.ctx.newPage();
    await popup.goto(e.extensionUrl('popup.html'));
    await popup.getByTestId('search-input').pressSequentially('revert commit', { delay: 10 });
    await expect.poll(() => popup.getByTestId('result').count()).toBeGreaterThan(0);
    await popup.waitForFunction(() => !document.querySelector('[data-testid="searching"]'));
    await popup.close();

    // Omnibox: suggestions, and Enter on typed text (opens the results page, an extension page).
    const suggestions = await e.evalSw<unknown[]>(`new Promise((resolve) => chrome.omnibox.onInputChanged.dispatch('sourdough', resolve))`);
    expect(suggestions.length).toBeGreaterThan(0);
    const opened = e.ctx.waitForEvent('page');
    await e.evalSw(`(chrome.omnibox.onInputEntered.dispatch('sourdough starter', 'newForegroundTab'), true)`);
    const tab = await opened;
    await tab.getByTestId('result').first().waitFor();
    await tab.close();

    // Options: status, settings, sites.
    expect((await readStats(e)).pages).toBe(3);
    // Let anything late (a lazy prefetch, a retry) show up before counting.
    await new Promise((r) => setTimeout(r, 1500));

    const count = accountFor(proxy.records);
    expect(count.unexplained).toEqual([]);
    // Exactly one request per page load, and the browser's favicon.ico at most once per page load.
    expect(count.pages).toBe(navigations.length);
    expect(count.favicons).toBeLessThanOrEqual(navigations.length);
    // Everything the fixture server answered came through the proxy (nothing went around it).
    expect(server.requests.length).toBe(count.pages + count.favicons);
    console.log(`privacy: after browsing and searching, the proxy saw ${proxy.records.length} requests: ${count.pages} page loads, ${count.favicons} favicon.ico, ${count.browser} Chromium services (refused)`);

    // Every extension context (pages and service worker) only asked for its own files...
    expect(seen.filter((s) => s.from.startsWith(extOrigin)).length).toBeGreaterThan(0);
    expect(extensionLeaks()).toEqual([]);
    // The dense lane's model runs in the offscreen document, whose requests Playwright does not see; the
    // proxy (nothing unexplained) and the net log at the end (initiators) cover it.
    expect(await offscreenOpen(e)).toBe(true);
    // Navigations went to the fixture pages and the extension's own pages; web pages asked only for themselves.
    expect(seen.filter((s) => s.from === 'navigation' && !s.url.startsWith(server.origin + '/') && !s.url.startsWith(extOrigin))).toEqual([]);
    // A request Playwright reports after its page closed cannot be attributed ('?': the popup's site icon,
    // asked of the browser's own _favicon/ service just as the popup closes); one for a file inside the
    // extension leaves nothing, whoever made it.
    expect(seen.filter((s) => s.from !== 'navigation' && !s.from.startsWith(extOrigin) && !s.url.startsWith(server.origin + '/') && !(s.from === '?' && s.url.startsWith(extOrigin)))).toEqual([]);
  }, 300_000);
});

describe('senders', () => {
  it('a web page cannot reach the extension', async () => {
    const e = live();
    const page = await e.ctx.newPage();
    await goto(page, '/cats.html');
    const probe = await page.evaluate(async (extId) => {
      const c = (globalThis as { chrome?: { runtime?: { sendMessage?: unknown } } }).chrome;
      let fetched = 'no error';
      try {
        await fetch(`chrome-extension://${extId}/manifest.json`);
      } catch (err) {
        fetched = String(err);
      }
      return { runtime: typeof c?.runtime, sendMessage: typeof c?.runtime?.sendMessage, fetched };
    }, e.extId);
    // No externally_connectable: the page's world has no chrome.runtime to send with.
    expect(probe.runtime).toBe('undefined');
    expect(probe.sendMessage).toBe('undefined');
    // No web_accessible_resources: the extension's files cannot be read (nor its presence probed).
    expect(probe.fetched).toMatch(/TypeError/);
    // A page posting protocol-shaped messages to itself reaches nothing (the content script has no window listener).
    await page.evaluate(() => window.postMessage({ type: 'page/capture', payload: { title: 'x', lang: '', blocks: [{ kind: 'text', text: 'postmessageinjectedzz' }] } }, '*'));
    await page.waitForTimeout(1500);
    await page.close();
    expect((await e.evalSw<string>(DUMP_EVERYTHING)).toLowerCase()).not.toContain('postmessageinjectedzz');
  });

  it('refuses content-script messages from an extension page and answers searches there', async () => {
    const e = live();
    const page = await e.ctx.newPage();
    await page.goto(e.extensionUrl('options.html'));
    await page.getByTestId('stat-pages').waitFor();
    type Reply = { ok: boolean; error?: { code: string }; data?: { results?: { url: string }[] } };
    const send = (message: unknown) => page.evaluate((m) => chrome.runtime.sendMessage(m), message) as Promise<Reply>;
    const capture = await send({ type: 'page/capture', payload: { title: 'Forged', lang: 'en', blocks: [{ kind: 'text', text: 'extensionpageforgeryzz text' }] } });
    expect(capture.ok).toBe(false);
    expect(capture.error?.code).toBe('forbidden');
    expect((await send({ type: 'page/check', payload: {} })).error?.code).toBe('forbidden');
    const search = await send({ type: 'search', payload: { q: 'litter' } });
    expect(search.ok).toBe(true);
    expect(search.data?.results?.[0]?.url).toBe(server.url('/cats.html'));
    expect((await send({ type: 'eval', payload: 'alert(1)' })).error?.code).toBe('unknown-type');
    expect((await send({ type: 'search', payload: { q: 42 } })).error?.code).toBe('bad-request');
    expect((await send('search')).error?.code).toBe('bad-request');
    await page.close();
    expect((await e.evalSw<string>(DUMP_EVERYTHING)).toLowerCase()).not.toContain('extensionpageforgeryzz');
  });

  it("the content script's world may only submit its own page: no searches, no admin actions, no claimed URL", async () => {
    const e = live();
    const page = await e.ctx.newPage();
    const cdp = await e.ctx.newCDPSession(page);
    const worlds: { id: number; name: string; origin: string }[] = [];
    cdp.on('Runtime.executionContextCreated', (ev: { context: { id: number; name: string; origin: string } }) => worlds.push(ev.context));
    await cdp.send('Runtime.enable');
    const url = server.url('/git-undo.html');
    const captures = async () => (await e.evalSw<{ url: string }[]>('engine.captureLog')).filter((l) => l.url === url).length;
    const before = await captures();
    await goto(page, '/git-undo.html');
    // Let the content script's own capture of this visit happen first (it would replace the probe's text).
    await until(async () => (await captures()) > before, 'the visit captured');
    // The content script's isolated world carries the extension's origin (or name).
    const world = await until(async () => worlds.find((w) => w.origin.startsWith(extOrigin.slice(0, -1)) || w.name === 'Reread'), "the content script's world");
    const run = async (message: unknown) => {
      const { result, exceptionDetails } = (await cdp.send('Runtime.evaluate', {
        contextId: world.id,
        expression: `chrome.runtime.sendMessage(${JSON.stringify(message)})`,
        awaitPromise: true,
        returnByValue: true,
      })) as { result: { value?: { ok: boolean; error?: { code: string } } }; exceptionDetails?: { text: string } };
      if (exceptionDetails) throw new Error(exceptionDetails.text);
      return result.value!;
    };
    const admin: [string, unknown][] = [
      ['search', { q: 'litter' }],
      ['stats', {}],
      ['sites', {}],
      ['settings/get', {}],
      ['settings/set', { paused: true, excludedSites: [] }],
      ['forget/preview', { scope: { kind: 'all' } }],
      ['forget', { scope: { kind: 'all' } }],
      ['forget/undo', { id: 'abc' }],
      ['forget/pending', {}],
      ['retention/preview', { retentionDays: 1, maxStorageMb: 0 }],
      ['export', { vectors: true }],
      ['export/part', { token: 'abc', part: 0 }],
      ['import/part', { token: null, text: '' }],
      ['import', { token: 'abc' }],
      ['verify', { repair: true }],
      ['open', { url: 'https://example.org/' }],
    ];
    for (const [type, payload] of admin) {
      const reply = await run({ type, payload });
      expect({ type, ok: reply.ok, code: reply.error?.code }).toEqual({ type, ok: false, code: 'forbidden' });
    }
    // A capture claiming another URL is stored under the sender's URL, never the claim.
    const forged = await run({
      type: 'page/capture',
      payload: { url: 'https://bank.example/', pageUrl: 'https://bank.example/', title: 'Claimed', lang: 'en', blocks: [{ kind: 'text', text: 'claimedurlprobezz lives on the page that sent it, not on the page it names' }] },
    });
    expect(forged.ok).toBe(true);
    const hits = await searchPage(e, { q: 'claimedurlprobezz' });
    expect(hits.map((h) => h.href.split('#')[0])).toEqual([server.url('/git-undo.html')]);
    expect(await e.evalSw<string>(DUMP_EVERYTHING)).not.toContain('bank.example');
    // Nothing was paused, exported or deleted by the refused messages.
    const settings = await e.evalSw<{ paused: boolean; excludedSites: string[] }>('engine.settings()');
    expect(settings.paused).toBe(false);
    expect(settings.excludedSites.length).toBeGreaterThan(0);
    expect((await engineStats(e)).pages).toBe(3);
    await cdp.detach();
    await page.close();
  });
});

describe('form fields', () => {
  it('never stores what the visitor typed into inputs, textareas or editable regions', async () => {
    const e = live();
    const page = await e.ctx.newPage();
    // The page's load event (after which the content script captures) waits for this image, which
    // Playwright answers only once everything is typed: the capture sees the filled-in form.
    let release!: () => void;
    const typed = new Promise<void>((r) => (release = r));
    await page.route('**/hold-load.png', async (route) => {
      await typed;
      await route.fulfill({ status: 200, contentType: 'image/png', body: Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64') });
    });
    navigations.push('/form.html');
    await page.goto(server.url('/form.html'), { waitUntil: 'domcontentloaded' });
    for (const [sel, text] of Object.entries(TYPED)) await page.locator(sel).fill(text);
    // The page draws the note back outside the form (its live preview): an echo of the typing, never read.
    expect(await page.locator('#notes-preview').innerText()).toContain('kalamazoofrond confessions');
    const typedAt = Date.now();
    release();
    const url = server.url('/form.html');
    const captures = async () => (await e.evalSw<{ url: string; at: number; outcome: string }[]>('engine.captureLog')).filter((l) => l.url === url);
    await until(async () => (await captures()).length >= 1, 'form page captured');
    // The capture ran after the typing (the content script waits for load plus a settle time).
    expect((await captures())[0]!.at).toBeGreaterThan(typedAt);
    expect((await captures())[0]!.outcome).toBe('new');
    // Typing a lot more into the editor: a large change, but not to what is captured (same content, no new capture).
    await page.locator('#editor').pressSequentially(' florbnet'.repeat(6), { delay: 5 });
    // Then the page adds content of its own: captured again, with all the typed text still in the fields.
    await page.evaluate(() => {
      for (let i = 0; i < 30; i++) document.querySelector('main')!.append(Object.assign(document.createElement('p'), { textContent: `Late news item ${i} about the lateparagraphmarker seed swap.` }));
    });
    await until(async () => (await captures()).length >= 2, 're-capture after the page changed', 15_000);
    // The fields really held the typed text when the page was captured.
    for (const [sel, text] of Object.entries(TYPED)) {
      expect(await page.locator(sel).evaluate((el) => ('value' in el ? (el as HTMLInputElement).value : (el.textContent ?? '')))).toContain(text);
    }
    await page.close();

    const dump = (await e.evalSw<string>(DUMP_EVERYTHING)).toLowerCase();
    // The page's own text is there (the stores were read, the page was kept)...
    expect(dump).toContain('plumbagolin');
    expect(dump).toContain('greenhouse');
    expect(dump).toContain('lateparagraphmarker');
    // ...and nothing typed, whole or as a stem.
    for (const text of Object.values(TYPED)) expect(dump).not.toContain(text.toLowerCase());
    for (const stem of SECRET_STEMS) expect(dump, stem).not.toContain(stem);
    for (const q of ['zorblatt', 'hunter2', 'kalamazoofrond', 'quixotrellis', 'snorkelwhatsit', 'florbnet', 'glimmerplaintext', 'tinderboxrichtext']) {
      expect(await searchPage(e, { q }), q).toEqual([]);
    }
  });
});

describe("the browser's history", () => {
  // Known bug (reported): the omnibox (Enter on typed text), the context menu's "Search Reread for …"
  // and "Related pages" open search.html?q=<the query>, and the results page mirrors every query typed
  // into its address (history.replaceState) and title. Chromium records extension pages, replaceState
  // included, in its history: what the user searches their private index for lands in the browser's
  // history (synced to their Google account when history sync is on, offered back as address-bar
  // suggestions). Remove `.fails` once queries stay out of the address and the title.
  it('keeps what the user searches for out of it', async () => {
    const e = live();
    const opened = e.ctx.waitForEvent('page');
    await e.evalSw(`(chrome.omnibox.onInputEntered.dispatch('zzhistoryprobe sourdough', 'newForegroundTab'), true)`);
    const tab = await opened;
    await tab.waitForLoadState();
    await tab.getByTestId('search-input').waitFor();
    await tab.waitForTimeout(500);
    // And queries typed on the results page itself (mirrored into its address with replaceState,
    // which Chromium records too).
    await tab.getByTestId('search-input').fill('zzhistoryprobe typed words');
    await tab.waitForTimeout(1500);
    await tab.close();
    const page = await e.ctx.newPage();
    await page.goto('chrome://history/?q=zzhistoryprobe');
    // The history page answers with items or with its "no results" message.
    await until(async () => (await page.locator('history-item').count()) > 0 || (await page.getByText(/No search results/i).isVisible()), 'the history search', 10_000);
    // Chromium's history search matches addresses and titles: any item found holds the query.
    const found = await page.locator('history-item').evaluateAll((items) =>
      items.map((item) => {
        const root = item.shadowRoot ?? item;
        return `${root.querySelector('#title')?.textContent ?? ''} ${(root.querySelector('#link') as HTMLAnchorElement | null)?.href ?? ''}`.trim();
      }),
    );
    await page.close();
    expect(found).toEqual([]);
  });
});

describe('network, after everything', () => {
  /** Proxy records before the model tests (all page loads, favicons and Chromium's services). */
  let beforeModel = 0;
  const MINILM = 'Xenova/all-MiniLM-L6-v2';
  const setSettings = async (patch: Record<string, unknown>) => {
    const page = await live().ctx.newPage();
    await page.goto(live().extensionUrl('options.html'));
    const reply = await page.evaluate((p) => chrome.runtime.sendMessage({ type: 'settings/set', payload: p }), patch);
    await page.close();
    expect(reply.ok).toBe(true);
  };

  it('nothing but page loads so far, and a downloadable model chosen without allowing downloads fetches nothing', async () => {
    const e = live();
    const before = accountFor(proxy.records);
    expect(before.unexplained).toEqual([]);
    expect(before.pages).toBe(navigations.length);
    expect(extensionLeaks()).toEqual([]);
    beforeModel = proxy.records.length;
    // There is a backlog to embed for the new model, so the dense lane tries to load it, and stops with an error.
    await setSettings({ model: MINILM, allowModelDownload: false });
    await until(async () => (await e.evalSw<{ error?: string }>('dense.status()')).error, 'the dense lane refusing to download', 15_000);
    await new Promise((r) => setTimeout(r, 1500));
    expect(accountFor(proxy.records.slice(beforeModel)).unexplained).toEqual([]);
    expect(extensionLeaks()).toEqual([]);
  });

  // Known bug (reported): Engine.updateSettings only restarts the dense lane when the model or
  // denseEnabled changes, so allowing the download of the model already chosen does nothing until the
  // next capture. Remove `.fails` once fixed.
  it('allowing the download of the model already chosen starts it', async () => {
    await setSettings({ allowModelDownload: true });
    await until(async () => proxy.records.slice(beforeModel).some((r) => r.target === 'huggingface.co:443'), 'a request for the chosen model', 8_000);
  });

  it('a model download the user asks for is the one request the extension makes (the net log agrees)', async () => {
    const e = live();
    await setSettings({ model: 'reread/glove-100d', allowModelDownload: false });
    await until(async () => (await engineStats(e)).pendingEmbeddings === 0, 'back on the bundled model');
    const n = proxy.records.length;
    expect(accountFor(proxy.records.slice(beforeModel)).unexplained.filter((r) => r.target !== 'huggingface.co:443')).toEqual([]);

    // Positive control: the user picks the downloadable model in the options page (which allows the
    // download). It goes out, to the Hugging Face hub only (refused by the proxy: the hub is unreachable here).
    const page = await e.ctx.newPage();
    await page.goto(e.extensionUrl('options.html'));
    await page.getByTestId('models').getByRole('radio', { name: /MiniLM/ }).check();
    await until(async () => proxy.records.slice(n).some((r) => r.target === 'huggingface.co:443'), 'a request for the chosen model', 30_000);
    await new Promise((r) => setTimeout(r, 1000));
    const after = accountFor(proxy.records.slice(n));
    expect(after.unexplained.length).toBeGreaterThan(0);
    expect(after.unexplained.every((r) => r.kind === 'connect' && r.target === 'huggingface.co:443')).toBe(true);
    // Playwright does not see the offscreen document's requests (Chrome downloads the model there):
    // the proxy above and the net log below are the positive control.
    const leaks = extensionLeaks();
    // On Chrome the model is fetched by the offscreen document that runs it (the worker on Firefox).
    expect(leaks.filter((s) => !((s.from === extOrigin + 'background.js' || s.from === extOrigin + 'offscreen.html') && MODEL_DOWNLOAD.test(s.url)))).toEqual([]);
    await page.close();

    // Chromium's own account of every request, read once the browser has closed.
    const all = proxy.records.length;
    await e.close();
    ext = undefined;
    const requests = readNetLog(netLog).filter((r) => !/^(chrome-extension|data|blob):/.test(r.url));
    const byExtension = requests.filter((r) => r.initiator?.startsWith(extOrigin.slice(0, -1)));
    expect(byExtension.length).toBeGreaterThan(0);
    expect(byExtension.filter((r) => !MODEL_DOWNLOAD.test(r.url))).toEqual([]);
    // Every request to anywhere but the fixture server is the model download or one of Chromium's own services.
    const elsewhere = requests.filter((r) => !r.url.startsWith(server.origin + '/'));
    const unattributed = elsewhere.filter((r) => !MODEL_DOWNLOAD.test(r.url) && !(r.initiator === undefined && BROWSER_SERVICES.some((s) => s.url.test(r.url))));
    expect(unattributed).toEqual([]);
    // And the proxy's foreign connections are all accounted for by those requests.
    const hosts = new Set(elsewhere.map((r) => `${new URL(r.url).hostname}:${new URL(r.url).port || (r.url.startsWith('https:') ? 443 : 80)}`));
    expect(proxy.records.filter((r) => r.target !== fixtureHost && !hosts.has(r.target))).toEqual([]);

    const kinds = new Map<string, number>();
    const add = (k: string) => kinds.set(k, (kinds.get(k) ?? 0) + 1);
    const final = accountFor(proxy.records.slice(0, beforeModel));
    for (const r of requests) {
      if (MODEL_DOWNLOAD.test(r.url)) add('model download the user chose (extension)');
      else if (r.url.startsWith(server.origin + '/')) add(r.url.endsWith('/favicon.ico') ? 'favicon.ico (browser, for the page)' : 'fixture page loads (net log)');
      else add(BROWSER_SERVICES.find((s) => s.url.test(r.url))?.kind + ' (Chromium)');
    }
    console.log(`privacy: the proxy saw ${all} requests (${beforeModel} before the model tests: ${final.pages} page loads, ${final.favicons} favicon.ico, ${final.browser} Chromium services); net log by kind:`, Object.fromEntries(kinds));
  });
});
