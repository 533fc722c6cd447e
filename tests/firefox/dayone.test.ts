/**
 * Day one (#14) in a real Firefox (ESR, from Debian): what the issue asks that Firefox supports.
 *
 * - Tabs open before the install: the browser starts without Reread, pages are opened (and two more
 *   visited and closed: the history), then the add-on is installed into the running browser (BiDi
 *   webExtension.install, as a user installing it); runtime.onInstalled injects the content script into
 *   the open tabs. A tab opened while capture is paused is read when capture is resumed.
 * - The history, titles first: the first-run card in Options asks for the optional `history` permission
 *   from the user's click; Firefox shows its own permission prompt (the doorhanger) and the test answers
 *   it the way a user does, by its "Allow" button (from the browser's chrome scope: BiDi cannot click
 *   browser UI). The pages visited before the install are found by title words, marked "visited, not
 *   read by Reread".
 * - The backfill reads them in the background page (Firefox has no offscreen document; the same
 *   extractor and chunker), and the site sees no cookie although the browser holds one for it.
 * - A PDF opened in Firefox's built-in viewer (pdf.js, whose document runs no content script) is read
 *   from the tab's `.pdf` address: found by a phrase from page 3, its link ending in `#page=3`. A PDF
 *   at an address without `.pdf` is not recognised in Firefox (no content script in the viewer, and
 *   knowing the response type would need the `webRequest` permission): not tested here, see the README.
 * - A PDF opened from disk (`file://`) is not read: Firefox lets no extension read local files. Nothing
 *   is attempted, nothing errors, and Options says so.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'puppeteer-core';
import { launchFirefox, searchPage, until, type FirefoxExtension } from './harness.js';
import { makePdf, pageLines } from '../fixtures/makePdf.js';

const para = (words: string) => `<p>${words} This paragraph goes on with ordinary sentences so that the page holds enough text to be worth keeping in the index of the reader.</p>`;
const PAGES: Record<string, string> = {
  '/open-a': `<!doctype html><title>Kiln notes</title><main><h1>Kilns</h1>${para('The xyloteapot quillwort was glazed twice in the small kiln.')}</main>`,
  '/open-b': `<!doctype html><title>River notes</title><main><h1>Rivers</h1>${para('The marshbrook gravelrun meanders through seven valleys.')}</main>`,
  '/paused': `<!doctype html><title>Paused page</title><main><h1>Paused</h1>${para('The cobblestone weathervane page was opened while capture was paused.')}</main>`,
  // Long enough for the backfill to keep (it leaves pages under 40 words title-only).
  '/hist-1': `<!doctype html><title>Lanternfish almanac</title><main><h1>Almanac</h1>${para('The dovetailer tide tables list every lanternfish run of the season.')}<h2>Harbours</h2>${para('Each harbour keeps its own ledger of boats, nets and weather.')}</main>`,
  '/hist-2': `<!doctype html><title>Bramblewick ledger</title><main><h1>Ledger</h1>${para('The tinderbox accounts of the bramblewick cooperative, year by year.')}<h2>Members</h2>${para('The members meet twice a year to settle the accounts and elect a clerk.')}</main>`,
};
const PDF = makePdf({
  title: 'Field guide to maps',
  pages: [pageLines(1, 'opening survey'), pageLines(2, 'method of triangles'), pageLines(3, 'heliotrope cartography'), pageLines(4, 'closing tables')],
  outline: [
    { title: 'Introduction', level: 1, page: 1 },
    { title: 'Methods', level: 1, page: 2 },
    { title: 'Mapping the coast', level: 2, page: 3 },
    { title: 'Results', level: 1, page: 4 },
  ],
});

let server: Server;
let origin = '';
let ext: FirefoxExtension;
const seen: { path: string; cookie?: string }[] = [];
const HOST = 'reread-ff.test';

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    seen.push({ path, ...(req.headers.cookie ? { cookie: req.headers.cookie } : {}) });
    if (path === '/guide.pdf') return void res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': PDF.length }).end(PDF);
    const html = PAGES[path];
    if (!html) return void res.writeHead(404).end();
    // Every page gives the browser a cookie for this site: a request made as the user carries it.
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'set-cookie': 'session=reader; Path=/' }).end(html);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  // A name, not 127.0.0.1: the backfill does not fetch addresses on the user's own machine again
  // (src/backfillPolicy.ts localNetworkAddress). Firefox resolves the listed names to this machine.
  origin = `http://${HOST}:${(server.address() as { port: number }).port}`;
  ext = await launchFirefox({
    prefs: { 'network.dns.localDomains': HOST },
    beforeInstall: async (_chrome, browser) => {
      // The history: two pages visited and closed again (only history knows them now).
      const h = await browser.newPage();
      for (const p of ['/hist-1', '/hist-2']) await h.goto(origin + p, { waitUntil: 'load' });
      await h.close();
      // Tabs still open when Reread is installed.
      for (const p of ['/open-a', '/open-b']) await (await browser.newPage()).goto(origin + p, { waitUntil: 'load' });
    },
  });
}, 120_000);

afterAll(async () => {
  await ext?.close();
  server?.closeAllConnections();
  server?.close();
});

const pageOf = (url: string) => ext.bg<{ kind?: string; title: string; pdf?: { pages: number; read: number } } | null>(`engine.db().then((db) => db.get('pages', ${JSON.stringify(url)})).then((p) => p ? { kind: p.kind, title: p.title, pdf: p.pdf } : null)`);

async function optionsPage(): Promise<Page> {
  return ext.openExtensionPage('options.html');
}

describe('day one in Firefox', () => {
  it('tabs open before the install are captured once it is installed; closed ones are not', async () => {
    // Nothing but the install event starts this (runtime.onInstalled -> the open-tabs sweep).
    await until(async () => (await pageOf(`${origin}/open-a`)) && (await pageOf(`${origin}/open-b`)), 'open tabs captured', 30_000, 300);
    expect(await ext.bg<number>('debug.openTabsLog.sweeps')).toBeGreaterThanOrEqual(1);
    expect(await pageOf(`${origin}/hist-1`)).toBeNull();
    const rows = await searchPage(ext, { q: 'xyloteapot quillwort' });
    expect(rows.map((r) => r.href.split('#')[0])).toEqual([`${origin}/open-a`]);
  });

  it('a tab opened while capture was paused is read when capture is resumed', async () => {
    const options = await optionsPage();
    await options.waitForSelector('[data-testid=pause]');
    await options.click('[data-testid=pause]');
    await until(async () => (await ext.bg<{ paused: boolean }>('engine.settings()')).paused, 'paused');
    // The toolbar button says so (background/main.ts showPaused), in Firefox as in Chrome.
    await until(async () => (await ext.bg<string>('browser.action.getBadgeText({})')) === 'off', 'the badge says off');
    expect(await ext.bg<string>('browser.action.getTitle({})')).toMatch(/saving is paused/);
    const tab = await ext.browser.newPage();
    await tab.goto(`${origin}/paused`, { waitUntil: 'load' });
    await new Promise((r) => setTimeout(r, 2000));
    expect(await pageOf(`${origin}/paused`)).toBeNull();
    await options.bringToFront();
    await options.click('[data-testid=pause]');
    await until(() => pageOf(`${origin}/paused`), 'the paused tab read after resuming', 20_000, 300);
    expect(await ext.bg<string>('browser.action.getBadgeText({})')).toBe('');
    await tab.close();
    await options.close();
  });

  it('the first-run card imports the history once the user allows it in Firefox’s prompt; entries are marked "from history, not read by Reread"', async () => {
    expect(await ext.bg<boolean>(`browser.permissions.contains({ permissions: ['history'] })`)).toBe(false);
    const options = await optionsPage();
    await options.waitForSelector('[data-testid=dayone-import]');
    await options.click('[data-testid=dayone-import]');
    // Firefox's own prompt for the optional permission, answered as a user would: "Allow".
    const answered = await until(
      () =>
        ext.chrome<string | null>(`(() => {
          for (const win of Services.wm.getEnumerator('navigator:browser')) {
            for (const browser of win.gBrowser.browsers) {
              const n = win.PopupNotifications.getNotification('addon-webext-permissions', browser);
              if (n) { n.mainAction.callback({ source: 'button' }); win.PopupNotifications.remove(n); return n.message ?? 'allowed'; }
            }
          }
          return null;
        })()`),
      'Firefox’s permission prompt',
      15_000,
      200,
    );
    expect(answered).toBeTruthy();
    await options.waitForSelector('[data-testid=dayone-import-done]', { timeout: 30_000 });
    expect(await ext.bg<boolean>(`browser.permissions.contains({ permissions: ['history'] })`)).toBe(true);
    // The pages visited before the install and closed: title-only entries. The open tabs stay read pages.
    expect((await pageOf(`${origin}/hist-1`))?.kind).toBe('title');
    expect((await pageOf(`${origin}/hist-2`))?.kind).toBe('title');
    expect((await pageOf(`${origin}/open-a`))?.kind).toBeUndefined();
    const rows = await searchPage(ext, { q: 'lanternfish almanac' }, options);
    expect(rows[0]?.href).toBe(`${origin}/hist-1`);
    const marker = await options.$eval('[data-testid=result-kind]', (e) => ({ text: e.textContent, kind: e.getAttribute('data-kind') }));
    expect(marker.kind).toBe('title');
    expect(marker.text).toBe('from history, not read by Reread');
    await options.close();
  });

  it('"Read these pages now" reads them in the background page, without the cookie the browser holds for the site', async () => {
    // Positive control: the browser does hold a cookie for this site and sends it on a normal visit.
    expect(seen.some((r) => r.path === '/hist-2' && r.cookie === 'session=reader')).toBe(true);
    const from = seen.length;
    const options = await optionsPage();
    await options.waitForSelector('[data-testid=dayone-backfill-warning]');
    expect(await options.$eval('[data-testid=dayone-backfill-warning]', (e) => e.textContent)).toContain('This contacts each site again');
    await options.click('[data-testid=dayone-backfill-start]');
    await until(async () => (await pageOf(`${origin}/hist-1`))?.kind === 'fetched' && (await pageOf(`${origin}/hist-2`))?.kind === 'fetched', 'both history pages read', 30_000, 300);
    const backfill = seen.slice(from).filter((r) => r.path === '/hist-1' || r.path === '/hist-2');
    expect(backfill.length).toBeGreaterThanOrEqual(2);
    expect(backfill.filter((r) => r.cookie !== undefined)).toEqual([]);
    // Found by its text now (read with the content script's extractor, cut by heading).
    const rows = await searchPage(ext, { q: 'dovetailer tide tables' });
    expect(rows[0]?.href.split('#')[0]).toBe(`${origin}/hist-1`);
    await until(async () => (await options.$eval('[data-testid=dayone-backfill-progress]', (e) => e.textContent).catch(() => ''))?.startsWith('2 of 2, 2 stored, 0 skipped'), 'progress on the options page', 10_000, 300);
    await options.close();
  });

  it('a PDF opened in Firefox’s viewer is found by a phrase from page 3, its link ending in #page=3', async () => {
    const tab = await ext.browser.newPage();
    await tab.goto(`${origin}/guide.pdf`).catch(() => undefined);
    const page = await until(() => pageOf(`${origin}/guide.pdf`), 'the PDF stored', 30_000, 300);
    expect(page.kind).toBe('pdf');
    expect(page.pdf).toEqual({ pages: 4, read: 4 });
    expect(page.title).toBe('Field guide to maps');
    const rows = await searchPage(ext, { q: '"heliotrope cartography"' });
    expect(rows).toHaveLength(1);
    expect(rows[0]!.href).toBe(`${origin}/guide.pdf#page=3`);
    expect(rows[0]!.section).toContain('Mapping the coast');
    // Read once more right after the tab loaded it, with the user's cookie (README says so).
    const fetches = seen.filter((r) => r.path === '/guide.pdf');
    expect(fetches.length).toBeGreaterThanOrEqual(2);
    expect(fetches.at(-1)!.cookie).toBe('session=reader');
    await tab.close();
    expect(await ext.consoleProblems()).toEqual([]);
  });

  it('a PDF opened from disk is not read (Firefox lets no extension read files), without an error; Options says so', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'reread-ff-local-'));
    try {
      writeFileSync(join(dir, 'local.pdf'), PDF);
      const url = pathToFileURL(join(dir, 'local.pdf')).href;
      const tab = await ext.browser.newPage();
      await tab.goto(url).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 3000));
      expect(await pageOf(url)).toBeNull();
      expect(await ext.bg<unknown[]>('debug.dayOne.status().then((s) => s.pdfNotes.filter((n) => n.url.startsWith("file:")))')).toEqual([]);
      // Even handed the address directly, the reader is not asked.
      expect(await ext.bg<string>(`debug.dayOne.pdf.handle(1, ${JSON.stringify(url)}, false, true)`)).toBe('no file access');
      await tab.close();
      const options = await optionsPage();
      await options.waitForSelector('[data-testid="local-pdfs"]');
      expect(await options.$eval('[data-testid="local-pdfs"]', (e) => [e.getAttribute('data-state'), e.textContent ?? ''])).toEqual(['unsupported', expect.stringContaining('Firefox does not let extensions read local files')]);
      await options.close();
      expect(await ext.consoleProblems()).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a history whose pages were mostly visited again since is imported whole (Firefox orders a read by last visit)', async () => {
    // Firefox answers history.search by each address's last visit of all, newest first: 1,200 pages
    // opened a month ago and again in the last hour fill every read before the 500 pages visited once in
    // between. Reading on from the oldest visit a read held left those 500 out (1,000 of 1,700 imported).
    const now = Date.now();
    await ext.chrome(`(async () => {
      const { PlacesUtils } = ChromeUtils.importESModule('resource://gre/modules/PlacesUtils.sys.mjs');
      const pages = [];
      for (let i = 0; i < 1200; i++) pages.push({ url: 'http://daily' + (i % 30) + '.test/d' + i, title: 'Daily ' + i, visits: [{ date: new Date(${now} - 30 * 86400000 - i * 1000) }, { date: new Date(${now} - 3600000 + i * 1000) }] });
      for (let i = 0; i < 500; i++) pages.push({ url: 'http://once' + (i % 20) + '.test/o' + i, title: 'Once ' + i, visits: [{ date: new Date(${now} - 86400000 - i * 4000000) }] });
      await PlacesUtils.history.insertMany(pages);
      return true;
    })()`);
    await ext.bg('debug.dayOne.importHistory(90)');
    await until(async () => (await ext.bg<string>('debug.dayOne.history.status().then((s) => s.state)')) !== 'running', 'the import over', 60_000, 300);
    expect(await ext.bg<string>('debug.dayOne.history.status().then((s) => s.state)')).toBe('done');
    const imported = await ext.bg<number>(`engine.pages.all().then((m) => [...m.values()].filter((p) => p.kind === 'title' && (p.url.startsWith('http://daily') || p.url.startsWith('http://once'))).length)`);
    expect(imported).toBe(1700);
  });
});
