/**
 * The product in a real Firefox (ESR, from Debian), one browser for the whole file: capture by heading
 * and search through search.html (the same testing contract as the Chromium suite), a page left before
 * its capture ran, the dense lane draining and a paraphrase found by meaning, options stats, the popup
 * (typing, keyboard), the omnibox and context-menu listeners driven through Firefox's own event paths,
 * exclusions, forgetting a site and (from the popup) one page, export then import into a fresh profile, and private windows never
 * captured. The Firefox differences are asserted where they show: no offscreen document (the model runs
 * in the background page), no favicon service, omnibox suggestions as plain text, `contextMenus`
 * without `menus`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ElementHandle, Page } from 'puppeteer-core';
import { downloadedFile, engineStats, launchFirefox, readStats, searchPage, serve, until, visit, ROOT, type FirefoxExtension, type FixtureServer } from './harness.js';
import { readResultRows, resultsSettled } from '../shared/contract.js';
import { wordPage } from '../shared/corpus.js';

let ext: FirefoxExtension;
let server: FixtureServer;
const ARTIFACTS = join(ROOT, 'tests/firefox/artifacts');

const HOSTILE = `<!doctype html><html><head><title>&lt;img src=x onerror="window.__pwned=1"&gt; Hostile title</title></head>
<body><article><h1>Payloads &lt;script&gt;window.__pwned=2&lt;/script&gt;</h1>
<h2 id="x">&lt;b onmouseover=alert(1)&gt;quasarbolt heading&lt;/b&gt;</h2>
<p>The quasarbolt text contains &lt;img src=x onerror=alert(1)&gt; and &lt;match&gt;omnibox&lt;/match&gt; markup that must stay text everywhere it is shown.</p>
<p>More words so the page is long enough to be worth keeping in the index for this test of escaping.</p>
</article></body></html>`;

beforeAll(async () => {
  server = await serve();
  server.routes.set('/hostile.html', HOSTILE);
  for (const w of ['hushwort', 'openwort']) server.routes.set(`/i/${w}.html`, wordPage('Private', w));
  ext = await launchFirefox({ privateBrowsing: true });
});
afterAll(async () => {
  await ext?.close();
  await server?.close();
});

async function results(page: Page): Promise<string[]> {
  await page.waitForFunction(resultsSettled, { polling: 50 });
  return (await page.evaluate(readResultRows)).map((r) => r.href);
}

/** Polls `read` until it returns something `ok` accepts (the last value is returned either way). */
async function poll<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string, timeoutMs = 15_000): Promise<T> {
  let last: T | undefined;
  await until(async () => ok((last = await read())), `${what} (last: ${JSON.stringify(last)})`, timeoutMs, 100);
  return last as T;
}

const tabUrls = async () => Promise.all((await ext.browser.pages()).map((p) => p.url()));

describe('capture and search', () => {
  it('finds a visited section by a word only that section contains, on search.html', async () => {
    await visit(ext, [server.url('/cats.html'), server.url('/git-undo.html'), server.url('/hostile.html')]);
    await until(async () => (await engineStats(ext)).pages >= 3, 'three pages stored');
    // The content script cut the pages into sections; the background only checked them (issue 19).
    expect(await ext.bg<string[]>(`engine.captureLog.filter((e) => e.url.endsWith('/cats.html')).map((e) => e.cutBy)`)).toContain('page');
    const rows = await searchPage(ext, { q: 'zephyrine' });
    expect(rows.length).toBe(1);
    expect(rows[0]!.href).toBe(server.url('/cats.html') + '#litter');
    expect(rows[0]!.title).toBe('Living with Cats: A Practical Guide');
    expect(rows[0]!.section).toContain('The litter box');
    expect(rows[0]!.snippet.toLowerCase()).toContain('zephyrine');
    expect((await searchPage(ext, { q: 'ERR_5041' }))[0]?.href).toBe(server.url('/git-undo.html') + '#reset');
    expect((await searchPage(ext, { q: 'litter', site: 'example.com' }))).toEqual([]);
    expect(await searchPage(ext, { q: 'qwxzzvk' })).toEqual([]);
  });

  it('captures a page that is left before its capture ran', async () => {
    const page = await ext.browser.newPage();
    await page.goto(server.url('/bread.html'), { waitUntil: 'load' });
    await new Promise((r) => setTimeout(r, 150));
    await page.goto('about:blank');
    await page.close();
    await until(async () => (await searchPage(ext, { q: 'sourdough starter' })).length > 0, 'bread page captured as it was left');
  });

  it('renders hostile page text as text and runs none of it', async () => {
    const page = await ext.openExtensionPage('search.html?q=quasarbolt');
    await page.waitForFunction(resultsSettled, { polling: 50 });
    const row = (await page.evaluate(readResultRows))[0]!;
    expect(row.title).toContain('<img src=x onerror="window.__pwned=1">');
    expect(row.snippet).toContain('<img src=x onerror=alert(1)>');
    expect(await page.$$eval('[data-testid="result"] script, [data-testid="result"] b, [data-testid="result"] img[src="x"]', (els) => els.length)).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    await page.close();
  });
});

describe('dense lane (the model in the background page)', () => {
  it('drains the embedding queue and finds a page by a paraphrase that shares no word with it', async () => {
    const stats = await poll(() => readStats(ext), (s) => s.pages >= 4 && s.pendingEmbeddings === 0, 'pages stored and embedded', 60_000);
    expect(stats.chunks).toBeGreaterThanOrEqual(10);
    // Neither word appears in the corpus; the bundled word vectors relate them to baking bread.
    const rows = await searchPage(ext, { q: 'cake pastry' });
    expect(rows[0]?.href.startsWith(server.url('/bread.html'))).toBe(true);
    expect(rows[0]?.lanes).toEqual(['dense']);
  });

  it('has no offscreen document: the model ran in the background page', async () => {
    const where = await ext.bg<{ offscreen: string; views: string[]; vectors: number }>(`(async () => ({
      offscreen: typeof bg.browser.offscreen,
      views: browser.extension.getViews().map((w) => new URL(w.location.href).pathname),
      vectors: (await debug.verifyIndex(engine, false)).checked.vectors,
    }))()`);
    expect(where.offscreen).toBe('undefined');
    expect(where.views).not.toContain('/offscreen.html');
    // The background page Firefox generates for `background.scripts`, and the control tab: nothing else.
    expect(where.views.some((v) => v.includes('background'))).toBe(true);
    expect(where.vectors).toBeGreaterThan(0);
  });
});

describe('popup', () => {
  it('searches as you type, moves with the keyboard and opens the selected section', async () => {
    const page = await ext.openExtensionPage('popup.html');
    const box = '[data-testid="search-input"]';
    await page.waitForSelector(box);
    await poll(() => page.$eval(box, (el) => el === document.activeElement), (v) => v, 'the search box focused');
    await page.type(box, 'dental care', { delay: 15 });
    const first = await poll(() => results(page), (r) => r[0] === server.url('/cats.html') + '#teeth', 'the dental care answer');
    expect(first[0]).toBe(server.url('/cats.html') + '#teeth');
    // No favicon service in Firefox (Chrome's `favicon` permission): no icon, and no request for one.
    expect(await page.$$eval('.result__icon', (els) => els.length)).toBe(0);
    await page.locator(box).fill('the');
    await poll(() => page.$$eval('[role="option"]', (els) => els.length), (n) => n >= 3, 'three results for "the"');
    const selected = () => page.$$eval('[role="option"]', (els) => els.map((e) => e.getAttribute('aria-selected')));
    expect((await selected())[0]).toBe('true');
    await page.keyboard.press('ArrowUp');
    expect((await selected())[0]).toBe('true');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    expect((await selected())[2]).toBe('true');
    expect(await page.$eval(box, (el) => el.getAttribute('aria-activedescendant'))).toBe('option-2');
    await page.keyboard.press('ArrowUp');
    expect(await selected()).toEqual(expect.arrayContaining(['true']));
    expect((await selected())[1]).toBe('true');
    await page.keyboard.press('Escape');
    expect(await page.$eval(box, (el) => (el as HTMLInputElement).value)).toBe('');
    await page.locator(box).fill('litter');
    await poll(() => results(page), (r) => r[0] === server.url('/cats.html') + '#litter', 'the litter answer');
    await page.keyboard.press('Enter');
    await until(async () => (await tabUrls()).includes(server.url('/cats.html') + '#litter'), 'the result opened');
  });

  it('saves a screenshot of the popup in Firefox', async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    const page = await ext.openExtensionPage('popup.html');
    await page.setViewport({ width: 560, height: 600 });
    await page.locator('[data-testid="search-input"]').fill('cats');
    await page.waitForSelector('[data-testid="result"]');
    await page.waitForFunction(resultsSettled, { polling: 50 });
    await page.screenshot({ path: join(ARTIFACTS, 'popup-firefox.png') });
    await page.close();
  });
});

describe('popup: forget this page', () => {
  it('forgets the page of the tab in front, with undo; the open tab does not save this visit again', async () => {
    server.routes.set('/i/kettle.html', `<html><head><title>Kettle notes</title></head><body><main><h1>Descaling</h1><p>The word kettlewhistle appears only on this page about descaling a kettle with citric acid.</p></main></body></html>`);
    const url = server.url('/i/kettle.html');
    const captured = (since: number) => ext.bg<boolean>(`engine.captureLog.some((l) => l.url === ${JSON.stringify(url)} && l.at >= ${since})`);
    const tab = await ext.browser.newPage();
    const since = Date.now() - 1000;
    await tab.goto(url, { waitUntil: 'load' });
    await until(() => captured(since), 'the capture of the kettle page');
    const popup = await ext.openExtensionPage('popup.html');
    // The popup reads the active tab when it loads: the web page's tab is brought to the front first.
    await tab.bringToFront();
    await popup.evaluate(() => location.reload());
    await popup.waitForSelector('[data-testid="forget-page"]');
    // Read: the popup comes to the front, as a real one is (a background tab paints no frames to click on).
    await popup.bringToFront();
    await popup.locator('[data-testid="forget-page"]').click();
    await poll(() => popup.$eval('[data-testid="undo-bar"]', (el) => el.textContent ?? '').catch(() => ''), (t) => t.startsWith('Forgot “Kettle notes”.'), 'the undo bar');
    expect(await searchPage(ext, { q: 'kettlewhistle' })).toEqual([]);
    await popup.locator('[data-testid="undo"]').click();
    await poll(() => popup.$eval('[data-testid="exclude-done"]', (el) => el.textContent ?? '').catch(() => ''), (t) => t === 'Restored 1 page.', 'restored');
    expect((await searchPage(ext, { q: 'kettlewhistle' })).length).toBe(1);
    // Restored: the worker told the tab, which saves its changes again (the same change below is not saved).
    const grow = (word: string) =>
      tab.evaluate((w) => {
        for (let i = 0; i < 40; i++) document.querySelector('main')!.insertAdjacentHTML('beforeend', `<p>Paragraph ${i} mentions ${w} in a sentence long enough to count.</p>`);
      }, word);
    await tab.bringToFront();
    const restoredAt = Date.now() - 1000;
    await grow('descalerfresh');
    await until(() => captured(restoredAt), 'a change after the undo saved');
    await popup.bringToFront();
    await ext.bg('(engine.forget.undoMs = 1500, true)');
    await popup.locator('[data-testid="forget-page"]').click();
    await poll(() => popup.$eval('[data-testid="exclude-done"]', (el) => el.textContent ?? '').catch(() => ''), (t) => t.endsWith('Opening this page again saves it again.'), 'the final message', 10_000);
    // A large change on the open page, in front: this visit was forgotten (the content script was told), so it is not saved.
    await tab.bringToFront();
    const count = () => ext.bg<number>(`engine.captureLog.filter((l) => l.url === ${JSON.stringify(url)}).length`);
    const before = await count();
    await grow('teapotsteam');
    await new Promise((r) => setTimeout(r, 4000));
    expect(await count()).toBe(before);
    expect(await searchPage(ext, { q: 'teapotsteam' })).toEqual([]);
    await ext.bg('(engine.forget.undoMs = 15000, true)');
    await popup.close();
    await tab.close();
  });
});

describe('omnibox (through Firefox\u2019s address-bar handler)', () => {
  const search = (text: string) =>
    ext.chrome<{ content: string; description: string }[]>(`new Promise((resolve, reject) => {
      const { ExtensionSearchHandler } = ChromeUtils.importESModule('resource://gre/modules/ExtensionSearchHandler.sys.mjs');
      ExtensionSearchHandler.handleSearch({ keyword: 'rr', text: ${JSON.stringify('rr ' + text)}, inPrivateWindow: false }, (s) => resolve(s.map((x) => ({ content: x.content, description: x.description })))).then((done) => { if (done === false) reject(new Error('refused')); }, reject);
    })`);

  it('suggests sections as plain text (Firefox shows no markup) and opens them', async () => {
    const suggestions = await search('quasarbolt');
    expect(suggestions.length).toBe(1);
    expect(suggestions[0]!.content).toBe(server.url('/hostile.html') + '#x');
    // Plain text: page text as it is (Firefox would show escapes literally), no <match>/<dim> markup.
    expect(suggestions[0]!.description).toContain('<img src=x onerror=alert(1)>');
    // (The page's own text holds a literal "<match>omnibox</match>"; ours would wrap the matched word.)
    expect(suggestions[0]!.description).not.toMatch(/<match>quasarbolt<\/match>|<\/?dim>|&lt;|&gt;|&amp;/);
    expect((await search('litter site:example.com')).length).toBe(0);
    // Enter on the typed text opens the results page, the query handed over in memory (not in the URL).
    const tab = await ext.newTab(
      () => ext.chrome(`(ChromeUtils.importESModule('resource://gre/modules/ExtensionSearchHandler.sys.mjs').ExtensionSearchHandler.handleInputEntered('rr', 'rr sourdough starter', 'tab'), true)`),
      (u) => u.startsWith(ext.extensionUrl('search.html')),
    );
    expect(tab.url()).not.toContain('sourdough');
    await poll(() => tab.$eval('[data-testid="search-input"]', (el) => (el as HTMLInputElement).value).catch(() => ''), (v) => v === 'sourdough starter', 'the query on the results page');
    expect(await results(tab)).toContain(server.url('/bread.html') + '#starter');
    await tab.close();
    // Enter on a suggestion opens the page at its section.
    await search('revert');
    await ext.chrome(`(ChromeUtils.importESModule('resource://gre/modules/ExtensionSearchHandler.sys.mjs').ExtensionSearchHandler.handleInputEntered('rr', ${JSON.stringify('rr ' + server.url('/git-undo.html') + '#revert')}, 'tabshifted'), true)`);
    await until(async () => (await tabUrls()).includes(server.url('/git-undo.html') + '#revert'), 'the suggestion opened');
  });
});

describe('context menu (contextMenus; Firefox has no browser.menus without that permission)', () => {
  /** Fires a click on one of our menu items the way Firefox's context menu does (parent-side event). */
  const click = (info: Record<string, unknown>) =>
    ext.chrome(`(() => {
      const win = Services.wm.getMostRecentWindow('navigator:browser');
      WebExtensionPolicy.getByID(${JSON.stringify(ext.id)}).extension.emit('webext-menu-menuitem-click', ${JSON.stringify({ editable: false, ...info })}, win.gBrowser.selectedTab);
      return true;
    })()`);

  it('uses contextMenus, which Firefox provides', async () => {
    expect(await ext.bg<{ menus: string; contextMenus: string }>(`({ menus: typeof bg.browser.menus, contextMenus: typeof bg.browser.contextMenus })`)).toEqual({ menus: 'undefined', contextMenus: 'object' });
  });

  it('looks up the selection on the results page', async () => {
    const tab = await ext.newTab(() => click({ menuItemId: 'reread-selection', selectionText: '  the  litter box ', pageUrl: 'https://example.org/' }), (u) => u.startsWith(ext.extensionUrl('search.html')));
    await poll(() => tab.$eval('[data-testid="search-input"]', (el) => (el as HTMLInputElement).value).catch(() => ''), (v) => v === 'the litter box', 'the selection on the results page');
    expect(tab.url()).not.toContain('litter');
    expect((await results(tab))[0]).toBe(server.url('/cats.html') + '#litter');
    await tab.close();
  });

  it('finds pages related to this one, leaving this one out', async () => {
    const tab = await ext.newTab(() => click({ menuItemId: 'reread-related', pageUrl: server.url('/bread.html') }), (u) => u.startsWith(ext.extensionUrl('search.html')));
    const hrefs = await poll(() => results(tab), (h) => h.length > 0, 'related pages');
    expect(hrefs.some((h) => h.startsWith(server.url('/bread.html')))).toBe(false);
    await tab.close();
  });
});

describe('private windows', () => {
  it('the add-on is allowed in private windows (as a user can allow it)', async () => {
    expect(await ext.bg<boolean>('browser.extension.isAllowedIncognitoAccess()')).toBe(true);
  });

  it('a page read in a private window is never captured; the same kind of page in a normal window is', async () => {
    const url = server.url('/i/hushwort.html');
    const win = await ext.bg<{ id: number; incognito: boolean }>(`browser.windows.create({ incognito: true, url: ${JSON.stringify(url)} }).then((w) => ({ id: w.id, incognito: w.incognito }))`);
    expect(win.incognito).toBe(true);
    await until(async () => server.requests.includes('/i/hushwort.html'), 'the private page loaded');
    // Well past the time a normal page takes to be captured.
    await new Promise((r) => setTimeout(r, 3000));
    expect(await ext.bg<number>(`debug.hellosFor(${JSON.stringify(url)})`)).toBe(0);
    expect(await ext.bg<number>(`engine.captureLog.filter((l) => l.url === ${JSON.stringify(url)}).length`)).toBe(0);
    expect(await searchPage(ext, { q: 'hushwort' })).toEqual([]);
    expect(await ext.bg<string[]>(`browser.storage.local.get(null).then((all) => Object.keys(all).filter((k) => k.startsWith('outbox:')))`)).toEqual([]);
    await ext.bg(`browser.windows.remove(${win.id}).then(() => true)`);

    await visit(ext, [server.url('/i/openwort.html')]);
    await until(async () => (await searchPage(ext, { q: 'openwort' })).length > 0, 'the normal page is searchable');
  });
});

describe('options', () => {
  it('excludes a site: its pages are forgotten and no longer captured', async () => {
    const other = server.url('/cats.html').replace('127.0.0.1', 'localhost');
    await visit(ext, [other]);
    await until(async () => (await searchPage(ext, { q: 'zephyrine', site: 'localhost' })).length === 1, 'localhost page stored');
    const page = await ext.openExtensionPage('options.html');
    await page.locator('[data-testid="exclude-input"]').fill('localhost');
    await page.locator('[data-testid="exclude-add"]').click();
    await poll(() => page.$eval('[data-testid="excluded-list"]', (el) => el.textContent ?? ''), (t) => t.includes('localhost'), 'localhost in the exclusion list');
    // Excluding stops future captures at once and asks, with the count, about what is stored.
    await poll(() => page.$eval('[data-testid="confirm-count"]', (el) => el.textContent ?? '').catch(() => ''), (t) => /^Forget 1 page from localhost, visited [^–]+\?$/.test(t), 'the forget question');
    await page.locator('[data-testid="confirm-ok"]').click();
    expect(await searchPage(ext, { q: 'zephyrine', site: 'localhost' })).toEqual([]);
    const before = (await readStats(ext)).pages;
    // Excluded: nothing to wait for, so the page is kept open past the time a capture takes.
    await visit(ext, [server.url('/git-undo.html').replace('127.0.0.1', 'localhost')], { dwellMs: 1300 });
    expect((await readStats(ext)).pages).toBe(before);
    expect(await searchPage(ext, { q: 'revert', site: 'localhost' })).toEqual([]);
    await page.close();
  });

  it('forgets a site and leaves no trace of it in any store, the outbox included', async () => {
    const other = await serve({}, '127.0.0.2');
    other.routes.set('/forget.html', '<html><head><title>Forget me</title></head><body><h1>Forget me</h1><p>The word grumblewick appears only on this page, which lives on a separate site for this test of forgetting.</p></body></html>');
    await visit(ext, [other.url('/forget.html')]);
    await other.close();
    await until(async () => (await searchPage(ext, { q: 'grumblewick' })).length === 1, 'page on 127.0.0.2 stored');
    // Traces of that site in the outbox: a recorded hello, and a capture still waiting in storage.local
    // (its page's hello not recorded yet, so the drain keeps it for the grace period).
    await ext.bg(`debug.registerHello(${JSON.stringify('c3'.repeat(16))}, ${JSON.stringify(other.url('/late.html'))}).then(() => true)`);
    const waiting = { nonce: 'd4'.repeat(16), url: other.url('/waiting.html'), at: Date.now(), payload: { title: 'Waiting', lang: 'en', blocks: [{ kind: 'text', text: 'grumblewick '.repeat(30) }] } };
    await ext.bg(`browser.storage.local.set({ 'outbox:waiting1': ${JSON.stringify(waiting)} }).then(() => true)`);
    await new Promise((r) => setTimeout(r, 500));
    expect(await ext.bg<boolean>(`browser.storage.local.get('outbox:waiting1').then((g) => !!g['outbox:waiting1'])`)).toBe(true);
    expect(await ext.bg<number>(`debug.hellosFor(${JSON.stringify(other.url('/late.html'))})`)).toBe(1);
    // A short undo window, so the purge that follows it is seen here.
    await ext.bg('(engine.forget.undoMs = 1500, true)');
    const page = await ext.openExtensionPage('options.html');
    await page.waitForSelector('[data-testid="delete-site-select"] option[value="127.0.0.2"]');
    await page.select('[data-testid="delete-site-select"]', '127.0.0.2');
    await page.locator('[data-testid="delete-site"]').click();
    await poll(() => page.$eval('[data-testid="confirm-count"]', (el) => el.textContent ?? '').catch(() => ''), (t) => /^Forget 1 page from 127\.0\.0\.2, visited /.test(t), 'the forget question');
    await page.locator('[data-testid="confirm-ok"]').click();
    // While undoable, then (the 1.5 s window over) the final outcome: either says it was forgotten.
    await poll(() => page.$eval('[data-testid="options-message"]', (el) => el.textContent ?? ''), (t) => t.includes('1 page forgotten') || t === 'Forgot 1 page from 127.0.0.2. This can no longer be undone.', 'the forget message');
    expect(await searchPage(ext, { q: 'grumblewick' })).toEqual([]);
    await until(async () => (await ext.bg<unknown[]>('engine.forget.pending(0)')).length === 0, 'the forget purged after its window');
    const dump = await ext.bg<string>(`(async () => {
      const db = await engine.db();
      const out = [];
      for (const store of db.objectStoreNames) out.push(JSON.stringify(await db.getAll(store), (k, v) => (ArrayBuffer.isView(v) ? Array.from(v) : v)));
      out.push(JSON.stringify(await browser.storage.local.get(null)));
      out.push('hellos ' + (await debug.hellosFor(${JSON.stringify(other.url('/late.html'))})));
      return out.join('\\n');
    })()`);
    expect(dump).not.toContain('127.0.0.2');
    expect(dump).toContain('hellos 0');
    expect(dump.toLowerCase()).not.toContain('grumblewick');
    expect((await ext.bg<{ problems: string[] }>('debug.verifyIndex(engine, false)')).problems).toEqual([]);
    await page.close();
  });

  it('exports, then imports into a fresh profile with the same results', async () => {
    const page = await ext.openExtensionPage('options.html');
    await page.locator('[data-testid="export"]').click();
    const file = await downloadedFile(ext, '.jsonl');
    const queries = ['litter', 'revert a pushed commit', 'sourdough', 'quasarbolt'];
    const expected: string[][] = [];
    for (const q of queries) expected.push((await searchPage(ext, { q })).map((r) => r.href));
    await page.close();

    const fresh = await launchFirefox();
    try {
      const p = await fresh.openExtensionPage('options.html');
      const input = (await p.waitForSelector('[data-testid="import-file"]')) as ElementHandle<HTMLInputElement>;
      await input.uploadFile(file);
      await poll(() => p.$eval('[data-testid="options-message"]', (el) => el.textContent ?? ''), (t) => /Imported \d+ pages/.test(t), 'the import message', 30_000);
      await until(async () => (await engineStats(fresh)).pendingEmbeddings === 0, 'imported pages embedded', 60_000);
      for (const [i, q] of queries.entries()) expect((await searchPage(fresh, { q })).map((r) => r.href)).toEqual(expected[i]);
      expect(await fresh.consoleProblems()).toEqual([]);
    } finally {
      await fresh.close();
    }
  });
});

describe('console', () => {
  it('logged no errors or warnings from Reread beyond the allowed ones', async () => {
    expect(await ext.consoleProblems()).toEqual([]);
  });
});
