/**
 * Storage full, in the real browser. The build without `unlimitedStorage` (same code) gets a small
 * quota through CDP Storage.overrideQuotaForOrigin; pages are visited until it is exceeded.
 *
 * - New pages keep being stored: the least recently visited are forgotten first (a page revisited
 *   early outlives pages visited once after it), the user is told on the options page, no page is
 *   half-written (verifyIndex passes) and every stored page is found by a word only it has.
 * - With the quota lowered under what is stored, nothing can be freed: the capture fails with a clear
 *   'quota' error and every page already stored is still there and found.
 *
 * Chromium's navigator.storage.estimate() does not report the overridden quota (CDP's
 * Storage.getUsageAndQuota does), so the engine learns the limit from the first failed write: that
 * path (a forced log flush, reserve parts released, the page retried, then eviction) is exercised
 * too, again and again. QUOTA_LOG=1 prints the measurements, with the LevelDB files on disk.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CDPSession, Page } from 'playwright';
import { launch, limitedStorageDist, serve, until, type Extension, type FixtureServer } from './harness.js';
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * 3 MB: every page visit costs the test a capture (about a second, more on a loaded machine), and what
 * is proved (refusal, levers, least-recently-visited eviction, repeated overflow) does not depend on the
 * size. At 6 MB the first refusal came after 40 visits, at 3 MB after 22-33, with about 20 pages stored
 * after it and 5-6 evicting captures in the repeated-overflow test (QUOTA_LOG=1; the file took 75-79 s
 * instead of 118-129 s side by side). The extension alone takes about 0.85 MB here (scripts, first page,
 * the reserve), so the quota is well above where the first pages could meet it.
 */
const QUOTA = 3 * 1024 * 1024;
// Schema v3 stores a page in fewer bytes than v2: 60 pages no longer always reached the 6 MB quota this
// test used before (v3 met it after 18-65 pages in those runs, as LevelDB's log and compactions fall).
const PAGES = 150;
/** Pages only the last test visits: the first two visit a varying number of pages, up to PAGES + 20. */
const FRESH = 1000;
/**
 * The repeated-overflow test visits at least 20 pages and goes on until three captures evicted, at most
 * this many. How many pages an eviction makes room for varies with LevelDB's compactions and with how
 * much merging ran meanwhile: since merges wait while captures are under way (issue 17), 20 pages saw
 * 2 evicting captures in a clean-clone run on a quiet machine, where 3-5 were usual before.
 */
const MAX_OVERFLOW_PAGES = 50;
/**
 * The first two tests visit pages until Chromium refuses writes: when that happens varies with its
 * cached room and LevelDB's flushes (first refusal after 13 to 37 pages in seven runs at 6 MB, 2-3 s a
 * page on a loaded machine), so they get more than the e2e default of 120 s.
 */
const FILL_TIMEOUT = 300_000;
const log = (...a: unknown[]) => process.env.QUOTA_LOG && console.log(...a);

/** A word no other page has (letters only, so the stemmer leaves it alone). */
const uniqueWord = (i: number) => 'zq' + [...i.toString(19)].map((d) => 'bcdfghjklmnprstvwxy'[parseInt(d, 19)]).join('') + 'vb';

function pageHtml(i: number): string {
  let seed = i + 1;
  const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
  const syl = ['ka', 'lo', 'mi', 'ne', 'ru', 'ta', 'vo', 'si', 'pe', 'du', 'gra', 'bel', 'tor', 'fen', 'zu', 'mar'];
  const word = () => Array.from({ length: 2 + Math.floor(rand() * 3) }, () => syl[Math.floor(rand() * syl.length)]).join('');
  const paras = Array.from({ length: 24 }, (_, p) => `<p>${p === 7 ? uniqueWord(i) + ' ' : ''}${Array.from({ length: 60 }, word).join(' ')}.</p>`);
  return `<!doctype html><html lang="en"><head><title>Reading ${i}</title></head><body><article><h1>Reading ${i}</h1>${paras.join('')}</article></body></html>`;
}

let ext: Extension;
let server: FixtureServer;
let dist: string;
let cdp: CDPSession;
let optionsTab: Page;
let origin: string;

interface QuotaLog { softEvictions: number; hardEvictions: number; reserveReleased: number; reservePlaced: number; quotaErrors: number; failedDeletes: number; capturesRefused: number; flushes: number }

const storedUrls = () => ext.evalSw<string[]>('engine.pages.all().then((t) => [...t.keys()].sort())');
const quotaLog = () => ext.evalSw<QuotaLog>('engine.quotaLog');
/**
 * The pages each word finds, as typed (`exact`: the results page's "search instead for"), and as a plain
 * search shows them (`plain`). The unique words are one edit apart, so without `exact` a forgotten page's
 * word is corrected to a neighbour's, as a typo would be (issue #13). The searches run in the worker in
 * batches, one evaluation each (one evaluation per search cost 0.1-0.3 s of round trips apiece here).
 */
async function searchWords(words: string[]): Promise<{ exact: string[]; plain: { urls: string[]; corrected: string | null } }[]> {
  const out: { exact: string[]; plain: { urls: string[]; corrected: string | null } }[] = [];
  for (let i = 0; i < words.length; i += 20) {
    out.push(
      ...(await ext.evalSw<typeof out>(`(async () => {
        const out = [];
        for (const q of ${JSON.stringify(words.slice(i, i + 20))}) {
          const exact = (await engine.search({ q, exact: true })).results.map((x) => x.url);
          const r = await engine.search({ q });
          out.push({ exact, plain: { urls: r.results.map((x) => x.url), corrected: r.corrected ? r.corrected.query : null } });
        }
        return out;
      })()`)),
    );
  }
  return out;
}
/** The pages each word finds as typed. */
const found = async (words: string[]) => (await searchWords(words)).map((r) => r.exact);
const verify = () => ext.evalSw<{ ok: boolean; problems: string[] }>('globalThis.rereadDebug.verifyIndex(engine)');
async function cdpUsage(): Promise<{ usage: number; quota: number; indexeddb: number }> {
  const r = (await cdp.send('Storage.getUsageAndQuota' as never, { origin } as never)) as { usage: number; quota: number; usageBreakdown: { storageType: string; usage: number }[] };
  return { usage: r.usage, quota: r.quota, indexeddb: r.usageBreakdown.find((b) => b.storageType === 'indexeddb')?.usage ?? 0 };
}
/** The extension's IndexedDB files on disk (LevelDB log, tables, blob files), for QUOTA_LOG. */
function idbFiles(): string {
  const sizes = { log: 0, ldb: 0, blob: 0 };
  const walk = (dir: string, ours: boolean): void => {
    for (const f of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, f.name);
      if (f.isDirectory()) walk(p, ours || f.name.includes(ext.extId));
      else if (ours) sizes[f.name.endsWith('.log') ? 'log' : f.name.endsWith('.ldb') ? 'ldb' : p.includes('.blob') ? 'blob' : 'log'] += statSync(p).size;
    }
  };
  try {
    walk(join(ext.profile, 'Default', 'IndexedDB'), false);
  } catch {
    return 'files ?';
  }
  return `disk log ${sizes.log} ldb ${sizes.ldb} blob ${sizes.blob} = ${sizes.log + sizes.ldb + sizes.blob}`;
}
const setQuota = (quotaSize: number) => cdp.send('Storage.overrideQuotaForOrigin' as never, { origin, quotaSize } as never);

/** Visits `url` and waits until the engine has answered its capture (stored, or refused for lack of room). */
async function visitAndWait(tab: Page, url: string): Promise<'stored' | 'quota'> {
  // How many captures of this URL the engine logged, and how many captures it refused: one evaluation.
  const counts = `({ captures: engine.captureLog.filter((l) => l.url === ${JSON.stringify(url)}).length, refused: engine.quotaLog.capturesRefused })`;
  const before = await ext.evalSw<{ captures: number; refused: number }>(counts);
  await tab.goto(url, { waitUntil: 'load' });
  return until(async () => {
    const now = await ext.evalSw<{ captures: number; refused: number }>(counts);
    if (now.captures > before.captures) return 'stored' as const;
    // A refused capture is retried by nobody: the engine counts the ones it gave up on.
    return now.refused > before.refused ? ('quota' as const) : null;
  }, `the capture of ${url}`, 30_000, 100);
}

beforeAll(async () => {
  server = await serve({});
  for (let i = 0; i < PAGES + 25 + MAX_OVERFLOW_PAGES; i++) server.routes.set(`/q/${i}.html`, pageHtml(i));
  for (const i of [FRESH, FRESH + 1]) server.routes.set(`/q/${i}.html`, pageHtml(i));
  dist = limitedStorageDist();
  ext = await launch({ dist });
  origin = `chrome-extension://${ext.extId}`;
  optionsTab = await ext.ctx.newPage();
  await optionsTab.goto(ext.extensionUrl('options.html'));
  cdp = await ext.ctx.newCDPSession(optionsTab);
  await setQuota(QUOTA);
  const u = await cdpUsage();
  expect(u.quota).toBe(QUOTA);
  log('start', u);
});
afterAll(async () => {
  await ext?.close();
  await server?.close();
  if (dist) rmSync(dist, { recursive: true, force: true });
});

describe('storage full', () => {
  const lastVisit = new Map<string, number>();
  /** Every visit's place in time, refused ones included (see checkStored). */
  const visitOrder = new Map<string, number>();
  let order = 0;
  let next = 0;
  /** The highest usage seen after a capture (CDP), for QUOTA_LOG. */
  let peak = 0;
  const url = (i: number) => server.url(`/q/${i}.html`);
  async function visitOne(tab: Page, i: number): Promise<'stored' | 'quota'> {
    const outcome = await visitAndWait(tab, url(i));
    visitOrder.set(url(i), ++order);
    // A refused page is not stored (unless the outbox files it later: see checkStored).
    if (outcome === 'stored') lastVisit.set(url(i), order);
    if (process.env.QUOTA_LOG) {
      const u = await cdpUsage();
      peak = Math.max(peak, u.usage);
      log(i, outcome, `usage ${u.usage} (${((100 * u.usage) / u.quota).toFixed(0)}% of ${u.quota}), idb ${u.indexeddb}`, idbFiles(), JSON.stringify(await quotaLog()), 'stored', (await storedUrls()).length);
    }
    return outcome;
  }
  async function checkStored(): Promise<Set<string>> {
    // A capture refused while the page was being left was also handed to the outbox by the content
    // script (its answer had not arrived): the next drain files it, as of its own visit, when there is
    // room by then. Such a page counts as visited at its visit.
    const drained = await storedUrls();
    for (const u of drained) if (!lastVisit.has(u) && visitOrder.has(u)) lastVisit.set(u, visitOrder.get(u)!);
    const stored = new Set(drained);
    const evicted = [...lastVisit.keys()].filter((u) => !stored.has(u));
    const q = await quotaLog();
    expect(q.softEvictions + q.hardEvictions).toBe(evicted.length);
    // Least recently visited first: everything forgotten was visited before everything kept.
    const newestEvicted = Math.max(...evicted.map((u) => lastVisit.get(u)!));
    const oldestKept = Math.min(...[...stored].map((u) => lastVisit.get(u)!));
    expect(newestEvicted).toBeLessThan(oldestKept);
    // Nothing half-written; every stored page is found by its own word, no forgotten page is.
    expect(await verify()).toMatchObject({ ok: true, problems: [] });
    const visited = [...lastVisit.keys()];
    const answers = await searchWords(visited.map((u) => uniqueWord(Number(/\/q\/(\d+)\.html/.exec(u)![1]))));
    visited.forEach((u, k) => {
      const { exact, plain } = answers[k]!;
      expect(exact, u).toEqual(stored.has(u) ? [u] : []);
      // A plain search never shows a forgotten page either: its word is corrected to another page's.
      if (stored.has(u)) expect(plain, u).toEqual({ urls: [u], corrected: null });
      else expect(plain.urls.includes(u) || (plain.urls.length > 0 && plain.corrected === null), u).toBe(false);
    });
    return stored;
  }

  it('a write refused at the quota flushes the log or releases the reserve, forgets the least recently visited pages and is stored', async () => {
    const tab = await ext.ctx.newPage();
    for (; next < 6; next++) expect(await visitOne(tab, next)).toBe('stored');
    // Pages 0 and 1 are read again: now pages 2..5 are the least recently visited.
    expect(await visitOne(tab, 0)).toBe('stored');
    expect(await visitOne(tab, 1)).toBe('stored');
    // Until the browser first refuses a write (it lets usage run past the quota first).
    for (; next < PAGES && (await quotaLog()).quotaErrors === 0; next++) expect(await visitOne(tab, next)).toBe('stored');
    await tab.close();
    const q = await quotaLog();
    log('first refusal handled', q, await cdpUsage());
    expect(q.quotaErrors).toBeGreaterThanOrEqual(1);
    expect(q.capturesRefused).toBe(0);
    // A lever was pulled before the retry: a forced log flush (first), a reserve part or more after it.
    expect(q.flushes + q.reserveReleased).toBeGreaterThanOrEqual(1);
    // Levers were pulled until the page fitted, then pages forgotten (a refused eviction
    // aborts whole: checkStored proves nothing was half-deleted and only the oldest pages went).
    expect(q.hardEvictions).toBeGreaterThan(0);
    const stored = await checkStored();
    // The page that met the limit is stored; page 2 (visited once, early) went before the re-read 0 and 1.
    expect(stored.has(url(next - 1))).toBe(true);
    expect(stored.has(url(2))).toBe(false);

    // The user is told, on the options page.
    await optionsTab.reload();
    await expect.poll(() => optionsTab.getByTestId('storage-warning').textContent(), { timeout: 10_000 }).toMatch(/forgot the \d+ least recently visited pages/);
    expect(Number(await optionsTab.getByTestId('stat-pages').textContent())).toBe(stored.size);
  }, FILL_TIMEOUT);

  // Issue #8: usage falls only when LevelDB flushes or compacts, so after a recovery the reserve often
  // cannot be put back at once; a refused write first forces a log flush (storageBudget.ts), the
  // reserve is kept in parts released one at a time, the page is written before pages are forgotten,
  // and evictions run in one transaction. Every page is stored, evictions happen again and again, and
  // what is left is right. (Without the flush, one run in the lead's runs refused all 20 pages.)
  it('keeps storing new pages as the quota is exceeded again and again', async () => {
    const tab = await ext.ctx.newPage();
    let evictingCaptures = 0;
    let refused = 0;
    const start = await quotaLog();
    peak = 0;
    let visited = 0;
    for (; visited < MAX_OVERFLOW_PAGES && (visited < 20 || evictingCaptures < 3); visited++, next++) {
      const before = await quotaLog();
      if ((await visitOne(tab, next)) === 'quota') refused++;
      const after = await quotaLog();
      if (after.softEvictions + after.hardEvictions > before.softEvictions + before.hardEvictions) evictingCaptures++;
    }
    await tab.close();
    const q = await quotaLog();
    log('repeated overflow', JSON.stringify({ visited, refused, evictingCaptures, peakUsage: peak, peakShare: +(peak / QUOTA).toFixed(2), start, end: q }), await cdpUsage());
    // Between LevelDB compactions the room freed by an eviction is not yet free (measured: usage
    // peaks at 105-143% of the quota), so now and then a page is refused — with the user told and
    // nothing half-written. Seen 0-1 times in 20 in the runs so far; more means the recovery broke.
    expect(q.capturesRefused - start.capturesRefused).toBe(refused);
    expect(refused).toBeLessThanOrEqual(Math.max(2, Math.ceil(visited / 10)));
    expect(evictingCaptures).toBeGreaterThanOrEqual(3);
    const stored = await checkStored();
    expect([...stored].filter((u) => /\/q\/\d+\.html$/.test(u)).length).toBeGreaterThan(3);
  }, FILL_TIMEOUT);

  it('with nothing more to free, refuses the page with a quota error and loses nothing stored', async () => {
    const before = await storedUrls();
    expect(before.length).toBeGreaterThan(3);
    // Below what the service worker's own scripts take: no write fits, however much is deleted.
    await setQuota(512 * 1024);
    // Chromium's IndexedDB caches the room it has left for a few seconds: wait until a scratch
    // database of the same origin (not the extension's) is refused a small write.
    await until(
      () =>
        ext.evalSw<boolean>(`new Promise((resolve) => { const open = indexedDB.open('quota-scratch', 1); open.onupgradeneeded = () => open.result.createObjectStore('s'); open.onsuccess = () => { const tx = open.result.transaction('s', 'readwrite'); tx.objectStore('s').put(new Uint8Array(4096).fill(7), Date.now()); tx.oncomplete = () => { open.result.close(); resolve(false); }; tx.onabort = () => { open.result.close(); resolve(tx.error && tx.error.name === 'QuotaExceededError'); }; }; })`),
      'the lowered quota to be enforced',
      30_000,
      500,
    );
    await ext.evalSw(`new Promise((r) => { const d = indexedDB.deleteDatabase('quota-scratch'); d.onsuccess = d.onerror = () => r(1); })`);
    const tab = await ext.ctx.newPage();
    const url = server.url(`/q/${FRESH}.html`);
    const beforeWords = before.map((u) => uniqueWord(Number(/\/q\/(\d+)\.html/.exec(u)![1])));
    expect(await found(beforeWords)).toEqual(before.map((u) => [u]));
    expect(await visitAndWait(tab, url)).toBe('quota');
    await tab.close();
    // The same refusal, answered to the caller: a clear 'quota' error.
    const err = await ext.evalSw<{ code: string; message: string }>(
      `engine.capture(${JSON.stringify(server.url(`/q/${FRESH + 1}.html`))}, { title: 'Refused', lang: 'en', blocks: [{ kind: 'text', text: ${JSON.stringify(`${uniqueWord(FRESH + 1)} `)}.repeat(3) + 'words enough to be kept as a page of text in the index '.repeat(20) }] }).then(() => ({ code: 'stored', message: '' }), (e) => ({ code: e.code, message: e.message }))`,
    );
    log('refused', err, await quotaLog(), await cdpUsage());
    expect(err.code).toBe('quota');
    expect(err.message).toMatch(/Storage is full/);
    expect(await storedUrls()).toEqual(before);
    expect(await found([uniqueWord(FRESH), uniqueWord(FRESH + 1)])).toEqual([[], []]);
    expect(await verify()).toMatchObject({ ok: true, problems: [] });
    expect(await found(beforeWords)).toEqual(before.map((u) => [u]));
    await optionsTab.reload();
    await expect.poll(() => optionsTab.getByTestId('storage-warning').textContent(), { timeout: 10_000 }).toMatch(/nothing more could be freed/);

    // Room again: saving resumes.
    await setQuota(QUOTA * 4);
    const again = await ext.ctx.newPage();
    expect(await visitAndWait(again, url)).toBe('stored');
    await again.close();
    expect(await found([uniqueWord(FRESH)])).toEqual([[url]]);
    expect(await verify()).toMatchObject({ ok: true, problems: [] });
  });
});
