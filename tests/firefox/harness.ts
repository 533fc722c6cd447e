/**
 * End-to-end harness for Firefox: Debian's firefox-esr driven by puppeteer-core over WebDriver BiDi,
 * with the built add-on (dist/firefox) installed as a temporary add-on; fixture pages come from the
 * same server as the Chromium suite (tests/shared/server.ts). See ../shared/guide/testing-in-firefox.md.
 *
 * Three things BiDi does not do for an extension, and how this file does them:
 * - Extension pages: puppeteer's `page.goto('moz-extension://…')` never resolves (puppeteer-core
 *   25.16 + Firefox 153), so they are opened with a raw `browsingContext.navigate` (this reads the
 *   page's private frame id: puppeteer-core is pinned for it).
 * - The background page: code runs in a control tab (an extension page) against
 *   `browser.runtime.getBackgroundPage()`, which also wakes a suspended background.
 * - Browser internals (suspending the background, private-browsing permission, the console, the
 *   network observer of the privacy test): `script.evaluate` in the browser's chrome scope, which
 *   `--remote-allow-system-access` opens.
 */
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, until } from '../shared/server.js';
import { readResultRows, readStatCounters, resultsSettled, type ResultRow } from '../shared/contract.js';
import { isAllowedConsoleMessage, type ConsoleEntry } from './console-allowlist.js';

export { FIXTURES, ROOT, serve, until, type FixtureServer } from '../shared/server.js';
export type { ResultRow } from '../shared/contract.js';

export const FIREFOX = '/usr/bin/firefox-esr';
export const DIST_FIREFOX = join(ROOT, 'dist/firefox');

/** The add-on id the build gives the Firefox manifest (scripts/manifest.mjs). */
export function geckoId(dist = DIST_FIREFOX): string {
  const m = JSON.parse(readFileSync(join(dist, 'manifest.json'), 'utf8')) as { browser_specific_settings?: { gecko?: { id?: string } } };
  const id = m.browser_specific_settings?.gecko?.id;
  if (!id) throw new Error(`${dist}/manifest.json has no gecko id`);
  return id;
}

export interface FirefoxLaunchOptions {
  /** Let the add-on run in private windows (granted before install, as a user would in about:addons). */
  privateBrowsing?: boolean;
  /** Extra Firefox preferences (written to the profile before start). */
  prefs?: Record<string, unknown>;
  dist?: string;
  /**
   * Runs after the browser started and before the add-on is installed (e.g. a chrome-scope observer, or
   * tabs opened before the install). Leave the first tab alone: it becomes the control tab.
   */
  beforeInstall?: (chrome: <T>(expr: string) => Promise<T>, browser: Browser) => Promise<void>;
  /**
   * Run with a window on this X display (an Xvfb the test started: startXvfb) instead of headless: a
   * headless Firefox keeps a popup's panel whole however small the screen, a real one cuts it at the
   * screen's edge.
   */
  display?: string;
}

/**
 * Starts an X server of this size in screen pixels (Xvfb, Debian's `xvfb`: .ci/run installs it) on a
 * display it picks itself; `stop` ends it.
 */
export async function startXvfb(width: number, height: number): Promise<{ display: string; stop(): void }> {
  const { spawn } = await import('node:child_process');
  const xvfb = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', `${width}x${height}x24`, '-nolisten', 'tcp'], { stdio: ['ignore', 'ignore', 'pipe', 'pipe'] });
  const number = await new Promise<string>((resolve, reject) => {
    let out = '';
    xvfb.stdio[3]!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(out.trim());
    });
    xvfb.on('error', reject);
    xvfb.on('exit', (code) => reject(new Error(`Xvfb exited (${code}) before it was ready: is it installed (apt-get install xvfb)?`)));
  });
  return { display: `:${number}`, stop: () => void xvfb.kill() };
}

export interface FirefoxExtension {
  browser: Browser;
  id: string;
  uuid: string;
  /** Where exported files land (the profile's download folder; no dialog). */
  downloads: string;
  extensionUrl(path: string): string;
  /** A new tab showing an extension page. */
  openExtensionPage(path: string): Promise<Page>;
  /** Navigates an existing tab to an extension page and waits for its load. */
  gotoExtension(page: Page, path: string): Promise<void>;
  /**
   * Evaluates an expression with `bg` (the background page's window), `engine`, `dense` and `debug`
   * (`rereadDebug`) in scope, waking the background if it is suspended. The result travels as JSON.
   */
  bg<T>(expr: string, timeoutMs?: number): Promise<T>;
  /** Evaluates in the browser's chrome scope (privileged); awaits a promise; the result travels as JSON. */
  chrome<T>(expr: string): Promise<T>;
  /** Suspends the background page the way Firefox does when it idles. */
  suspendBackground(): Promise<void>;
  backgroundState(): Promise<string>;
  /** Every console message from Reread (background, extension pages, content scripts) seen so far. */
  consoleEntries(): Promise<ConsoleEntry[]>;
  /** Console errors and warnings from Reread not on the allow list (tests/firefox/console-allowlist.ts). */
  consoleProblems(): Promise<string[]>;
  /** Runs `trigger` and returns the tab it made the browser open, once that tab's URL matches `match`. */
  newTab(trigger: () => Promise<unknown>, match: (url: string) => boolean, timeoutMs?: number): Promise<Page>;
  close(): Promise<void>;
}

interface BidiConnection {
  send(method: string, params: unknown): Promise<{ result: unknown }>;
}

const connectionOf = (browser: Browser) => (browser as unknown as { connection: BidiConnection }).connection;
const frameIdOf = (page: Page) => (page.mainFrame() as unknown as { _id: string })._id;

export async function launchFirefox(opts: FirefoxLaunchOptions = {}): Promise<FirefoxExtension> {
  if (!existsSync(FIREFOX)) throw new Error(`${FIREFOX} not found: apt-get install firefox-esr (see .ci/run)`);
  const dist = opts.dist ?? DIST_FIREFOX;
  if (!existsSync(join(dist, 'manifest.json'))) throw new Error(`${dist} missing: run npm run build`);
  const id = geckoId(dist);
  const uuid = randomUUID();
  const downloads = mkdtempSync(join(tmpdir(), 'reread-fx-downloads-'));
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: FIREFOX,
    headless: !opts.display,
    protocol: 'webDriverBiDi',
    args: ['--remote-allow-system-access'],
    ...(opts.display ? { env: { ...process.env, DISPLAY: opts.display }, defaultViewport: null } : {}),
    extraPrefsFirefox: {
      // Pins the add-on's moz-extension://UUID host for this run.
      'extensions.webextensions.uuids': JSON.stringify({ [id]: uuid }),
      // Exports are saved without a dialog.
      'browser.download.folderList': 2,
      'browser.download.dir': downloads,
      'browser.download.useDownloadDir': true,
      'browser.download.always_ask_before_handling_new_types': false,
      'browser.download.alwaysOpenPanel': false,
      ...opts.prefs,
    },
  });
  const conn = connectionOf(browser);
  let chromeContext: string | null = null;
  const chrome = async <T,>(expr: string): Promise<T> => {
    chromeContext ??= ((await conn.send('browsingContext.getTree', { 'moz:scope': 'chrome' })).result as { contexts: { context: string }[] }).contexts[0]!.context;
    const { result } = (await conn.send('script.evaluate', {
      expression: `(async () => JSON.stringify(await (${expr})))()`,
      target: { context: chromeContext },
      awaitPromise: true,
    })) as { result: { type: string; result?: { value?: string }; exceptionDetails?: { text?: string } } };
    if (result.type === 'exception') throw new Error(`chrome scope: ${result.exceptionDetails?.text ?? 'exception'}`);
    const text = result.result?.value;
    return (text === undefined ? undefined : JSON.parse(text)) as T;
  };
  try {
    if (opts.privateBrowsing) {
      await chrome(`(async () => {
        const { ExtensionPermissions } = ChromeUtils.importESModule('resource://gre/modules/ExtensionPermissions.sys.mjs');
        await ExtensionPermissions.add(${JSON.stringify(id)}, { permissions: ['internal:privateBrowsingAllowed'], origins: [] });
        return true;
      })()`);
    }
    await opts.beforeInstall?.(chrome, browser);
    await browser.installExtension(dist);
  } catch (e) {
    await browser.close();
    throw e;
  }
  const extensionUrl = (path: string) => `moz-extension://${uuid}/${path.replace(/^\//, '')}`;
  const gotoExtension = async (page: Page, path: string) => {
    await conn.send('browsingContext.navigate', { context: frameIdOf(page), url: extensionUrl(path), wait: 'complete' });
  };
  // The control tab: an extension page kept open to reach the background page.
  const control = (await browser.pages())[0] ?? (await browser.newPage());
  await gotoExtension(control, 'popup.html');

  const bgOnce = async <T,>(expr: string, timeoutMs: number): Promise<T> => {
    const code = `(async () => {
      const bg = await browser.runtime.getBackgroundPage();
      for (let i = 0; i < 200 && !bg.reread; i++) await new Promise((r) => setTimeout(r, 50));
      const { engine, dense } = bg.reread;
      const debug = bg.rereadDebug;
      const value = await (${expr});
      return value === undefined ? undefined : JSON.stringify(value);
    })()`;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const text = await Promise.race([
        control.evaluate(code) as Promise<string | undefined>,
        new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('the background page did not answer in time')), timeoutMs))),
      ]);
      return (text === undefined ? undefined : JSON.parse(text)) as T;
    } finally {
      clearTimeout(timer);
    }
  };

  const ext: FirefoxExtension = {
    browser,
    id,
    uuid,
    downloads,
    extensionUrl,
    gotoExtension,
    async openExtensionPage(path) {
      const page = await browser.newPage();
      await gotoExtension(page, path);
      return page;
    },
    async bg<T>(expr: string, timeoutMs = 15_000): Promise<T> {
      // A background suspended while it answers drops the evaluation ("dead object", or no answer):
      // callers pass idempotent code, so it is retried once the background is back.
      for (let attempt = 1; ; attempt++) {
        try {
          return await bgOnce<T>(expr, timeoutMs);
        } catch (e) {
          if (attempt >= 3 || !/dead object|did not answer|context|destroyed|unload/i.test(String(e))) throw e;
        }
      }
    },
    chrome,
    async suspendBackground() {
      await chrome(`ChromeUtils.importESModule('resource://gre/modules/ExtensionParent.sys.mjs').ExtensionParent.DebugUtils.terminateBackgroundScript(${JSON.stringify(id)}).then(() => true)`);
    },
    backgroundState: () => chrome<string>(`String(WebExtensionPolicy.getByID(${JSON.stringify(id)})?.extension?.backgroundState)`),
    consoleEntries: () => readConsole(chrome, id, uuid),
    async consoleProblems() {
      return (await readConsole(chrome, id, uuid))
        .filter((e) => e.level === 'error' || e.level === 'warn')
        .filter((e) => !isAllowedConsoleMessage(e))
        .map((e) => `${e.level} [${e.source}] ${e.message}`);
    },
    async newTab(trigger, match, timeoutMs = 15_000) {
      // Read from the browser itself: puppeteer does not follow a tab to a moz-extension: URL.
      const tabs = async () => ((await conn.send('browsingContext.getTree', { maxDepth: 0 })).result as { contexts: { context: string; url: string }[] }).contexts;
      const before = new Set((await tabs()).map((c) => c.context));
      await trigger();
      const context = await until(async () => (await tabs()).find((c) => !before.has(c.context) && match(c.url))?.context, 'the new tab', timeoutMs);
      const own = async () => (await browser.pages()).find((p) => frameIdOf(p) === context);
      try {
        return await until(own, 'the new tab\'s page', Math.min(timeoutMs, 8_000));
      } catch {
        // Puppeteer had no page for a tab the add-on opened though BiDi listed it (one clean-clone run in
        // four, Chromium's files running beside; never alone): it makes its pages from
        // browsingContext.contextCreated, which it then never saw. The tab's own entry in the tree is
        // handed to it as that event (its scripts run by context id, so the page works from then on).
        const info = ((await conn.send('browsingContext.getTree', { root: context, maxDepth: 0 })).result as { contexts: object[] }).contexts[0];
        if (info) (conn as unknown as { emit(type: string, event: unknown): void }).emit('browsingContext.contextCreated', { parent: null, ...info });
        return until(own, 'the new tab\'s page', timeoutMs);
      }
    },
    async close() {
      await browser.close();
      rmSync(downloads, { recursive: true, force: true });
    },
  };
  return ext;
}

/** The browser console (script errors, CSP reports) and the console API (console.warn/error), Reread's part. */
async function readConsole(chrome: FirefoxExtension['chrome'], id: string, uuid: string): Promise<ConsoleEntry[]> {
  return chrome<ConsoleEntry[]>(`(() => {
    const mine = (s) => typeof s === 'string' && (s.includes(${JSON.stringify(uuid)}) || s.includes(${JSON.stringify(id)}));
    const out = [];
    for (const m of Services.console.getMessageArray()) {
      if (m instanceof Ci.nsIScriptError) {
        if (!mine(m.sourceName) && !mine(m.errorMessage) && !mine(m.stack ? String(m.stack) : '')) continue;
        const level = (m.flags & Ci.nsIScriptError.warningFlag) ? 'warn' : (m.flags & Ci.nsIScriptError.infoFlag) ? 'info' : 'error';
        out.push({ kind: 'script', level, message: m.errorMessage, source: m.sourceName + ':' + m.lineNumber, category: m.category });
      } else if (mine(m.message)) {
        out.push({ kind: 'message', level: 'info', message: m.message, source: '', category: '' });
      }
    }
    const storage = Cc['@mozilla.org/consoleAPI-storage;1'].getService(Ci.nsIConsoleAPIStorage);
    for (const ev of storage.getEvents()) {
      const source = String(ev.filename ?? '');
      if (ev.addonId !== ${JSON.stringify(id)} && !mine(source)) continue;
      const args = Array.from(ev.arguments ?? [], (a) => { try { return typeof a === 'string' ? a : (a && a.message) ? a.name + ': ' + a.message : JSON.stringify(a); } catch { return String(a); } });
      out.push({ kind: 'console', level: ev.level, message: args.join(' '), source: source + ':' + ev.lineNumber, category: 'console-api' });
    }
    return out;
  })()`);
}

/** Opens search.html?… in a new tab and returns the results once the answer for this query is on screen. */
export async function searchPage(ext: FirefoxExtension, params: Record<string, string>, page?: Page): Promise<ResultRow[]> {
  const p = page ?? (await ext.browser.newPage());
  await ext.gotoExtension(p, `search.html?${new URLSearchParams(params).toString()}`);
  await p.waitForFunction(resultsSettled, { timeout: 20_000, polling: 50 });
  const rows = await p.evaluate(readResultRows);
  if (!page) await p.close();
  return rows;
}

/** The options page's counters, read the way a user would. */
export async function readStats(ext: FirefoxExtension, page?: Page): Promise<{ pages: number; chunks: number; pendingEmbeddings: number }> {
  const p = page ?? (await ext.browser.newPage());
  await ext.gotoExtension(p, 'options.html');
  const handle = await p.waitForFunction(readStatCounters, { timeout: 10_000, polling: 50 });
  const stats = (await handle.jsonValue())!;
  if (!page) await p.close();
  return stats;
}

/** Stats straight from the engine (cheaper for polling). */
export function engineStats(ext: FirefoxExtension): Promise<{ pages: number; chunks: number; pendingEmbeddings: number }> {
  return ext.bg('engine.stats()');
}

/**
 * Visits pages one after another in one tab, each kept open until the engine logged its capture, at most
 * `timeoutMs` a page (a page still missing then is left to the caller's assertions). `{ dwellMs }` keeps
 * each page open that long instead: for pages that must NOT be captured (an excluded site). Closing a
 * tab whose capture is still being sent loses it here (puppeteer closes tabs without beforeunload, so the
 * content script's hand-over to the outbox is cut off with the page: "Promise rejected after context
 * unloaded"); a fixed 1.3 s was not always enough on a loaded machine.
 */
export async function visit(ext: FirefoxExtension, urls: string[], opts: { dwellMs?: number; timeoutMs?: number } = {}): Promise<void> {
  const page = await ext.browser.newPage();
  for (const u of urls) {
    const since = Date.now() - 1000;
    await page.goto(u, { waitUntil: 'load' });
    if (opts.dwellMs !== undefined) await new Promise((r) => setTimeout(r, opts.dwellMs));
    else await until(() => ext.bg<boolean>(`engine.captureLog.some((l) => l.url === ${JSON.stringify(u)} && l.at >= ${since})`), `the capture of ${u}`, opts.timeoutMs ?? 20_000, 100).catch(() => undefined);
  }
  await page.close();
}

/**
 * A file in the download folder (an export), once it has finished. Firefox writes a `.part` file first,
 * and sometimes a randomly named file with the final extension that it renames a moment later (seen in
 * CI: the test took `pC6pKJ2F.jsonl`, gone when it was read): a file counts when it is still there, the
 * same size, a quarter of a second later.
 */
export async function downloadedFile(ext: FirefoxExtension, suffix: string): Promise<string> {
  const candidate = () => readdirSync(ext.downloads).find((f) => f.endsWith(suffix) && !f.endsWith('.part') && !readdirSync(ext.downloads).includes(f + '.part'));
  const size = (name: string) => (existsSync(join(ext.downloads, name)) ? statSync(join(ext.downloads, name)).size : -1);
  const name = await until(async () => {
    const f = candidate();
    if (!f) return undefined;
    const before = size(f);
    await new Promise((r) => setTimeout(r, 250));
    return before >= 0 && size(f) === before && candidate() === f ? f : undefined;
  }, `a downloaded *${suffix}`);
  return join(ext.downloads, name);
}
