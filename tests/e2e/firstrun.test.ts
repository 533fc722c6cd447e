/**
 * The first run as it turns into a used one, in the real browser: with nothing saved the popup and the
 * results page say only what works (no site:/after: in the help line, no filter bar); the first pages
 * saved while they are open (a page read in another tab, the history imported from the popup's card)
 * bring the filters, the counts and the full help line without reopening them, and the re-reading of
 * the counts stops once something is saved. Also the options page's re-cut progress, in grouped digits.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ARTIFACTS, FIXTURES, historyPermissionDist, launch, serve, visit, type Extension, type FixtureServer } from './harness.js';

const SHOTS = join(ARTIFACTS, 'firstrun');
let ext: Extension | undefined;
let server: FixtureServer | undefined;

afterAll(async () => {
  await ext?.close();
  await server?.close();
});

/** A fresh profile: nothing saved. */
async function fresh(dist?: string): Promise<void> {
  await ext?.close();
  ext = await launch(dist ? { dist } : {});
}

async function open(path: string, width: number): Promise<Page> {
  const page = await ext!.ctx.newPage();
  await page.setViewportSize({ width, height: path === 'popup.html' ? 600 : 700 });
  await page.goto(ext!.extensionUrl(path));
  // Marks this document: still there at the end means the page was never reloaded.
  await page.evaluate(() => ((window as unknown as { sameDocument: boolean }).sameDocument = true));
  return page;
}

async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: name.startsWith('options') });
}

/** The help line, and the text the search box's aria-describedby points at (the same, or it is broken). */
const help = (page: Page) =>
  page.evaluate(() => {
    const box = document.querySelector('[data-testid="search-input"]')!;
    const described = document.getElementById(box.getAttribute('aria-describedby') ?? '');
    return { line: document.getElementById('search-help')?.textContent ?? '', described: described?.textContent ?? null };
  });

async function expectNothingSavedYet(page: Page): Promise<void> {
  await page.getByTestId('first-run').waitFor({ timeout: 20_000 });
  expect(await page.getByTestId('filters').count()).toBe(0);
  const h = await help(page);
  expect(h.described).toBe(h.line);
  // Filters that can narrow nothing are not advertised; the box still says what it takes.
  expect(h.line).not.toMatch(/site:|after:/);
  expect(h.line).toMatch(/"exact words".*Esc clears/);
}

/** Without reopening: the filter bar, the counts and the full help line come; the first-run card goes. */
async function expectSavedNow(page: Page, counts: RegExp): Promise<void> {
  await page.bringToFront();
  await expect.poll(() => page.getByTestId('filters').count(), { timeout: 15_000 }).toBe(1);
  await page.getByTestId('idle').waitFor({ timeout: 5_000 });
  expect(await page.getByTestId('idle').textContent()).toMatch(counts);
  expect(await page.getByTestId('first-run').count()).toBe(0);
  const h = await help(page);
  expect(h.described).toBe(h.line);
  expect(h.line).toMatch(/site:example\.com.*after:7d.*↑↓ move, Enter opens/);
  expect(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);
}

/** Counts the worker's answers to `stats` (the views' one way to read the counts) from now on. */
const COUNT_STATS = `(() => { if (!globalThis.statsCalls) { const own = engine.stats.bind(engine); engine.stats = () => { globalThis.statsCalls.n++; return own(); }; globalThis.statsCalls = { n: 0 }; } return true; })()`;
const statsCalls = () => ext!.evalSw<number>('globalThis.statsCalls.n');

/** Holds the dense lane's backlog drain until `releaseEmbedding()` (in the worker) is called. */
const HOLD_EMBEDDING = `(() => { const lane = engine.dense; const own = lane.activeModel.bind(lane); const gate = new Promise((r) => (globalThis.releaseEmbedding = r)); lane.activeModel = async () => { await gate; return own(); }; return true; })()`;

describe('a page saved while the popup and the results page are open', () => {
  beforeAll(async () => {
    server = await serve({ '/': join(FIXTURES, 'pages') });
    await fresh();
  });

  it('options: the re-cut progress is in grouped digits; the stored counters stay plain numbers', async () => {
    // A pass under way over more pages than any fixture holds (a fresh profile has none to re-cut).
    await ext!.evalSw('engine.recut.run().then(() => { engine.recut.progress = { done: 1234, total: 12345, rewritten: 0 }; return true; })');
    const options = await open('options.html', 1000);
    const progress = options.getByTestId('recut-progress');
    await progress.waitFor({ timeout: 10_000 });
    const [done, total] = await options.evaluate(() => [(1234).toLocaleString(), (12345).toLocaleString()]);
    expect(total).not.toBe('12345'); // this browser's locale groups digits, or the check below proves nothing
    expect(await progress.textContent()).toContain(`${done} of ${total}.`);
    // The testing contract reads these with Number().
    expect(Number(await options.getByTestId('stat-pages').textContent())).toBe(0);
    mkdirSync(SHOTS, { recursive: true });
    await progress.screenshot({ path: join(SHOTS, 'options-recut-progress.png') });
    await ext!.evalSw('(engine.recut.progress = null, true)');
    await options.close();
  });

  it('a search with nothing saved says so, without hints about spelling or filters', async () => {
    const popup = await open('popup.html', 560);
    await expectNothingSavedYet(popup);
    await popup.getByTestId('search-input').fill('cats');
    const empty = popup.getByTestId('no-results');
    await empty.waitFor({ timeout: 10_000 });
    expect(await empty.getAttribute('data-reason')).toBe('nothing-saved');
    expect(await popup.getByTestId('no-results-heading').textContent()).toBe('Nothing is saved yet, so there is nothing to search.');
    expect(await popup.getByTestId('spelling-hint').count()).toBe(0);
    await shot(popup, 'popup-nothing-saved-searched');
    await popup.close();
  });

  it('while saving is paused the popup and the toolbar button say so, and Resume resumes it', async () => {
    const badge = () => ext!.evalSw<string>('chrome.action.getBadgeText({})');
    expect(await badge()).toBe('');
    await ext!.evalSw('engine.updateSettings({ paused: true }).then(() => true)');
    await expect.poll(badge, { timeout: 5_000 }).toBe('off');
    expect(await ext!.evalSw<string>('chrome.action.getTitle({})')).toMatch(/saving is paused/);
    const popup = await open('popup.html', 560);
    const notice = popup.getByTestId('paused-notice');
    await notice.waitFor({ timeout: 10_000 });
    expect(await notice.textContent()).toContain('Saving is paused');
    // The first-run card does not tell the person to browse as usual.
    await popup.getByTestId('first-run').waitFor();
    expect(await popup.getByTestId('first-run').textContent()).toContain('pages you open now are not saved until you resume it');
    await shot(popup, 'popup-paused');
    await popup.emulateMedia({ colorScheme: 'dark' });
    await shot(popup, 'popup-paused-dark');
    await popup.emulateMedia({ colorScheme: 'light' });
    // The results page says so too, where it says how saving works.
    const results = await open('search.html', 1000);
    await results.getByTestId('first-run').waitFor({ timeout: 10_000 });
    await expect.poll(() => results.getByTestId('first-run').textContent()).toContain('pages you open now are not saved until you resume it');
    await results.close();
    await popup.bringToFront();
    await popup.getByTestId('resume-saving').focus();
    await popup.keyboard.press('Enter');
    await expect.poll(() => notice.count(), { timeout: 5_000 }).toBe(0);
    // The button went with the notice: focus is in the search box, and the status line says what happened.
    expect(await popup.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('search-input');
    expect(await popup.getByTestId('popup-live').textContent()).toBe('Saving resumed: pages you open are saved again.');
    expect((await ext!.evalSw<{ paused: boolean }>('engine.settings()')).paused).toBe(false);
    await expect.poll(badge, { timeout: 5_000 }).toBe('');
    expect(await popup.getByTestId('first-run').textContent()).toContain('Browse as usual');
    await popup.close();
  });

  it('brings the filters and the counts without reopening, then stops reading the counts', async () => {
    const popup = await open('popup.html', 560);
    const results = await open('search.html', 1000);
    for (const page of [popup, results]) await expectNothingSavedYet(page);
    await shot(popup, 'popup-nothing-saved');
    await shot(results, 'search-nothing-saved');

    // While nothing is saved the open views read the counts again.
    await ext!.evalSw(COUNT_STATS);
    await popup.bringToFront();
    await expect.poll(statsCalls, { timeout: 10_000 }).toBeGreaterThan(0);

    await visit(ext!, [server!.url('/cats.html')]);
    await expectSavedNow(popup, /^1 page from 1 site saved/);
    await expectSavedNow(results, /^1 page from 1 site saved/);
    await shot(popup, 'popup-first-page-saved');
    await shot(results, 'search-first-page-saved');

    // Something is saved and read for search by meaning: no view reads the counts again by itself.
    for (const page of [popup, results]) await expect.poll(() => page.getByTestId('embedding-progress').count(), { timeout: 30_000 }).toBe(0);
    const before = await statsCalls();
    await popup.waitForTimeout(4_000);
    expect(await statsCalls()).toBe(before);
    await popup.close();
    await results.close();
  });
});

describe('the history imported from the popup’s first-run card', () => {
  beforeAll(() => fresh(historyPermissionDist()));

  it('the popup that imported it shows the filters and the counts', async () => {
    // History from before Reread (no page is fetched: the import keeps titles and addresses only).
    await ext!.evalSw(`Promise.all(${JSON.stringify(Array.from({ length: 5 }, (_, i) => `http://notes.test/day-${i}`))}.map((url) => chrome.history.addUrl({ url }))).then(() => true)`);
    // The embedder is held until the popup has shown the backlog: without the hold it may catch up before
    // the popup's first read, and the line's going away below would prove nothing.
    await ext!.evalSw(HOLD_EMBEDDING);
    const popup = await open('popup.html', 560);
    await expectNothingSavedYet(popup);
    await popup.getByTestId('dayone-open').click();
    await popup.getByTestId('dayone-import').click();
    await popup.getByTestId('dayone-import-done').waitFor({ timeout: 30_000 });
    await expectSavedNow(popup, /^5 pages from 1 site saved/);
    await shot(popup, 'popup-history-imported');
    // The "Reading 5 new sections for search by meaning" line counts down and goes, in the same popup: it
    // used to stay at its first count.
    const progress = popup.getByTestId('embedding-progress');
    await progress.waitFor({ timeout: 15_000 });
    expect(await progress.textContent()).toMatch(/^Reading 5 new sections for search by meaning/);
    await shot(popup, 'popup-history-imported-reading');
    await ext!.evalSw('(globalThis.releaseEmbedding(), true)');
    await expect.poll(() => progress.count(), { timeout: 60_000 }).toBe(0);
    expect(Number(await ext!.evalSw<number>('engine.dense.pending()'))).toBe(0);
    await popup.close();
  });
});
