/**
 * End-to-end harness: Debian's Chromium with the built extension (dist/chrome) loaded, driven by
 * Playwright; fixture pages served on 127.0.0.1. See ../shared/guide/testing-in-chromium.md.
 */
import { chromium, type BrowserContext, type CDPSession, type Page, type Worker } from 'playwright';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, until } from '../shared/server.js';
import { readResultRows, resultsSettled, type ResultRow } from '../shared/contract.js';

// The page server, polling and paths are shared with the Firefox harness (tests/firefox/harness.ts).
export { FIXTURES, PYTHON_DOCS, ROOT, serve, until, type FixtureServer } from '../shared/server.js';
export type { ResultRow } from '../shared/contract.js';
export const DIST = join(ROOT, 'dist/chrome');
export const ARTIFACTS = join(ROOT, 'tests/e2e/artifacts');

const CHROMIUM = ['/usr/lib/chromium/chromium', '/usr/bin/chromium'].find((p) => existsSync(p));

export interface Extension {
  ctx: BrowserContext;
  extId: string;
  profile: string;
  sw(): Promise<Worker>;
  extensionUrl(path: string): string;
  /** Stops the service worker the way Chrome does when it idles. */
  stopWorker(): Promise<number>;
  /** Evaluates in the service worker against `globalThis.reread` (waking it first if stopped). */
  evalSw<T>(fn: string, attempts?: number): Promise<T>;
  close(opts?: { keepProfile?: boolean }): Promise<void>;
}

export interface LaunchOptions {
  profile?: string;
  /** Extra Local State written before launch (e.g. internal_only_uis_enabled). */
  localState?: Record<string, unknown>;
  colorScheme?: 'light' | 'dark';
  /** Another unpacked build to load (default dist/chrome). */
  dist?: string;
  /**
   * Start the browser without the extension, run this (open tabs, visit pages), then load the extension
   * into the running browser (CDP Extensions.loadUnpacked): what a user who installs it sees.
   */
  beforeLoad?: (ctx: BrowserContext) => Promise<void>;
  /** Extra browser flags (e.g. --host-resolver-rules to serve a named site from 127.0.0.1). */
  args?: string[];
  /** The browser's time zone (TZ for the whole browser, workers included), e.g. 'America/New_York'. */
  timezone?: string;
}

/**
 * dist/chrome without the `unlimitedStorage` permission, copied to a temp folder (same code): Chromium
 * applies a quota lowered with CDP Storage.overrideQuotaForOrigin only to an extension without it.
 */
export function limitedStorageDist(): string {
  if (!existsSync(join(DIST, 'manifest.json'))) throw new Error(`${DIST} missing: run npm run build`);
  const dir = mkdtempSync(join(tmpdir(), 'reread-limited-'));
  cpSync(DIST, dir, { recursive: true });
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { permissions?: string[] };
  manifest.permissions = (manifest.permissions ?? []).filter((p) => p !== 'unlimitedStorage');
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2));
  return dir;
}

/**
 * dist/chrome with `tabs` added, copied to a temp folder (same code): the popup reads the active tab's
 * address through `activeTab`, which Chromium grants only when the user clicks the toolbar button. Tests
 * that open popup.html as a tab grant the same read this way.
 */
export function tabsPermissionDist(): string {
  if (!existsSync(join(DIST, 'manifest.json'))) throw new Error(`${DIST} missing: run npm run build`);
  const dir = mkdtempSync(join(tmpdir(), 'reread-tabs-'));
  cpSync(DIST, dir, { recursive: true });
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { permissions?: string[] };
  manifest.permissions = [...(manifest.permissions ?? []), 'tabs'];
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2));
  return dir;
}

/**
 * dist/chrome with the optional `history` permission listed as required, copied to a temp folder (same
 * code): a headless browser never answers the permission prompt (see the testing guide), so the history
 * import is driven with the permission already granted.
 */
export function historyPermissionDist(): string {
  if (!existsSync(join(DIST, 'manifest.json'))) throw new Error(`${DIST} missing: run npm run build`);
  const dir = mkdtempSync(join(tmpdir(), 'reread-history-'));
  cpSync(DIST, dir, { recursive: true });
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { permissions?: string[]; optional_permissions?: string[] };
  manifest.permissions = [...(manifest.permissions ?? []), 'history'];
  manifest.optional_permissions = (manifest.optional_permissions ?? []).filter((p) => p !== 'history');
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2));
  return dir;
}

export async function launch(opts: LaunchOptions = {}): Promise<Extension> {
  if (!CHROMIUM) throw new Error('Chromium not found: apt-get install chromium (see .ci/run)');
  const dist = opts.dist ?? DIST;
  if (!existsSync(join(dist, 'manifest.json'))) throw new Error(`${dist} missing: run npm run build`);
  const profile = opts.profile ?? mkdtempSync(join(tmpdir(), 'reread-profile-'));
  if (opts.localState) {
    mkdirSync(profile, { recursive: true });
    writeFileSync(join(profile, 'Local State'), JSON.stringify(opts.localState));
  }
  const common = [...(opts.args ?? []), '--no-first-run', '--disable-sync', '--disable-component-update', '--disable-background-networking', '--disable-gpu', '--no-sandbox'];
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    colorScheme: opts.colorScheme ?? 'light',
    ...(opts.timezone ? { env: { ...process.env, TZ: opts.timezone }, timezoneId: opts.timezone } : {}),
    ...(opts.beforeLoad
      ? { ignoreDefaultArgs: ['--disable-extensions'], args: ['--enable-unsafe-extension-debugging', ...common] }
      : { args: [`--disable-extensions-except=${dist}`, `--load-extension=${dist}`, ...common] }),
  });
  if (opts.beforeLoad) {
    await opts.beforeLoad(ctx);
    const cdp = await ctx.browser()!.newBrowserCDPSession();
    await cdp.send('Extensions.loadUnpacked' as never, { path: dist } as never);
    await cdp.detach();
  }
  let worker = ctx.serviceWorkers()[0] ?? (await ctx.waitForEvent('serviceworker', { timeout: 30_000 }));
  const extId = new URL(worker.url()).host;
  const swPrefix = `chrome-extension://${extId}/`;
  const session = () => browserSession(ctx);
  const swTargets = async () => {
    const { targetInfos } = (await (await session()).send('Target.getTargets')) as { targetInfos: { targetId: string; type: string; url: string }[] };
    return targetInfos.filter((t) => t.type === 'service_worker' && t.url.startsWith(swPrefix));
  };
  /**
   * When the worker behind `targetId` started (its performance.timeOrigin), or undefined when it does not
   * answer within 500 ms (stopping, or not started yet). Asks the worker as it is: wakes nothing.
   */
  const startedAt = async (targetId: string): Promise<number | undefined> => {
    const cdp = await session();
    let sessionId: string | undefined;
    let onMessage: ((ev: { sessionId: string; message: string }) => void) | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      ({ sessionId } = (await cdp.send('Target.attachToTarget', { targetId, flatten: false })) as { sessionId: string });
      const reply = new Promise<number | undefined>((resolve) => {
        onMessage = (ev) => {
          if (ev.sessionId !== sessionId) return;
          const msg = JSON.parse(ev.message) as { id?: number; result?: { result?: { value?: unknown } } };
          if (msg.id === 1) resolve(typeof msg.result?.result?.value === 'number' ? msg.result.result.value : undefined);
        };
        cdp.on('Target.receivedMessageFromTarget', onMessage as never);
      });
      await cdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id: 1, method: 'Runtime.evaluate', params: { expression: 'performance.timeOrigin', returnByValue: true } }) });
      return await Promise.race([reply, new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), 500)))]);
    } catch {
      return undefined;
    } finally {
      clearTimeout(timer);
      if (onMessage) cdp.off('Target.receivedMessageFromTarget', onMessage as never);
      if (sessionId) await cdp.send('Target.detachFromTarget', { sessionId }).catch(() => undefined);
    }
  };
  /**
   * A quiet tab of the extension's origin (its manifest.json: no script of ours runs there, so it sends
   * the worker nothing by itself), opened in the background the first time the worker must be woken.
   * A message from it is an extension event, the same wake-up as before (an options page asking for the
   * settings) without opening and rendering a page each time (about 0.1 s instead of 0.7-1 s here).
   */
  let control: Promise<Page> | null = null;
  const controlPage = () =>
    (control ??= (async () => {
      const url = `${swPrefix}manifest.json`;
      // In the background: the tab a test made active stays the active one (the popup reads it).
      await (await session()).send('Target.createTarget', { url, background: true });
      return until(async () => ctx.pages().find((p) => p.url() === url), 'the wake-up tab', 10_000, 20);
    })().catch((e) => {
      control = null;
      throw e;
    }));
  /** Wakes the worker with a message from the quiet tab; resolves once the worker has answered it. */
  const wakeByMessage = async (): Promise<boolean> => {
    const page = await controlPage();
    if (page.isClosed()) {
      control = null;
      return false;
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const answered = page.evaluate(() => chrome.runtime.sendMessage({ type: 'settings/get', payload: {} }).then((r: { ok?: boolean } | undefined) => !!r?.ok));
    answered.catch(() => undefined);
    return Promise.race([answered, new Promise<boolean>((r) => (timer = setTimeout(() => r(false), 10_000)))]).finally(() => clearTimeout(timer));
  };
  const ext: Extension = {
    ctx,
    extId,
    profile,
    async sw() {
      // Wake the worker if it was stopped: any extension event does.
      if (!(await workerRunning(ctx, extId))) {
        const woke = await wakeByMessage().catch(() => false);
        if (!woke) {
          // The old way, should the quiet tab fail: the options page asks the worker for its settings;
          // once it shows them, the worker is up.
          // Twice: a clean-clone CI run (load 12) saw a just-launched browser's worker not answer the first
          // options page within 30 s (snippets.test.ts's first evaluation, 2026-12-07).
          const p = await ctx.newPage();
          try {
            for (let attempt = 1; ; attempt++) {
              await p.goto(`chrome-extension://${extId}/options.html`);
              const up = await p.getByTestId('stat-pages').waitFor({ timeout: 30_000 }).then(() => true, (e: unknown) => (attempt < 2 ? false : Promise.reject(e)));
              if (up) break;
            }
          } finally {
            await p.close();
          }
        }
      }
      // After a restart Playwright may keep the old Worker object or announce a new one: take the newest.
      const all = ctx.serviceWorkers().filter((w) => w.url().includes(extId));
      worker = all[all.length - 1] ?? worker;
      return worker;
    },
    extensionUrl: (path) => `chrome-extension://${extId}/${path.replace(/^\//, '')}`,
    async stopWorker() {
      const cdp = await session();
      const targets = await swTargets();
      if (!targets.length) return 0;
      // A worker that has an event waiting is started again at once, under the same target id, and Chrome
      // then reports no destruction: its start time (performance.timeOrigin) tells the new worker from the
      // old. Before, such a stop (most of those while pages were being captured) waited out the 5 s below.
      const origins = new Map<string, number | undefined>();
      for (const t of targets) origins.set(t.targetId, await startedAt(t.targetId));
      // closeTarget answers before the worker is gone: an evaluation sent at once could still land in the
      // dying worker (a CI run set a test's hold there, and the next worker never saw it). Wait for each
      // closed target's destruction, its absence from the list, or a new start under its id, up to 5 s.
      const gone = new Set<string>();
      const onDestroyed = (ev: { targetId: string }) => gone.add(ev.targetId);
      cdp.on('Target.targetDestroyed', onDestroyed as never);
      try {
        for (const t of targets) await cdp.send('Target.closeTarget', { targetId: t.targetId });
        const until5s = Date.now() + 5000;
        for (let i = 0; Date.now() < until5s && targets.some((t) => !gone.has(t.targetId)); i++) {
          const listed = new Set((await swTargets()).map((t) => t.targetId));
          for (const t of targets) {
            if (gone.has(t.targetId)) continue;
            if (!listed.has(t.targetId)) gone.add(t.targetId);
            // Every fourth round (about 0.2 s): asking a worker that is still stopping would only wait.
            else if (i % 4 === 3 && origins.get(t.targetId) !== undefined) {
              const now = await startedAt(t.targetId);
              if (now !== undefined && now !== origins.get(t.targetId)) gone.add(t.targetId);
            }
          }
          if (targets.some((t) => !gone.has(t.targetId))) await new Promise((r) => setTimeout(r, 50));
        }
      } finally {
        cdp.off('Target.targetDestroyed', onDestroyed as never);
      }
      return targets.length;
    },
    async evalSw<T>(fn: string, attempts = 3): Promise<T> {
      // Straight CDP rather than Playwright's Worker object, which can go stale (and hang) after the
      // worker has been stopped and restarted more than once.
      // The target can be listed before the worker's module has run: wait for its globals.
      const code = `(async () => { for (let i = 0; i < 200 && !globalThis.reread; i++) await new Promise((r) => setTimeout(r, 50)); const { engine, dense } = globalThis.reread; return (${fn}); })()`;
      const dbg = (m: string) => process.env.HARNESS_DEBUG && console.log('evalSw:', m);
      // A worker caught while starting can drop the first evaluation: retry (callers pass idempotent code).
      for (let attempt = 1; ; attempt++) {
        try {
          return await evalOnce();
        } catch (e) {
          // "setTimeout is not defined": the very first evaluation after a launch can land in the
          // worker's context before its global scope is set up (reported as a flake): retry that too.
          if (attempt >= attempts || !/did not answer|did not start|setTimeout is not defined/.test(String(e))) throw e;
          if (/setTimeout is not defined/.test(String(e))) await new Promise((r) => setTimeout(r, 200));
          dbg(`retrying after: ${String(e)}`);
        }
      }
      async function evalOnce(): Promise<T> {
      dbg('waking');
      await ext.sw();
      dbg('awake');
      // One browser session for the whole launch (opening one per call cost round trips each time);
      // each evaluation attaches to the worker and detaches again, and removes its listeners.
      const cdp = await session();
      let target: { targetId: string } | undefined;
      for (let i = 0; i < 100 && !target; i++) {
        target = (await swTargets())[0];
        if (!target) {
          if (i % 20 === 19) await ext.sw();
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      if (!target) throw new Error('service worker did not start');
      dbg('attaching');
      const { sessionId } = (await cdp.send('Target.attachToTarget', { targetId: target.targetId, flatten: false })) as { sessionId: string };
      let onMessage: ((ev: { sessionId: string; message: string }) => void) | undefined;
      let onDetached: ((ev: { sessionId?: string }) => void) | undefined;
      let onDestroyed: ((ev: { targetId: string }) => void) | undefined;
      let timer: ReturnType<typeof setTimeout> | undefined;
      let poll: ReturnType<typeof setInterval> | undefined;
      try {
        const reply = new Promise<{ result?: { result: { value?: unknown; description?: string }; exceptionDetails?: { exception?: { description?: string }; text: string } } }>((resolve) => {
          onMessage = (ev) => {
            if (ev.sessionId !== sessionId) return;
            const msg = JSON.parse(ev.message) as { id?: number };
            if (msg.id === 1) resolve(msg as never);
          };
          cdp.on('Target.receivedMessageFromTarget', onMessage as never);
        });
        // A worker stopped while it evaluates never answers: fail at once (callers retry) rather than at the
        // timeout. The stop does not always detach this session (the worker keeps its target id across a
        // restart), so the target's destruction counts too, and so does its absence from the target list
        // (checked every 250 ms): before, such evaluations waited out the 15 s timeout.
        const stopped = new Promise<never>((_, reject) => {
          const fail = () => reject(new Error('the service worker stopped and did not answer'));
          onDetached = (ev) => {
            if (ev.sessionId === sessionId) fail();
          };
          onDestroyed = (ev) => {
            if (ev.targetId === target!.targetId) fail();
          };
          cdp.on('Target.detachedFromTarget', onDetached as never);
          cdp.on('Target.targetDestroyed', onDestroyed as never);
          poll = setInterval(() => {
            swTargets().then((ts) => ts.some((t) => t.targetId === target!.targetId) || fail(), () => undefined);
          }, 250);
        });
        stopped.catch(() => undefined); // a stop after the answer is nobody's error
        await cdp.send('Target.sendMessageToTarget', {
          sessionId,
          message: JSON.stringify({ id: 1, method: 'Runtime.evaluate', params: { expression: code, awaitPromise: true, returnByValue: true } }),
        });
        const { result } = await Promise.race([
          reply,
          stopped,
          new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('the service worker did not answer in time')), Number(process.env.HARNESS_EVAL_TIMEOUT ?? 15_000)))),
        ]);
        if (!result) throw new Error('no answer from the service worker');
        if (result.exceptionDetails) throw new Error(result.exceptionDetails.exception?.description ?? result.exceptionDetails.text);
        return result.result.value as T;
      } finally {
        clearTimeout(timer);
        clearInterval(poll);
        if (onDestroyed) cdp.off('Target.targetDestroyed', onDestroyed as never);
        if (onMessage) cdp.off('Target.receivedMessageFromTarget', onMessage as never);
        if (onDetached) cdp.off('Target.detachedFromTarget', onDetached as never);
        await cdp.send('Target.detachFromTarget', { sessionId }).catch(() => undefined);
      }
      }
    },
    async close(o = {}) {
      await ctx.close();
      if (!o.keepProfile && !opts.profile) rmSync(profile, { recursive: true, force: true });
    },
  };
  return ext;
}

/** One browser-level DevTools session per browser, kept for its life (see evalSw). */
const sessions = new WeakMap<BrowserContext, Promise<CDPSession>>();
function browserSession(ctx: BrowserContext): Promise<CDPSession> {
  let s = sessions.get(ctx);
  if (!s) {
    // Target discovery on: evalSw learns of a worker's end from Target.targetDestroyed.
    s = ctx.browser()!.newBrowserCDPSession().then(async (cdp) => (await cdp.send('Target.setDiscoverTargets', { discover: true }), cdp));
    sessions.set(ctx, s);
    s.then((cdp) => cdp.on('close' as never, () => sessions.delete(ctx))).catch(() => sessions.delete(ctx));
  }
  return s;
}

/** Whether the extension's service worker is running now (without waking it). */
export async function workerRunning(ctx: BrowserContext, extId: string): Promise<boolean> {
  const { targetInfos } = (await (await browserSession(ctx)).send('Target.getTargets')) as { targetInfos: { type: string; url: string }[] };
  return targetInfos.some((t) => t.type === 'service_worker' && t.url.startsWith(`chrome-extension://${extId}/`));
}

export interface Stats {
  pages: number;
  chunks: number;
  pendingEmbeddings: number;
}

/** Reads the status the way a user would: the options page's counters. */
export async function readStats(ext: Extension, page?: Page): Promise<Stats> {
  const p = page ?? (await ext.ctx.newPage());
  await p.goto(ext.extensionUrl('options.html'));
  const read = async (id: string) => Number((await p.getByTestId(id).textContent({ timeout: 10_000 }))?.trim());
  await p.getByTestId('stat-pages').waitFor();
  const stats = { pages: await read('stat-pages'), chunks: await read('stat-chunks'), pendingEmbeddings: await read('stat-pending-embeddings') };
  if (!page) await p.close();
  return stats;
}

/** Stats straight from the engine (cheaper for polling). */
export function engineStats(ext: Extension): Promise<Stats> {
  return ext.evalSw<Stats>('engine.stats()');
}

/** Opens search.html?… and returns the results once the answer for this query is on screen. */
export async function searchPage(ext: Extension, params: Record<string, string>, page?: Page): Promise<ResultRow[]> {
  const p = page ?? (await ext.ctx.newPage());
  const qs = new URLSearchParams(params).toString();
  await p.goto(ext.extensionUrl(`search.html?${qs}`));
  await p.waitForFunction(resultsSettled, null, { timeout: 20_000 });
  const rows = await p.evaluate(readResultRows);
  if (!page) await p.close();
  return rows;
}

/** The engine's capture log holds a capture of `url` made at or after `since` (a page's own clock). */
export const capturedSince = (url: string, since: number) => `engine.captureLog.some((l) => l.url === ${JSON.stringify(url)} && l.at >= ${since})`;

/**
 * Visits pages one after another in one tab, each kept open until the engine logged its capture (the
 * state the callers want), at most `timeoutMs` a page: a page still missing then is left to the caller's
 * own assertions. `{ dwellMs }` instead keeps each page open that long whatever happens: for pages that
 * must NOT be captured (an excluded site), where there is no state to wait for.
 * (A fixed 1.3 s a page before: closing a tab while its capture was still being sent, on a loaded
 * machine, could lose that capture, and on a quiet one the wait was longer than the capture.)
 */
export async function visit(ext: Extension, urls: string[], opts: { dwellMs?: number; timeoutMs?: number } = {}): Promise<void> {
  const page = await ext.ctx.newPage();
  for (const u of urls) {
    // The log's times come from the worker's clock, this machine's as well; a second of slack.
    const since = Date.now() - 1000;
    await page.goto(u, { waitUntil: 'load' });
    if (opts.dwellMs !== undefined) await page.waitForTimeout(opts.dwellMs);
    else await until(() => ext.evalSw<boolean>(capturedSince(u, since)), `the capture of ${u}`, opts.timeoutMs ?? 20_000, 100).catch(() => undefined);
  }
  await page.close();
}
