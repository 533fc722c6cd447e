/**
 * Day one (#14), part 4, local files: a PDF opened from the user's disk (`file://`) is read the same way
 * as one from the web (pdf.js in the offscreen document, a section per outline entry, links to
 * `#page=N`), but only while the user has allowed it: Chromium's "Allow access to file URLs" switch for
 * Reread, and the optional `file:///*` permission granted from Options (background/dayone/fileAccess.ts).
 *
 * The switch: Chromium turns it on by default for an extension loaded from the command line, as the
 * harness loads it (the profile's Preferences says `newAllowFileAccess: true`); a store install starts
 * with it off. The second suite turns it off the way the browser stores the user's choice (that flag,
 * written between two launches of the profile, as the incognito test does) and checks that nothing is
 * attempted and Options says how to turn it on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright';
import { ARTIFACTS, ROOT, launch, searchPage, until, type Extension } from './harness.js';
import { describeViolations, failing, runAxe } from './axe.js';
import { makePdf, pageLines } from '../fixtures/makePdf.js';

let dir: string;
const fileUrl = (name: string) => pathToFileURL(join(dir, name)).href;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'reread-local-pdf-'));
  writeFileSync(
    join(dir, 'Field guide.pdf'),
    makePdf({
      title: 'Local field guide',
      pages: [pageLines(1, 'opening survey'), pageLines(2, 'method of triangles'), pageLines(3, 'quillwort estuary'), pageLines(4, 'closing tables')],
      outline: [
        { title: 'Introduction', level: 1, page: 1 },
        { title: 'Methods', level: 1, page: 2 },
        { title: 'Along the estuary', level: 2, page: 3 },
        { title: 'Results', level: 1, page: 4 },
      ],
    }),
  );
  // No title in its metadata: shown by its file name.
  writeFileSync(join(dir, 'notes-untitled.pdf'), makePdf({ pages: [pageLines(1, 'marram dunes'), pageLines(2, 'second page'), pageLines(3, 'third page')] }));
  writeFileSync(join(dir, 'later.pdf'), makePdf({ title: 'Later', pages: [pageLines(1, 'saltmarsh rosette'), pageLines(2, 'more'), pageLines(3, 'more again')] }));
  writeFileSync(join(dir, 'scan.pdf'), makePdf({ title: 'Scanned', pages: [null, null] }));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

type Stored = { kind?: string; site: string; title: string; pdf?: { pages: number; read: number } } | null;
const pageOf = (ext: Extension, url: string) => ext.evalSw<Stored>(`engine.db().then((db) => db.get('pages', ${JSON.stringify(url)})).then((p) => p ? { kind: p.kind, site: p.site, title: p.title, pdf: p.pdf } : null)`);
const pdfLog = (ext: Extension) => ext.evalSw<{ read: number; noted: number; withCredentials: number }>('(({ read, noted, withCredentials }) => ({ read, noted, withCredentials }))(globalThis.rereadDebug.pdfLog)');

async function openFile(ext: Extension, name: string): Promise<Page> {
  const p = await ext.ctx.newPage();
  await p.goto(fileUrl(name)).catch(() => undefined);
  await p.waitForTimeout(500);
  return p;
}

async function localPdfsState(ext: Extension): Promise<{ page: Page; state: string | null }> {
  const page = await ext.ctx.newPage();
  await page.goto(ext.extensionUrl('options.html'));
  const box = page.getByTestId('local-pdfs');
  await box.waitFor({ timeout: 15_000 });
  return { page, state: await box.getAttribute('data-state') };
}

describe('local PDFs with file access allowed', () => {
  let ext: Extension;
  beforeAll(async () => {
    ext = await launch();
  }, 120_000);
  afterAll(async () => {
    await ext?.close();
  });

  it('the switch is on (command-line load), but nothing is read before the permission is granted in Options', async () => {
    expect(await ext.evalSw<boolean>('chrome.extension.isAllowedFileSchemeAccess()')).toBe(true);
    expect(await ext.evalSw<boolean>(`chrome.permissions.contains({ origins: ['file:///*'] })`)).toBe(false);
    const tab = await openFile(ext, 'later.pdf');
    await new Promise((r) => setTimeout(r, 2000));
    expect(await pageOf(ext, fileUrl('later.pdf'))).toBeNull();
    // The tab stays open: the grant reads it (next test).
    expect(tab.isClosed()).toBe(false);
    const { page, state } = await localPdfsState(ext);
    expect(state).toBe('ask');
    // One click, no prompt: Chromium has no warning text for file patterns.
    await page.getByTestId('local-pdfs-grant').click();
    await until(async () => (await page.getByTestId('local-pdfs').getAttribute('data-state')) === 'on', 'Options to show local PDFs on', 10_000, 200);
    expect(await ext.evalSw<boolean>(`chrome.permissions.contains({ origins: ['file:///*'] })`)).toBe(true);
    await page.close();
  });

  it('a PDF already open from disk is read when the permission is granted', async () => {
    // later.pdf was opened (and hidden from Reread) before the grant: the grant reads it.
    const stored = await until(() => pageOf(ext, fileUrl('later.pdf')), 'the open local PDF stored', 30_000, 300);
    expect(stored.kind).toBe('pdf');
  });

  it('a local PDF with an outline is found by a phrase from page 3, its link ending in #page=3, under "Local files"', async () => {
    const tab = await openFile(ext, 'Field guide.pdf');
    const url = fileUrl('Field guide.pdf');
    const stored = await until(() => pageOf(ext, url), 'the local PDF stored', 30_000, 300);
    expect(stored).toMatchObject({ kind: 'pdf', site: 'local-files', title: 'Local field guide', pdf: { pages: 4, read: 4 } });
    const rows = await searchPage(ext, { q: '"quillwort estuary"' });
    expect(rows).toHaveLength(1);
    expect(rows[0]!.href).toBe(`${url}#page=3`);
    expect(rows[0]!.section).toContain('Along the estuary');
    // Read without credentials (a file has none): the counter of credentialed reads did not move.
    expect((await pdfLog(ext)).withCredentials).toBe(0);
    await tab.close();
  });

  it('results show the site as "Local files", filter by it, and show a title-less PDF by its file name', async () => {
    await openFile(ext, 'notes-untitled.pdf');
    await until(() => pageOf(ext, fileUrl('notes-untitled.pdf')), 'the untitled PDF stored', 30_000, 300);
    const page = await ext.ctx.newPage();
    const rows = await searchPage(ext, { q: 'marram dunes' }, page);
    expect(rows[0]?.title).toBe('notes-untitled.pdf');
    expect(await page.getByTestId('result-site').first().textContent()).toBe('Local files');
    // The site filter lists it by the same name.
    const option = page.getByTestId('filter-site').locator('option[value="local-files"]');
    expect(await option.textContent()).toMatch(/^Local files \(\d+\)$/);
    const filtered = await searchPage(ext, { q: 'site:local-files dunes' }, page);
    expect(filtered.map((r) => r.href)).toEqual([`${fileUrl('notes-untitled.pdf')}#page=1`]);
    // The tooltip shows the folder, not an account name (here /tmp: nothing to hide), and no fragment.
    expect(await page.getByTestId('result-link').first().getAttribute('title')).toBe(join(dir, 'notes-untitled.pdf'));
    // What the user sees, light and dark (docs/screens with UPDATE_DOCS=1).
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.setViewportSize({ width: 1000, height: 520 });
      await searchPage(ext, { q: 'site:local-files page' }, page);
      const report = await runAxe(page);
      expect(failing(report), describeViolations(failing(report))).toEqual([]);
      mkdirSync(join(ARTIFACTS, 'screens'), { recursive: true });
      const file = join(ARTIFACTS, 'screens', `search-local-files-${scheme}.png`);
      await page.screenshot({ path: file });
      if (process.env.UPDATE_DOCS) copyFileSync(file, join(ROOT, 'docs/screens', `search-local-files-${scheme}.png`));
    }
    await page.close();
  });

  it('opening a local result goes to the PDF at its page', async () => {
    const page = await ext.ctx.newPage();
    await searchPage(ext, { q: '"quillwort estuary"' }, page);
    await page.getByTestId('result-link').first().click();
    const want = `${fileUrl('Field guide.pdf')}#page=3`;
    await until(async () => (await ext.evalSw<string[]>(`chrome.tabs.query({}).then((t) => t.map((x) => x.url ?? ''))`)).includes(want), 'a tab showing the PDF at page 3', 10_000, 200);
    await page.close();
  });

  it('"Local files" can be excluded (nothing more is read) and forgotten like any site', async () => {
    const options = await ext.ctx.newPage();
    await options.goto(ext.extensionUrl('options.html'));
    await options.getByTestId('exclude-input').fill('Local files');
    await options.getByTestId('exclude-add').click();
    // Pages from it are stored: the dialog asks whether to forget them too.
    const dialog = options.getByRole('dialog');
    await dialog.waitFor({ timeout: 10_000 });
    expect(await dialog.textContent()).toContain('Local files');
    expect(await ext.evalSw<string[]>('engine.settings().then((s) => s.excludedSites)')).toContain('local-files');
    const before = (await pdfLog(ext)).read;
    await openFile(ext, 'scan.pdf');
    await new Promise((r) => setTimeout(r, 2000));
    // Excluded: not read at all (not even the text-less note).
    expect((await pdfLog(ext)).read).toBe(before);
    expect((await ext.evalSw<{ pdfNotes: unknown[] }>('globalThis.rereadDebug.dayOne.status()')).pdfNotes).toEqual([]);
    // Forget them (the dialog's forget button), then check they are gone from search.
    await options.getByTestId('confirm-ok').click();
    await until(async () => (await searchPage(ext, { q: '"quillwort estuary"' })).length === 0, 'the local PDF forgotten', 20_000, 500);
    await options.close();
  });

  it('"Stop saving local PDFs" gives the permission back', async () => {
    const { page, state } = await localPdfsState(ext);
    expect(state).toBe('on');
    await page.getByTestId('local-pdfs-revoke').click();
    await until(async () => (await page.getByTestId('local-pdfs').getAttribute('data-state')) === 'ask', 'Options to show the permission gone', 10_000, 200);
    expect(await ext.evalSw<boolean>(`chrome.permissions.contains({ origins: ['file:///*'] })`)).toBe(false);
    await page.close();
  });
});

describe('local PDFs without file access', () => {
  let ext: Extension;
  let profile: string;
  beforeAll(async () => {
    profile = mkdtempSync(join(tmpdir(), 'reread-nofile-'));
    const first = await launch({ profile });
    const id = first.extId;
    await first.close({ keepProfile: true });
    const prefsPath = join(profile, 'Default', 'Preferences');
    const prefs = JSON.parse(readFileSync(prefsPath, 'utf8')) as { extensions: { settings: Record<string, Record<string, unknown>> } };
    // What the browser stores when the user leaves "Allow access to file URLs" off.
    expect(prefs.extensions.settings[id]!.newAllowFileAccess).toBe(true);
    prefs.extensions.settings[id]!.newAllowFileAccess = false;
    writeFileSync(prefsPath, JSON.stringify(prefs));
    ext = await launch({ profile });
    expect(ext.extId).toBe(id);
  }, 120_000);
  afterAll(async () => {
    await ext?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  it('Options says how to turn it on, and the permission cannot be granted', async () => {
    expect(await ext.evalSw<boolean>('chrome.extension.isAllowedFileSchemeAccess()')).toBe(false);
    const { page, state } = await localPdfsState(ext);
    expect(state).toBe('off');
    expect(await page.getByTestId('local-pdfs').textContent()).toContain('Allow access to file URLs');
    expect(await page.getByTestId('local-pdfs-grant').count()).toBe(0);
    // What the user sees, light and dark: axe-clean, and photographed (docs/screens with UPDATE_DOCS=1).
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.getByTestId('local-pdfs').scrollIntoViewIfNeeded();
      const report = await runAxe(page);
      expect(failing(report), describeViolations(failing(report))).toEqual([]);
      mkdirSync(join(ARTIFACTS, 'screens'), { recursive: true });
      const file = join(ARTIFACTS, 'screens', `options-local-pdfs-off-${scheme}.png`);
      await page.getByTestId('pdf-notes').screenshot({ path: file });
      if (process.env.UPDATE_DOCS) copyFileSync(file, join(ROOT, 'docs/screens', `options-local-pdfs-off-${scheme}.png`));
    }
    // The button opens the browser's page with the switch (Reread's details in chrome://extensions).
    const opened = ext.ctx.waitForEvent('page', { timeout: 10_000 });
    await page.getByTestId('local-pdfs-settings').click();
    const settings = await opened;
    await settings.waitForLoadState().catch(() => undefined);
    expect(settings.url()).toBe(`chrome://extensions/?id=${ext.extId}`);
    await settings.close();
    // Even asked directly, Chromium refuses it while the switch is off.
    const asked = await page.evaluate(() => chrome.permissions.request({ origins: ['file:///*'] }).then(String, (e: Error) => `refused: ${e.message}`));
    expect(asked).toMatch(/^refused: .*file access/);
    await page.close();
  });

  it('a local PDF is never read, no note is left, and nothing is retried', async () => {
    for (const name of ['Field guide.pdf', 'scan.pdf']) await openFile(ext, name);
    await new Promise((r) => setTimeout(r, 3000));
    expect(await pageOf(ext, fileUrl('Field guide.pdf'))).toBeNull();
    expect(await pdfLog(ext)).toEqual({ read: 0, noted: 0, withCredentials: 0 });
    expect((await ext.evalSw<{ pdfNotes: unknown[] }>('globalThis.rereadDebug.dayOne.status()')).pdfNotes).toEqual([]);
    // A file URL reaching the PDF reader some other way is refused before anything is read.
    const tabId = await ext.evalSw<number>('chrome.tabs.query({}).then((t) => t[0].id)');
    expect(await ext.evalSw<string>(`globalThis.rereadDebug.dayOne.pdf.handle(${tabId}, ${JSON.stringify(fileUrl('Field guide.pdf'))}, false, true)`)).toBe('no file access');
    expect(await ext.evalSw<string[]>('globalThis.rereadDebug.dayOne.pdf.readOpenLocalPdfs()')).toEqual([]);
    expect(await pdfLog(ext)).toEqual({ read: 0, noted: 0, withCredentials: 0 });
    expect(await searchPage(ext, { q: '"quillwort estuary"' })).toEqual([]);
  });
});
