/**
 * Day one (#14), parts 2 and 3 in the real browser: the history from before Reread, imported as
 * title-only entries from the first-run card, found by title and URL words and marked in results; then
 * the backfill ("Read these pages now") of 200+ pages from a local server on five site names, with the
 * worker stopped six times while it runs (the server holds the pages past each 15th until the stop). The
 * server checks what a site sees: no request of the backfill carries a cookie (the browser holds one for every site, and sends it on a normal visit:
 * the positive control), and never two requests to one host at once. Login walls and 404s stay
 * title-only; nothing is lost or stored twice (verifyIndex, counts).
 *
 * The `history` permission is optional: a copy of the build lists it as required (a headless browser
 * never answers the permission prompt; see the testing guide).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DIST, launch, searchPage, until, type Extension } from './harness.js';

const HOSTS = ['alpha.test', 'bravo.test', 'charlie.test', 'delta.test', 'echo.test'];
const PER_HOST = 42; // 210 pages
const LOGIN = new Set([3, 17, 29]);
const MISSING = new Set([5, 23]);

let server: Server;
let port = 0;
let ext: Extension;
const seen: { host: string; path: string; cookie: string | undefined }[] = [];
const inFlight = new Map<string, number>();
let maxPerHost = 0;
let maxTotal = 0;
let total = 0;
/**
 * The server answers this many more requests, then holds the rest until the test lets them go (`release`):
 * the backfill waits on it, so the test stops the worker while the backfill is certainly under way, however
 * fast or loaded the machine (a timed loop saw the backfill end after 2 stops; one stopping every 15 pages
 * read, after 5, its polls slow under load).
 */
let budget = Infinity;
const held: (() => void)[] = [];
function release(more: number): void {
  budget = more;
  for (const go of held.splice(0)) go();
}

function pageHtml(host: string, i: number): string {
  const word = `${host.split('.')[0]}word${i}`;
  return `<!doctype html><html lang="en"><head><title>Page ${i} on ${host}</title></head><body><nav>Home · About · Contact</nav><main><h1>Notes ${i}</h1><p>This page talks about ${word} at length, so that the backfill has real text to read: the ${word} is a rare word that only this page contains, and the rest of this paragraph is ordinary prose about nothing in particular.</p><h2>More</h2><p>A second section follows with more ordinary sentences, because pages usually have more than one part, and the chunker cuts them by heading into sections.</p></main></body></html>`;
}

const loginHtml = (host: string) =>
  `<!doctype html><title>Sign in to ${host}</title><main><h1>Sign in</h1><form><label>Email <input name="email"></label><label>Password <input type="password" name="pw"></label><button>Sign in</button></form><p>Forgot your password?</p></main>`;

function distWithHistory(): string {
  const dir = mkdtempSync(join(tmpdir(), 'reread-history-'));
  cpSync(DIST, dir, { recursive: true });
  const m = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { permissions: string[]; optional_permissions?: string[] };
  m.permissions.push('history');
  m.optional_permissions = (m.optional_permissions ?? []).filter((p) => p !== 'history');
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(m, null, 2));
  return dir;
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const host = (req.headers.host ?? '').split(':')[0]!;
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    seen.push({ host, path, cookie: req.headers.cookie });
    // The browser's own favicon requests (a page shown, an icon of a listed site) are not the backfill's:
    // answered at once, never held, not counted as the site's requests in flight.
    if (path === '/favicon.ico') {
      res.writeHead(404, { 'content-type': 'text/html' }).end('<title>Not found</title><h1>404</h1>');
      return;
    }
    const n = (inFlight.get(host) ?? 0) + 1;
    inFlight.set(host, n);
    total++;
    maxPerHost = Math.max(maxPerHost, n);
    maxTotal = Math.max(maxTotal, total);
    let finished = false;
    const done = () => {
      if (finished) return;
      finished = true;
      inFlight.set(host, (inFlight.get(host) ?? 1) - 1);
      total--;
    };
    // A request the browser gave up on (its worker stopped) is no longer in flight.
    res.on('close', () => done());
    const respond = () => {
      if (res.destroyed) return done();
      const m = /^\/p(\d+)$/.exec(path);
      const i = m ? Number(m[1]) : -1;
      // A page that shows its content late (an app still loading): nothing to save when it loads.
      if (path === '/empty') res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><html lang="en"><head></head><body><main></main></body></html>');
      else if (!m || MISSING.has(i)) res.writeHead(404, { 'content-type': 'text/html' }).end('<title>Not found</title><h1>404</h1>');
      else if (LOGIN.has(i)) res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(loginHtml(host));
      else if (i === 41) res.writeHead(200, { 'content-type': 'application/json' }).end('{"not":"html"}');
      else res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'set-cookie': 'seen=1; Path=/' }).end(pageHtml(host, i));
      done();
    };
    // Slow enough that overlapping requests would be seen. A held one is answered at once when let go: its
    // worker was stopped, and the next one must not find it still in flight.
    const answer = () => setTimeout(respond, 50);
    if (budget > 0) {
      budget--;
      answer();
    } else held.push(respond);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as { port: number }).port;
  ext = await launch({
    dist: distWithHistory(),
    args: [`--host-resolver-rules=${HOSTS.map((h) => `MAP ${h} 127.0.0.1`).join(', ')}`],
    beforeLoad: async (ctx) => {
      // History from before Reread: real visits with titles (tabs closed again, so only history knows them).
      const p = await ctx.newPage();
      for (const path of ['/p1', '/p2']) await p.goto(`http://alpha.test:${port}${path}`, { waitUntil: 'load' });
      await p.close();
    },
  });
  // The rest of the history: 208 more URLs (no titles: history.addUrl records none).
  await ext.evalSw(`Promise.all(${JSON.stringify(HOSTS.flatMap((h) => Array.from({ length: PER_HOST }, (_, i) => `http://${h}:${port}/p${i}`)))}.map((url) => chrome.history.addUrl({ url }))).then(() => true)`);
  // Every site holds a cookie in this profile: a request made with the user's credentials would carry it.
  await ext.ctx.addCookies(HOSTS.map((h) => ({ name: 'session', value: `secret-${h}`, domain: h, path: '/' })));
}, 120_000);

afterAll(async () => {
  await ext?.close();
  server?.closeAllConnections();
  server?.close();
});

const kinds = () =>
  ext.evalSw<Record<string, number>>(`engine.pages.all().then((m) => { const out = {}; for (const p of m.values()) { const k = (p.kind ?? 'read') + (p.fetchSkipped ? ':' + p.fetchSkipped.reason : ''); out[k] = (out[k] ?? 0) + 1; } return out; })`);

describe('history, titles first', () => {
  it('the first-run card imports the history; entries are found by title and URL words, marked "from history, not read by Reread"', async () => {
    const page = await ext.ctx.newPage();
    await page.goto(ext.extensionUrl('options.html'));
    const card = page.getByTestId('dayone-card');
    await card.waitFor();
    expect(await card.getByRole('heading', { level: 2 }).textContent()).toBe('Search your browsing history from before Reread');
    expect(await page.getByTestId('dayone-days').inputValue()).toBe('90');
    await page.getByTestId('dayone-days').fill('30');
    await page.getByTestId('dayone-import').click();
    await page.getByTestId('dayone-import-done').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('dayone-import-done').textContent()).toMatch(/^210 pages from your history \(last 30 days\)/);
    expect(await kinds()).toEqual({ title: 210 });
    // By title words (a page visited before the install) and by URL words.
    const byTitle = await searchPage(ext, { q: '"Page 2 on alpha.test"' }, page);
    expect(byTitle[0]?.href).toBe(`http://alpha.test:${port}/p2`);
    const marker = page.getByTestId('result-kind').first();
    expect(await marker.textContent()).toBe('from history, not read by Reread');
    expect(await marker.getAttribute('data-kind')).toBe('title');
    const byUrl = await searchPage(ext, { q: 'p17', site: 'charlie.test' }, page);
    expect(byUrl.map((r) => r.href)).toEqual([`http://charlie.test:${port}/p17`]);
    await page.close();
  });

  it('importing again stores nothing twice', async () => {
    await ext.evalSw(`rereadDebug.dayOne.importHistory(30).then(() => rereadDebug.dayOne.history.whenIdle())`);
    await until(async () => (await ext.evalSw<{ state: string }>('rereadDebug.dayOne.history.status()')).state === 'done', 'second import done');
    expect(await kinds()).toEqual({ title: 210 });
    expect((await ext.evalSw<{ chunks: number }>('engine.stats()')).chunks).toBe(210);
  });
});

describe('backfill: read these pages now', () => {
  it('reads 200+ pages without cookies, one request per host at a time, through 5+ worker stops; login walls and 404s stay title-only', async () => {
    // Positive control: a normal visit sends the site its cookie.
    const visit = await ext.ctx.newPage();
    await visit.goto(`http://echo.test:${port}/p0`, { waitUntil: 'load' });
    await visit.close();
    expect(seen.some((r) => r.host === 'echo.test' && r.cookie?.includes('secret-echo.test'))).toBe(true);
    await new Promise((r) => setTimeout(r, 1500)); // let that visit's capture finish
    seen.length = 0;
    maxPerHost = 0;
    maxTotal = 0;

    const options = await ext.ctx.newPage();
    await options.goto(ext.extensionUrl('options.html'));
    expect(await options.getByTestId('dayone-backfill-warning').textContent()).toContain('This contacts each site again');
    // Fifteen pages a time: the backfill then waits on the server, and the worker is stopped while it does.
    let stops = 0;
    budget = 15;
    await options.getByTestId('dayone-backfill-start').click();
    for (const deadline = Date.now() + 90_000; stops < 6 && Date.now() < deadline; ) {
      await new Promise((r) => setTimeout(r, 100));
      if (!held.length) {
        if ((await ext.evalSw<{ state: string }>('rereadDebug.dayOne.backfill.status()')).state === 'done') break;
        continue;
      }
      stops += (await ext.stopWorker()) > 0 ? 1 : 0;
      // What the stopped worker asked for is answered (or was dropped with it) before it runs again.
      release(stops < 6 ? 15 : Infinity);
    }
    release(Infinity);
    console.log(`backfill: ${stops} worker stops while it ran`);
    expect(stops).toBeGreaterThanOrEqual(6);
    // The options page keeps asking for progress, which wakes the worker; it resumes the backfill.
    await until(async () => (await ext.evalSw<{ state: string }>('rereadDebug.dayOne.backfill.status()')).state === 'done', 'backfill done', 120_000, 500);
    const st = await ext.evalSw<{ total: number; done: number; stored: number; skipped: number; reasons: Record<string, number> }>('rereadDebug.dayOne.backfill.status()');
    expect(st.done).toBe(st.total);
    expect(st.stored + st.skipped).toBe(st.done);
    // The page shows the same numbers once it has polled again.
    await until(async () => (await options.getByTestId('dayone-backfill-progress').textContent())?.startsWith(`${st.done} of ${st.total}, ${st.stored} stored, ${st.skipped} skipped`), 'progress on the options page', 10_000, 300);
    await options.close();

    const k = await kinds();
    // p0 on echo.test was read in a tab (the control visit); p1 on alpha.test too? No: visited before install.
    const readable = HOSTS.length * PER_HOST - HOSTS.length * (LOGIN.size + MISSING.size + 1);
    expect((k.fetched ?? 0) + (k.read ?? 0)).toBe(readable);
    expect(k['title:login-wall']).toBe(HOSTS.length * LOGIN.size);
    expect(k['title:http-error']).toBe(HOSTS.length * MISSING.size);
    expect(k['title:not-html']).toBe(HOSTS.length);
    expect(k.title).toBeUndefined();
    // What the sites saw: no cookie on any backfill request, one request per host at a time, a few in all.
    const backfillRequests = seen.filter((r) => r.path !== '/favicon.ico');
    expect(backfillRequests.length).toBeGreaterThanOrEqual(209);
    expect(backfillRequests.filter((r) => r.cookie !== undefined)).toEqual([]);
    expect(maxPerHost).toBe(1);
    expect(maxTotal).toBeGreaterThan(1);
    expect(maxTotal).toBeLessThanOrEqual(3);
    // Found by their text now, marked as read later from the site; nothing stored twice.
    const hits = await searchPage(ext, { q: 'deltaword7' });
    expect(hits.map((r) => r.href.split('#')[0])).toEqual([`http://delta.test:${port}/p7`]);
    const report = await ext.evalSw<{ ok: boolean; problems: string[] }>('rereadDebug.verifyIndex(engine)');
    expect(report.problems).toEqual([]);
    // Every section belongs to one page (schema 3 keeps section metadata per page): no id twice.
    const dup = await ext.evalSw<number>(`engine.db().then((db) => db.getAll('pages')).then((ps) => { const ids = ps.flatMap((p) => p.chunkIds); return ids.length - new Set(ids).size; })`);
    expect(dup).toBe(0);
  }, 240_000);

  it('the popup shows the progress too', async () => {
    const popup = await ext.ctx.newPage();
    await popup.goto(ext.extensionUrl('popup.html'));
    // One line in the popup (its room is for results); opened, the whole card.
    await popup.getByTestId('dayone-card').waitFor();
    expect(await popup.getByTestId('dayone-card').getAttribute('data-compact')).toBe('true');
    await popup.getByTestId('dayone-open').click();
    const text = await popup.getByTestId('dayone-backfill-progress').textContent({ timeout: 10_000 });
    expect(text).toMatch(/^\d+ of \d+, \d+ stored, \d+ skipped/);
    await popup.close();
  });
});

describe("following the browser's history deletions", () => {
  it('a page deleted from history is forgotten at once, and its capture still waiting in the outbox goes with it', async () => {
    const options = await ext.ctx.newPage();
    await options.goto(ext.extensionUrl('options.html'));
    await options.getByTestId('follow-history').check();
    await until(() => ext.evalSw<boolean>('engine.settings().then((s) => s.followHistoryDeletes)'), 'following history deletions saved');
    await options.close();
    const deleted = `http://bravo.test:${port}/p9`;
    const kept = `http://bravo.test:${port}/p10`;
    expect((await searchPage(ext, { q: 'bravoword9' })).map((r) => r.href.split('#')[0])).toEqual([deleted]);
    // A later visit to each page was left while the worker was stopped: its capture waits in the outbox
    // for a hello that has not come (within the minute of grace), its navigation recorded.
    const entry = (url: string, word: string, nonce: string) => ({ nonce: nonce.repeat(16), url, at: Date.now(), payload: { title: `Visit ${word}`, lang: 'en', blocks: [{ kind: 'text', text: `${word} `.repeat(40) }] } });
    await ext.evalSw(`Promise.all([rereadDebug.recordSighting(${JSON.stringify(deleted)}), rereadDebug.recordSighting(${JSON.stringify(kept)})])`);
    await ext.evalSw(`chrome.storage.session.set({ 'outbox:hd1': ${JSON.stringify(entry(deleted, 'laterword', 'd1'))}, 'outbox:hd2': ${JSON.stringify(entry(kept, 'keptword', 'd2'))} })`);
    const pending = () => ext.evalSw<string[]>(`chrome.storage.session.get(null).then((all) => Object.keys(all).filter((k) => k.startsWith('outbox:hd')).sort())`);
    expect(await pending()).toEqual(['outbox:hd1', 'outbox:hd2']);
    // The page is open in a tab (a visit, saved again) when the user deletes it from the browser's history.
    const captures = () => ext.evalSw<number>(`engine.captureLog.filter((l) => l.url === ${JSON.stringify(deleted)}).length`);
    const opened = await captures();
    const tab = await ext.ctx.newPage();
    await tab.goto(deleted);
    await until(async () => (await captures()) > opened, 'the open tab\'s visit saved');
    await ext.evalSw(`chrome.history.deleteUrl({ url: ${JSON.stringify(deleted)} })`);
    await until(() => ext.evalSw<boolean>(`engine.pages.all().then((m) => !m.has(${JSON.stringify(deleted)}))`), 'the deleted page forgotten');
    expect(await searchPage(ext, { q: 'bravoword9' })).toEqual([]);
    // The tab's page keeps changing: its visit was deleted, so it is not saved again.
    const before = await captures();
    await tab.evaluate(() => {
      for (let i = 0; i < 40; i++) document.body.insertAdjacentHTML('beforeend', `<p>Update ${i} with enough words in it to count as a change of the page.</p>`);
    });
    await tab.waitForTimeout(4000);
    expect(await captures()).toBe(before);
    await tab.close();
    // Its pending capture and navigation are gone (it cannot be filed later); the other page's stay.
    expect(await pending()).toEqual(['outbox:hd2']);
    expect(await ext.evalSw<number>(`rereadDebug.sightingsFor(${JSON.stringify(deleted)})`)).toBe(0);
    expect(await ext.evalSw<number>(`rereadDebug.sightingsFor(${JSON.stringify(kept)})`)).toBe(1);
    expect((await searchPage(ext, { q: 'bravoword10' })).map((r) => r.href.split('#')[0])).toEqual([kept]);
    await ext.evalSw(`chrome.storage.session.remove('outbox:hd2')`);
  });

  it('clearing all history forgets every page, and every capture still waiting in the outbox', async () => {
    const kept = `http://charlie.test:${port}/p11`;
    await ext.evalSw(`rereadDebug.recordSighting(${JSON.stringify(kept)})`);
    await ext.evalSw(`chrome.storage.session.set({ 'outbox:hd3': ${JSON.stringify({ nonce: 'd3'.repeat(16), url: kept, at: Date.now(), payload: { title: 'Visit', lang: 'en', blocks: [{ kind: 'text', text: 'laterword '.repeat(40) }] } })} })`);
    expect((await engineStatsPages()) > 100).toBe(true);
    const backfill = () => ext.evalSw<string>('rereadDebug.dayOne.status().then((s) => s.backfill.state)');
    expect(await backfill()).toBe('done');
    // A tab whose page is not stored yet (nothing in it so far) is open as all history is deleted.
    const late = `http://charlie.test:${port}/empty`;
    const lateCaptures = () => ext.evalSw<number>(`engine.captureLog.filter((l) => l.url === ${JSON.stringify(late)}).length`);
    const tab = await ext.ctx.newPage();
    await tab.goto(late);
    await until(async () => (await lateCaptures()) > 0, 'the empty page read (and not stored)');
    expect(await ext.evalSw(`engine.pages.get(${JSON.stringify(late)})`)).toBeUndefined();
    const lateBefore = await lateCaptures();
    await ext.evalSw('chrome.history.deleteAll()');
    await until(async () => (await engineStatsPages()) === 0, 'every page forgotten');
    // Its content comes after the deletion: that visit was deleted with the rest, so it is not saved.
    await tab.bringToFront();
    await tab.evaluate(() => {
      for (let i = 0; i < 40; i++) document.querySelector('main')!.insertAdjacentHTML('beforeend', `<p>Update ${i}: lateword news in a sentence long enough to count as text.</p>`);
    });
    await tab.waitForTimeout(4000);
    expect(await lateCaptures()).toBe(lateBefore);
    expect(await engineStatsPages()).toBe(0);
    // The control: loaded again (a new visit), the same change is saved.
    const reloaded = await lateCaptures();
    await tab.reload();
    await until(async () => (await lateCaptures()) > reloaded, 'the new visit read');
    await tab.evaluate(() => {
      for (let i = 0; i < 40; i++) document.querySelector('main')!.insertAdjacentHTML('beforeend', `<p>Update ${i}: lateword news in a sentence long enough to count as text.</p>`);
    });
    await until(async () => (await engineStatsPages()) === 1, 'the new visit saved');
    await ext.evalSw(`engine.deleteUrls([${JSON.stringify(late)}])`);
    await tab.close();
    expect(await ext.evalSw<string[]>(`chrome.storage.session.get(null).then((all) => Object.keys(all).filter((k) => k.startsWith('outbox:')))`)).toEqual([]);
    expect(await ext.evalSw<number>(`rereadDebug.sightingsFor(${JSON.stringify(kept)})`)).toBe(0);
    expect(await searchPage(ext, { q: 'charlieword11' })).toEqual([]);
    // As "forget everything" does, the backfill is over: nothing it had queued is read again.
    expect(await backfill()).toBe('cancelled');
  });
});

const engineStatsPages = () => ext.evalSw<number>('engine.stats().then((s) => s.pages)');
