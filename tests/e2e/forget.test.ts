/**
 * No data lost by one click (#16), in the real browser, with the browser in New York's time zone:
 * every destructive action in the options page and the popup counts first and says it in words,
 * confirms, and can be undone (undo restores the same results); cancel forgets nothing; an incomplete
 * range cannot be submitted; a range is local days, inclusive, by any visit, across a DST change; the
 * popup's "never save" stops captures and only asks about what is stored; retention changes are
 * previewed; counts and site lists follow at once; a worker stopped inside the undo window neither
 * loses the mark nor brings the pages back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright';
import { capturedSince, launch, searchPage, serve, tabsPermissionDist, until, visit, type Extension, type FixtureServer } from './harness.js';

const TZ = 'America/New_York';
let ext: Extension;
let server: FixtureServer;

beforeAll(async () => {
  server = await serve();
  ext = await launch({ dist: tabsPermissionDist(), timezone: TZ });
});
afterAll(async () => {
  await ext?.close();
  await server?.close();
});

/** Stores a page with a visit at a given wall-clock time in New York (the worker runs in that zone too). */
async function storeAt(url: string, word: string, wall: string): Promise<void> {
  const blocks = [
    { kind: 'heading', text: `Notes ${word}`, level: 1 },
    { kind: 'text', text: `This page is about ${word} and nothing else; the word ${word} appears here so a search finds this page again later.` },
  ];
  await ext.evalSw(`engine.capture(${JSON.stringify(url)}, { title: ${JSON.stringify(`Page ${word}`)}, lang: 'en', blocks: ${JSON.stringify(blocks)} }, new Date(${JSON.stringify(wall)}).getTime())`);
}

const found = async (q: string) => (await searchPage(ext, { q })).map((r) => r.href);

async function options(): Promise<Page> {
  const page = await ext.ctx.newPage();
  await page.goto(ext.extensionUrl('options.html'));
  await page.getByTestId('stat-pages').waitFor();
  return page;
}

const statPages = async (page: Page) => Number(await page.getByTestId('stat-pages').textContent());

/** Forgets a site in Options, confirmed: the page and its forget's undo bar (another forget's bar may still be up). */
async function forgetSiteInOptions(site: string): Promise<{ page: Page; bar: Locator }> {
  const page = await options();
  await page.getByTestId('delete-site-select').selectOption(site);
  await page.getByTestId('delete-site').click();
  await page.getByTestId('confirm-ok').click();
  const bar = page.getByTestId('undo-bar').filter({ hasText: site });
  await bar.waitFor();
  return { page, bar };
}

/** Captures logged for a URL (kept or not). */
const capturesOf = (url: string) => ext.evalSw<number>(`engine.captureLog.filter((l) => l.url === ${JSON.stringify(url)}).length`);

/** A large change to the tab's page (40 paragraphs naming `word`, numbered from `from`), made in front. */
async function grow(tab: Page, word: string, from = 0): Promise<void> {
  await tab.bringToFront();
  await tab.evaluate(
    ([w, n]) => {
      for (let i = n; i < n + 40; i++) document.querySelector('main')!.insertAdjacentHTML('beforeend', `<p>Update ${i}: ${w} news in a sentence long enough to count as text.</p>`);
    },
    [word, from] as const,
  );
}

describe('forgetting in the options page', () => {
  it('the browser and the worker run in New York time', async () => {
    expect(await ext.evalSw<string>('Intl.DateTimeFormat().resolvedOptions().timeZone')).toBe(TZ);
  });

  it('a range: incomplete or reversed cannot be submitted; local days, inclusive, by any visit, across the DST change', async () => {
    // 8 March 2026: clocks go forward in New York (a 23-hour day).
    await storeAt('https://a.example/before', 'alphadawn', '2026-03-07T23:30:00'); // the evening before
    await storeAt('https://a.example/start', 'bravodawn', '2026-03-08T00:10:00'); // just after local midnight (05:10 UTC)
    await storeAt('https://a.example/late', 'charliedawn', '2026-03-08T23:50:00'); // 03:50 UTC on the 9th
    await storeAt('https://a.example/after', 'deltadawn', '2026-03-09T00:05:00');
    await storeAt('https://a.example/twice', 'echodawn', '2026-03-01T10:00:00'); // first visit a week before…
    await storeAt('https://a.example/twice', 'echodawn', '2026-03-08T12:00:00'); // …and again that day
    const page = await options();
    const button = page.getByTestId('delete-range');
    expect(await button.isDisabled()).toBe(true); // both empty: the click that once forgot everything
    await page.getByTestId('range-after').fill('2026-03-08');
    expect(await button.isDisabled()).toBe(true);
    await page.getByTestId('range-before').fill('2026-03-07');
    expect(await button.isDisabled()).toBe(true);
    expect(await page.getByTestId('range-error').textContent()).toContain('before the first day');
    await page.getByTestId('range-before').fill('2026-03-08');
    expect(await button.isDisabled()).toBe(false);
    expect(await page.getByTestId('range-definition').textContent()).toContain('at any time in those days');
    await button.click();
    await expect.poll(() => page.getByTestId('confirm-count').textContent()).toMatch(/^Forget 3 pages visited on (Mar 8|8 Mar)\?$/);
    // Cancel forgets nothing.
    await page.getByTestId('confirm-cancel').click();
    expect(await page.getByTestId('options-message').textContent()).toBe('Nothing was forgotten.');
    expect((await found('bravodawn')).length).toBe(1);
    await button.click();
    await page.getByTestId('confirm-ok').click();
    await page.getByTestId('undo-bar').waitFor();
    for (const w of ['bravodawn', 'charliedawn', 'echodawn']) expect(await found(w), w).toEqual([]);
    for (const w of ['alphadawn', 'deltadawn']) expect((await found(w)).length, w).toBe(1);
    await page.getByTestId('undo').click();
    await expect.poll(() => page.getByTestId('options-message').textContent()).toBe('Restored 3 pages.');
    for (const w of ['alphadawn', 'bravodawn', 'charliedawn', 'deltadawn', 'echodawn']) expect((await found(w)).length, w).toBe(1);
    await page.close();
  });

  it('a site: counted in words, cancel keeps it, confirm hides it at once (counts and site list too), undo restores the same results', async () => {
    await visit(ext, [server.url('/cats.html'), server.url('/git-undo.html'), server.url('/bread.html')]);
    await until(async () => (await found('zephyrine')).length === 1, 'fixture pages stored');
    const queries = ['litter', 'revert commit', 'sourdough', 'the'];
    const before = await Promise.all(queries.map((q) => found(q)));
    const page = await options();
    const pagesBefore = await statPages(page);
    await page.getByTestId('delete-site-select').selectOption('127.0.0.1');
    await page.getByTestId('delete-site').click();
    await expect.poll(() => page.getByTestId('confirm-count').textContent()).toMatch(/^Forget 3 pages from 127\.0\.0\.1, visited [^–]+\?$/);
    await page.keyboard.press('Escape');
    expect(await statPages(page)).toBe(pagesBefore);
    await page.getByTestId('delete-site').click();
    await page.getByTestId('confirm-ok').click();
    await page.getByTestId('undo-bar').waitFor();
    // The counts and the site list are read again right away.
    await expect.poll(() => statPages(page)).toBe(pagesBefore - 3);
    expect(await page.getByTestId('delete-site-select').textContent()).not.toContain('127.0.0.1');
    expect(await found('litter')).toEqual([]);
    // Undo is focused after the dialog closes, so a keyboard user can take it back at once.
    expect(await page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.testid)).toBe('undo');
    await page.keyboard.press('Enter');
    await expect.poll(() => statPages(page)).toBe(pagesBefore);
    // The bar goes with the undo: focus moves to the line saying what happened, not to the page's body.
    await expect.poll(() => page.getByTestId('options-message').textContent()).toBe('Restored 3 pages.');
    expect(await page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.testid)).toBe('options-message');
    expect(await Promise.all(queries.map((q) => found(q)))).toEqual(before);
    await page.close();
  });

  it('everything: confirmed, then undone', async () => {
    const page = await options();
    const n = await statPages(page);
    await page.getByTestId('delete-all').click();
    await expect.poll(() => page.getByTestId('confirm-count').textContent()).toMatch(new RegExp(`^Forget all ${n} pages Reread has saved, from \\d+ sites`));
    await page.getByTestId('confirm-ok').click();
    await expect.poll(() => statPages(page)).toBe(0);
    expect(await found('litter')).toEqual([]);
    // The popup, opened meanwhile, is not a first run: it says what was forgotten and offers the undo too.
    const popup = await ext.ctx.newPage();
    await popup.goto(ext.extensionUrl('popup.html'));
    await expect.poll(() => popup.getByTestId('undo-bar').textContent()).toMatch(new RegExp(`^Forgot all ${n} pages\\.`));
    expect(await popup.getByTestId('first-run').count()).toBe(0);
    // Undone from the popup with the keyboard: the bar goes, and focus goes to the search box, not the page.
    await popup.getByTestId('undo').focus();
    await popup.keyboard.press('Enter');
    await expect.poll(() => popup.getByTestId('undo-bar').count()).toBe(0);
    expect(await popup.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.testid)).toBe('search-input');
    // Undone: the worker finds the pages again, and the options page, behind the popup (its counters are
    // polled every 2 s, and a background tab's timers are throttled on a busy machine), shows them.
    await expect.poll(async () => (await found('litter')).length, { timeout: 15_000 }).toBe(1);
    await page.bringToFront();
    await expect.poll(() => statPages(page), { timeout: 15_000 }).toBe(n);
    await popup.reload();
    await expect.poll(() => popup.getByTestId('idle').textContent()).toMatch(new RegExp(`^${n} pages from`));
    expect(await popup.getByTestId('undo-bar').count()).toBe(0);
    await popup.close();
    await page.close();
  });

  it('while "forget everything" can be undone, a search on the results page or in the popup shows the undo beside its answer', async () => {
    // A search there found nothing and said only "Nothing you have read matches": no undo, no word of why.
    // A longer window than the 15 s, so a loaded machine does not close it mid-test.
    await ext.evalSw(`(engine.forget.undoMs = 60_000, true)`);
    try {
      // Opened before the forget: what it read of pending forgets when it opened is stale.
      const results = await ext.ctx.newPage();
      await results.goto(ext.extensionUrl('search.html'));
      await results.getByTestId('idle').waitFor();
      const page = await options();
      const n = await statPages(page);
      await page.getByTestId('delete-all').click();
      await page.getByTestId('confirm-ok').click();
      await expect.poll(() => statPages(page)).toBe(0);
      await results.bringToFront();
      await results.getByTestId('search-input').fill('litter');
      await results.getByTestId('no-results').waitFor();
      expect(await results.getByTestId('undo-bar').textContent()).toMatch(new RegExp(`^Forgot all ${n} pages\\.`));
      expect(await results.getByTestId('forgotten-note').textContent()).toBe(`The ${n} pages you just forgot are not searched; Undo brings them back while there is time.`);
      expect(await results.getByTestId('live').textContent()).toContain('you just forgot are not searched');
      // Nothing else is left to search: the note is the whole answer, no hint about spelling or words under it.
      expect(await results.getByTestId('no-results').locator('li').allTextContents()).toEqual([`The ${n} pages you just forgot are not searched; Undo brings them back while there is time.`]);
      // The popup, searching: the same.
      const popup = await ext.ctx.newPage();
      await popup.goto(ext.extensionUrl('popup.html'));
      await popup.getByTestId('search-input').fill('litter');
      await popup.getByTestId('no-results').waitFor();
      expect(await popup.getByTestId('undo-bar').textContent()).toMatch(new RegExp(`^Forgot all ${n} pages\\.`));
      expect(await popup.getByTestId('forgotten-note').count()).toBe(1);
      expect(await popup.getByTestId('no-results').locator('li').count()).toBe(1);
      await popup.close();
      // Undone from the results page: the bar goes and the search is asked again, the page found.
      await results.getByTestId('undo').click();
      await expect.poll(() => results.getByTestId('undo-bar').count()).toBe(0);
      await expect.poll(async () => (await results.getByTestId('result-link').first().getAttribute('href', { timeout: 1000 }).catch(() => null)) ?? '').toContain('/cats.html');
      expect(await results.getByTestId('forgotten-note').count()).toBe(0);
      // A later answer says nothing of a forget that is over.
      await results.getByTestId('search-input').fill('sourdough');
      await expect.poll(async () => (await results.getByTestId('result-link').first().getAttribute('href', { timeout: 1000 }).catch(() => null)) ?? '').toContain('/bread.html');
      expect(await results.getByTestId('undo-bar').count()).toBe(0);
      await results.close();
      await page.close();
    } finally {
      // Failed midway, the pages would stay forgotten for the tests after this one: take the forget back.
      for (const f of await ext.evalSw<{ id: string }[]>('engine.forget.pending()')) await ext.evalSw(`engine.forget.undo(${JSON.stringify(f.id)})`);
      await ext.evalSw(`(engine.forget.undoMs = 15_000, true)`);
    }
  });

  it("while a site's forget can be undone and other pages are left, the no-results hints speak of the pages that were not forgotten", async () => {
    await ext.evalSw(`(engine.forget.undoMs = 60_000, true)`);
    try {
      const page = await options();
      await page.getByTestId('delete-site-select').selectOption('127.0.0.1');
      await page.getByTestId('delete-site').click();
      await page.getByTestId('confirm-ok').click();
      await page.getByTestId('undo-bar').waitFor();
      expect(await statPages(page)).toBeGreaterThan(0); // a.example's pages are left
      for (const path of ['search.html', 'popup.html']) {
        const view = await ext.ctx.newPage();
        await view.goto(ext.extensionUrl(path));
        await view.getByTestId('search-input').fill('litter');
        await view.getByTestId('forgotten-note').waitFor();
        // "Check the spelling" under "the pages you just forgot are not searched" read as if the forget
        // were no reason: the hint now says when it applies.
        expect(await view.getByTestId('spelling-hint').textContent(), path).toBe('If you meant another page: check the spelling, or describe it in other words (search by meaning finds related words).');
        // The address of a page being forgotten: it was saved, and is left out (the forget note says why), not "not saved".
        await view.getByTestId('search-input').fill(server.url('/cats.html'));
        await expect.poll(() => view.getByTestId('address-note').textContent({ timeout: 1000 }).catch(() => ''), { timeout: 10_000 }).toBe('Searching 127.0.0.1 for “cats”.');
        expect(await view.getByTestId('forgotten-note').count(), path).toBe(1);
        await view.close();
      }
      await page.close();
    } finally {
      for (const f of await ext.evalSw<{ id: string }[]>('engine.forget.pending()')) await ext.evalSw(`engine.forget.undo(${JSON.stringify(f.id)})`);
      await ext.evalSw(`(engine.forget.undoMs = 15_000, true)`);
    }
  });

  it('a worker stopped inside the undo window keeps the pages hidden and undoable; after the window they are purged', async () => {
    const page = await options();
    await page.getByTestId('delete-site-select').selectOption('a.example');
    await page.getByTestId('delete-site').click();
    await page.getByTestId('confirm-ok').click();
    await page.getByTestId('undo-bar').waitFor();
    expect(await ext.stopWorker()).toBeGreaterThan(0);
    expect(await found('alphadawn')).toEqual([]); // wakes the worker: still hidden
    const [pending] = await ext.evalSw<{ id: string; undoUntil: number }[]>('engine.forget.pending()');
    expect(pending).toBeDefined();
    expect(await ext.evalSw<number>(`engine.forget.undo(${JSON.stringify(pending!.id)}).then((r) => r.urls.length)`)).toBe(5);
    expect((await found('alphadawn')).length).toBe(1);
    // Again, with a short window, and the worker stopped until it is over.
    await ext.evalSw(`(engine.forget.undoMs = 2000, true)`);
    await page.reload();
    await page.getByTestId('delete-site-select').selectOption('a.example');
    await page.getByTestId('delete-site').click();
    await page.getByTestId('confirm-ok').click();
    await page.getByTestId('undo-bar').waitFor();
    await ext.stopWorker();
    await new Promise((r) => setTimeout(r, 2500));
    // The window is over: the line says so (no longer "Undo is available…"), and focus, which was on
    // Undo, moved to it rather than to the page's body.
    await expect.poll(() => page.getByTestId('options-message').textContent()).toBe('Forgot 5 pages from a.example. This can no longer be undone.');
    expect(await page.getByTestId('undo-bar').count()).toBe(0);
    expect(await page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.testid)).toBe('options-message');
    expect(await found('alphadawn')).toEqual([]); // the start-up pass purges it; never shown again
    await until(async () => (await ext.evalSw<number>(`engine.db().then((db) => db.count('pages'))`)) === 3, 'purged from the database');
    expect(await ext.evalSw<unknown[]>(`engine.forget.pending(0)`)).toEqual([]);
    await page.close();
  });
});

describe('the popup and retention', () => {
  it('"never save this site" stops captures at once and only asks about what is stored; keep forgets nothing', async () => {
    const tab = await ext.ctx.newPage();
    await tab.goto(server.url('/bread.html'));
    const popup = await ext.ctx.newPage();
    await popup.goto(ext.extensionUrl('popup.html'));
    await tab.bringToFront();
    await popup.evaluate(() => location.reload());
    await popup.getByTestId('exclude-site').click();
    await expect.poll(() => popup.getByTestId('exclude-question').textContent()).toMatch(/^127\.0\.0\.1 will not be saved from now on\. Also forget the 3 pages already saved from it \(visited [^)]+\)\?$/);
    expect(await ext.evalSw<string[]>('engine.settings().then((s) => s.excludedSites)')).toContain('127.0.0.1');
    // Answered from the keyboard (focus starts on the safe answer): the buttons go, focus goes to the search box.
    await expect.poll(() => popup.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.testid)).toBe('exclude-keep');
    await popup.keyboard.press('Enter');
    expect(await popup.getByTestId('exclude-done').textContent()).toContain('stays searchable');
    expect(await popup.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.testid)).toBe('search-input');
    expect((await found('sourdough')).length).toBe(1);
    // No longer captured.
    server.routes.set('/new.html', '<html><head><title>New</title></head><body><h1>New</h1><p>The word quillfeather appears only on this page, which must not be saved now that its site is excluded.</p></body></html>');
    // Excluded: nothing to wait for, so the page is kept open past the time a capture takes.
    await visit(ext, [server.url('/new.html')], { dwellMs: 1300 });
    expect(await found('quillfeather')).toEqual([]);
    await ext.evalSw(`engine.updateSettings({ excludedSites: [] }).then(() => true)`);
    await popup.close();
    await tab.close();
  });

  it('"forget this page" forgets the open page at once with undo; this visit is not saved again, the next one is', async () => {
    const paragraphs = (word: string, n: number) => Array.from({ length: n }, (_, i) => `<p>Paragraph ${i} mentions ${word} in a sentence long enough to count as text.</p>`).join('');
    server.routes.set('/kettle.html', `<html><head><title>Kettle descaling notes</title></head><body><main><h1>Descaling</h1><p>The word kettlewhistle appears only on this page about descaling a kettle with citric acid and water.</p>${paragraphs('limescale', 5)}</main></body></html>`);
    const url = server.url('/kettle.html');
    const pagesFound = async (q: string) => (await found(q)).map((h) => h.split('#')[0]);
    const tab = await ext.ctx.newPage();
    const since = Date.now() - 1000;
    await tab.goto(url);
    await until(() => ext.evalSw<boolean>(capturedSince(url, since)), 'the capture of the kettle page');
    expect(await pagesFound('kettlewhistle')).toEqual([url]);
    // The same page open in a second tab (reached by a link to a part of it).
    const twin = await ext.ctx.newPage();
    const captures = () => ext.evalSw<number>(`engine.captureLog.filter((l) => l.url === ${JSON.stringify(url)}).length`);
    const before = await captures();
    await twin.goto(`${url}#descaling`);
    await until(async () => (await captures()) > before, 'the second tab\'s visit saved');
    /** The popup as opened on `tab` (it reads the active tab when it loads). */
    const openPopup = async () => {
      const p = await ext.ctx.newPage();
      await p.goto(ext.extensionUrl('popup.html'));
      await tab.bringToFront();
      await p.evaluate(() => location.reload());
      return p;
    };
    let popup = await openPopup();
    // Forgotten at once (undo is the safety net), said with the page's title; focus on Undo. One
    // question or undo at a time: the footer's "Never save" waits.
    await popup.getByTestId('forget-page').click();
    await expect.poll(() => popup.getByTestId('undo-bar').textContent()).toMatch(/^Forgot “Kettle descaling notes”\. \(\d+ s to undo\)Undo$/);
    await expect.poll(() => popup.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.testid)).toBe('undo');
    expect(await popup.getByTestId('forget-page').count()).toBe(0);
    expect(await popup.getByTestId('exclude-site').count()).toBe(0);
    expect(await popup.getByTestId('popup-live').textContent()).toMatch(/^Forgot “Kettle descaling notes”\. Undo is available for 15 seconds\.$/);
    expect(await pagesFound('kettlewhistle')).toEqual([]);
    // The forget took the tabs' hellos with their queued captures (a capture handed over later, as a tab
    // is left, is filed only under a hello).
    const hellos = () => ext.evalSw<number>(`globalThis.rereadDebug.hellosFor(${JSON.stringify(url)})`);
    expect(await hellos()).toBe(0);
    // The popup closed and opened again inside the window: the undo is offered beside the search box.
    // Taken there, the page is saved again, the popup offers to forget it again, and the tabs save it again.
    await popup.close();
    popup = await openPopup();
    await popup.getByTestId('undo').click();
    await popup.getByTestId('forget-page').waitFor();
    expect(await pagesFound('kettlewhistle')).toEqual([url]);
    // Both tabs say hello again, so what they hand over when left is filed again.
    await until(async () => (await hellos()) >= 2, 'both tabs said hello again');
    const restoredAt = Date.now() - 1000;
    await tab.evaluate((html) => document.querySelector('main')!.insertAdjacentHTML('beforeend', html), paragraphs('descalerfresh', 40));
    await until(() => ext.evalSw<boolean>(capturedSince(url, restoredAt)), 'a change after the undo saved');
    await until(async () => (await pagesFound('descalerfresh')).includes(url), 'the changed page found');
    // Again, and this time the window closes: gone for good, and the popup says what happens next.
    await ext.evalSw(`(engine.forget.undoMs = 1500, true)`);
    await popup.getByTestId('forget-page').click();
    await popup.getByTestId('undo-bar').waitFor();
    await expect
      .poll(() => popup.getByTestId('exclude-done').textContent(), { timeout: 10_000 })
      .toBe('Forgot “Kettle descaling notes”. This can no longer be undone. Opening this page again saves it again.');
    await until(async () => (await ext.evalSw<number>(`engine.db().then((db) => db.count('pages', ${JSON.stringify(url)}))`)) === 0, 'the page purged');
    expect(await popup.getByTestId('forget-page').count()).toBe(0);
    // The open page changes a lot, in both tabs (as it did above, where it was saved): this visit was
    // forgotten, so it is not.
    const beforeChange = await captures();
    for (const t of [twin, tab]) await t.evaluate((html) => document.querySelector('main')!.insertAdjacentHTML('beforeend', html), paragraphs('teapotsteam', 40));
    await tab.waitForTimeout(4000);
    expect(await captures()).toBe(beforeChange);
    expect(await pagesFound('teapotsteam')).toEqual([]);
    // Opening it again is a new visit: saved again.
    const again = Date.now() - 1000;
    await tab.reload();
    await until(() => ext.evalSw<boolean>(capturedSince(url, again)), 'the capture of the visit after the forget');
    expect(await pagesFound('kettlewhistle')).toEqual([url]);
    await ext.evalSw(`(engine.forget.undoMs = 15000, true)`);
    await popup.close();
    await twin.close();
    await tab.close();
  });

  it('forgetting a site in Options: a tab still showing one of its pages does not bring it back', async () => {
    const other = await serve({}, '127.0.0.2');
    try {
      other.routes.set('/live.html', '<html><head><title>Live notes</title></head><body><main><h1>Live</h1><p>The word quokkaline appears only on this page, on a site of its own for this test of forgetting.</p></main></body></html>');
      const url = other.url('/live.html');
      const tab = await ext.ctx.newPage();
      const since = Date.now() - 1000;
      await tab.goto(url);
      await until(() => ext.evalSw<boolean>(capturedSince(url, since)), 'the capture of the live page');
      const { page } = await forgetSiteInOptions('127.0.0.2');
      expect(await found('quokkaline')).toEqual([]);
      // The page keeps changing (a feed, a live document): its visit was forgotten, so it is not saved again.
      // Counted, not timed: the capture before the forget was a moment ago.
      const before = await capturesOf(url);
      await grow(tab, 'quokkaline');
      await tab.waitForTimeout(4000);
      expect(await capturesOf(url)).toBe(before);
      expect(await found('quokkaline')).toEqual([]);
      await page.close();
      await tab.close();
    } finally {
      await other.close();
    }
  });

  it('forgetting a site in Options: a tab of it whose page is not saved yet does not save it after, until the forget is undone', async () => {
    const other = await serve({}, '127.0.0.3');
    try {
      other.routes.set('/kept.html', '<html><head><title>Kept notes</title></head><body><main><h1>Kept</h1><p>A stored page of this site, so that Options lists the site to forget.</p></main></body></html>');
      // A page that shows its content late (an app still loading): nothing to save yet, so nothing stored.
      other.routes.set('/late.html', '<html><head></head><body><main></main></body></html>');
      const kept = other.url('/kept.html');
      const late = other.url('/late.html');
      const since = Date.now() - 1000;
      await visit(ext, [kept]);
      await until(() => ext.evalSw<boolean>(capturedSince(kept, since)), 'the capture of the stored page');
      const tab = await ext.ctx.newPage();
      await tab.goto(late);
      // Read with nothing in it: not stored (its capture skipped as empty).
      await until(async () => (await capturesOf(late)) > 0, 'the empty page read (and not stored)');
      expect(await ext.evalSw(`engine.pages.get(${JSON.stringify(late)})`)).toBeUndefined();
      const before = await capturesOf(late);
      const { page, bar } = await forgetSiteInOptions('127.0.0.3');
      // Its content arrives after the forget: the visit was the forgotten site's, so it is not saved.
      await grow(tab, 'wombatrix');
      await tab.waitForTimeout(4000);
      expect(await capturesOf(late)).toBe(before);
      expect(await found('wombatrix')).toEqual([]);
      // The control: undone, the tab saves its page again on its next change, even if (a single-page app)
      // it showed another address when the undo came.
      await tab.evaluate(() => history.pushState(null, '', '/late.html?step=2'));
      await page.bringToFront();
      await bar.getByTestId('undo').click();
      await until(async () => (await found('Kept')).some((h) => h.startsWith(kept)), 'the undo');
      await tab.evaluate(() => history.pushState(null, '', '/late.html'));
      await grow(tab, 'wombatrix', 40);
      await until(async () => (await found('wombatrix')).some((h) => h.split('#')[0] === late), 'the late page saved after the undo');
      await page.close();
      await tab.close();
    } finally {
      await other.close();
    }
  });

  it('a page forgotten for good, then its site forgotten and undone: the open tab still does not save that visit', async () => {
    const other = await serve({}, '127.0.0.4');
    try {
      const word = (w: string) => `<html><head><title>Page ${w}</title></head><body><main><h1>${w}</h1><p>The word ${w} appears only on this page of a site of its own, for a test of two forgets.</p></main></body></html>`;
      other.routes.set('/open.html', word('ocelotrix'));
      other.routes.set('/other.html', word('margayline'));
      const open = other.url('/open.html');
      const rest = other.url('/other.html');
      const since = Date.now() - 1000;
      await visit(ext, [rest]);
      const tab = await ext.ctx.newPage();
      await tab.goto(open);
      await until(() => ext.evalSw<boolean>(capturedSince(open, since)), 'the capture of the open page');
      await until(() => ext.evalSw<boolean>(capturedSince(rest, since)), 'the capture of the other page');
      // "Forget this page" on the open page, its window let to close (as if the user kept reading).
      await ext.evalSw(`(engine.forget.undoMs = 1500, true)`);
      try {
        const popup = await ext.ctx.newPage();
        await popup.goto(ext.extensionUrl('popup.html'));
        await tab.bringToFront();
        await popup.evaluate(() => location.reload());
        await popup.getByTestId('forget-page').click();
        await until(async () => (await ext.evalSw<number>(`engine.db().then((db) => db.count('pages', ${JSON.stringify(open)}))`)) === 0, 'the page purged');
        await popup.close();
      } finally {
        await ext.evalSw(`(engine.forget.undoMs = 15000, true)`);
      }
      // Then its site in Options, undone: the other page comes back; the open tab's visit stays forgotten.
      const { page, bar } = await forgetSiteInOptions('127.0.0.4');
      await bar.getByTestId('undo').click();
      await until(async () => (await found('margayline')).length === 1, 'the undo');
      const before = await capturesOf(open);
      await grow(tab, 'ocelotrix');
      await tab.waitForTimeout(4000);
      expect(await capturesOf(open)).toBe(before);
      expect(await found('ocelotrix')).toEqual([]);
      // Loading it again is a new visit: saved.
      const again = Date.now() - 1000;
      await tab.reload();
      await until(() => ext.evalSw<boolean>(capturedSince(open, again)), 'the visit after the forgets saved');
      await ext.evalSw(`engine.deleteUrls(${JSON.stringify([open, rest])})`);
      await page.close();
      await tab.close();
    } finally {
      await other.close();
    }
  });

  it('an emptied or out-of-range ranking field is not saved, and the page says why', async () => {
    const page = await options();
    const k1 = await ext.evalSw<number>('engine.settings().then((s) => s.ranking.k1)');
    await page.locator('summary', { hasText: 'Advanced ranking' }).click();
    const field = page.getByTestId('ranking-k1');
    await field.fill('');
    await field.press('Tab');
    await expect.poll(() => page.getByTestId('options-message').textContent()).toBe(`Word repetition: a number from 0 to 3. It stays ${k1}.`);
    expect(await field.inputValue()).toBe(String(k1));
    await field.fill('7');
    await field.press('Tab');
    expect(await ext.evalSw<number>('engine.settings().then((s) => s.ranking.k1)')).toBe(k1);
    // A number in range is saved as before.
    await field.fill('1.4');
    await field.press('Tab');
    await expect.poll(() => ext.evalSw<number>('engine.settings().then((s) => s.ranking.k1)')).toBe(1.4);
    await ext.evalSw(`engine.settings().then((s) => engine.updateSettings({ ranking: { ...s.ranking, k1: ${k1} } })).then(() => true)`);
    await page.close();
  });

  it('a retention change is previewed with its count and applied only when confirmed', async () => {
    await storeAt('https://old.example/one', 'foxtrotold', '2026-01-05T09:00:00');
    await storeAt('https://old.example/two', 'golfold', '2026-02-05T09:00:00');
    const page = await options();
    const n = await statPages(page);
    // More than the worker takes is said here, and cannot be applied.
    await page.getByTestId('retention-days').fill('99999');
    expect(await page.getByTestId('retention-too-large').textContent()).toBe('At most 36,500 days and 1,000,000 MB.');
    expect(await page.getByTestId('retention-apply').isDisabled()).toBe(true);
    await page.getByTestId('retention-days').fill('30');
    expect(await page.getByTestId('retention-too-large').count()).toBe(0);
    await page.getByTestId('retention-apply').click();
    // The two pages of early 2026 are months old; the ones visited today are not.
    await expect.poll(() => page.getByTestId('confirm-count').textContent()).toMatch(/^These settings forget 2 pages now: 2 pages not visited since /);
    await page.getByTestId('confirm-cancel').click();
    expect(await ext.evalSw<number>('engine.settings().then((s) => s.retentionDays)')).toBe(0);
    expect(await statPages(page)).toBe(n);
    await page.getByTestId('retention-apply').click();
    await page.getByTestId('confirm-ok').click();
    await expect.poll(() => ext.evalSw<number>('engine.settings().then((s) => s.retentionDays)')).toBe(30);
    await expect.poll(() => statPages(page)).toBe(n - 2);
    expect(await found('golfold')).toEqual([]);
    expect((await found('litter')).length).toBe(1);
    await page.close();
  });
});
