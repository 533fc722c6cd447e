/**
 * What a person types into a code editor never reaches the index, in real Chromium through the extension:
 * editors that take keystrokes in a hidden input and draw the text themselves (CodeMirror 5, Ace, Monaco,
 * hand-made ones), an editable region (CodeMirror 6), and a suggestion list that echoes the query. The
 * page's prose and its read-only code (a highlighted `pre`, read-only CodeMirror 5, 6 and Ace) are found.
 * The editors' markup: tests/fixtures/hard/editors.html. Then text a reader cannot see
 * (tests/fixtures/hard/unseen.html): a block off the page (a textarea's auto-size mirror, stuffed keywords)
 * is left out; screen-reader-only text is kept.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright';
import { launch, searchPage, serve, until, FIXTURES, type Extension, type FixtureServer } from './harness.js';

let ext: Extension;
let server: FixtureServer;

/** What the test types, into which input: a word no fixture holds, one per editor. */
const TYPED: Record<string, string> = {
  '#cm5 textarea': ' cmfivetypedword\nsecretcmfiveline',
  '#ace textarea': ' acetypedword\nsecretaceline',
  '#monaco textarea': ' monacotypedword',
  '#cm6 .cm-line': ' cmsixtypedword',
  '#overlay textarea': ' overlaytypedword',
  '#kbd input': ' kbdtypedword',
  '#find': 'suggesttypedword',
};
/** Text the page itself shows: its prose and its read-only code. */
const PAGE_WORDS = ['playgroundprose', 'staticprecode', 'nocursorcode', 'acereadonlycode', 'cmsixreadonlycode'];

async function inWorker<T>(expr: string): Promise<T> {
  const w = await ext.sw();
  return (await w.evaluate(`(async () => { const { engine } = globalThis.reread; return (${expr}); })()`)) as T;
}

/**
 * Opens `path`, types `typing` (selector -> text) before the page's load event (which the content script
 * waits for: the load waits for an image answered only once everything is typed), waits for the capture
 * and returns the text of the chunks stored for the page, lower case.
 */
async function captureTyped(path: string, typing: Record<string, string>, drawn: (page: Page) => Promise<void>): Promise<string> {
  const url = server.url(path);
  const page = await ext.ctx.newPage();
  let release!: () => void;
  const typed = new Promise<void>((r) => (release = r));
  await page.route('**/hold-load.png', async (route) => {
    await typed;
    await route.fulfill({ status: 200, contentType: 'image/png', body: Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64') });
  });
  await page.goto(url, { waitUntil: 'domcontentloaded' });
  for (const [sel, text] of Object.entries(typing)) {
    // Into the element itself: a click lands on what the editor draws over its input.
    await page.locator(sel).evaluate((e) => {
      (e as HTMLElement).focus();
      const sel = getSelection();
      if ((e as HTMLElement).isContentEditable && sel) {
        sel.selectAllChildren(e);
        sel.collapseToEnd();
      }
    });
    await page.keyboard.type(text, { delay: 2 });
  }
  // The typed text is drawn on the page (what a capture would read if it read it).
  await drawn(page);
  const since = Date.now();
  release();
  await until(() => inWorker<boolean>(`engine.captureLog.some((e) => e.url === ${JSON.stringify(url)} && e.at >= ${since} && e.outcome === 'new')`), `capture of ${path}`);
  const chunks = await inWorker<string[]>(`globalThis.rereadDebug.pageChunks(${JSON.stringify(url)}).then((cs) => cs.map((c) => c.text + ' ' + c.headingPath.join(' ')))`);
  await page.close();
  return chunks.join('\n').toLowerCase();
}

let stored = '';

beforeAll(async () => {
  server = await serve({ '/hard/': join(FIXTURES, 'hard') });
  ext = await launch();
  await inWorker('engine.updateSettings({ denseEnabled: false })');
  stored = await captureTyped('/hard/editors.html', TYPED, async (page) => {
    const shown = await page.evaluate(() => document.querySelector('main')!.innerText);
    for (const w of ['cmfivetypedword', 'secretaceline', 'cmsixtypedword', 'kbdtypedword', 'suggesttypedword']) expect(shown).toContain(w);
    expect(await page.evaluate(() => document.querySelector('#overlay code')!.textContent)).toContain('overlaytypedword');
  });
});
afterAll(async () => {
  await ext?.close();
  await server?.close();
});

describe('capture: text typed into code editors', () => {
  it('stores none of what was typed into CodeMirror 5, Ace, Monaco, CodeMirror 6, hand-made editors or a search box with suggestions, and finds none of it', async () => {
    const words = Object.values(TYPED).flatMap((t) => t.trim().split(/\s+/));
    for (const w of words) expect(stored, w).not.toContain(w);
    const page = await ext.ctx.newPage();
    for (const w of words) expect(await searchPage(ext, { q: w }, page), w).toEqual([]);
    await page.close();
  });

  it("stores and finds the page's prose and its read-only code: a highlighted pre, read-only CodeMirror 5, 6 and Ace", async () => {
    const url = server.url('/hard/editors.html');
    const page = await ext.ctx.newPage();
    for (const w of PAGE_WORDS) {
      expect(stored, w).toContain(w);
      expect((await searchPage(ext, { q: w }, page)).map((r) => r.href.split('#')[0]), w).toContain(url);
    }
    await page.close();
  });
});

describe('capture: text a reader cannot see', () => {
  const NOTE = 'My autogrowtypedword note says the figures for the north region look wrong to me, please check them again.';
  let text = '';
  beforeAll(async () => {
    text = await captureTyped('/hard/unseen.html', { '#note': NOTE }, async (page) => {
      // jQuery autogrow's mirror holds what was typed, off the page.
      expect(await page.evaluate(() => document.body.innerText)).toContain('autogrowtypedword');
    });
  });

  it("leaves out a block off the page: a textarea's auto-size mirror of what was typed, text stuffed for search engines", async () => {
    const page = await ext.ctx.newPage();
    for (const w of ['autogrowtypedword', 'stuffedpromoword']) {
      expect(text, w).not.toContain(w);
      expect(await searchPage(ext, { q: w }, page), w).toEqual([]);
    }
    await page.close();
  });

  it("keeps screen-reader-only text (clip, and a 1 x 1 px box off the page), a logo's text and font-size 0 text", async () => {
    const url = server.url('/hard/unseen.html');
    const page = await ext.ctx.newPage();
    for (const w of ['clipsronlyword', 'offscreensronlyword', 'offscreenblockword', 'quarterlogoword', 'fontzeroiconword']) {
      expect(text, w).toContain(w);
      expect((await searchPage(ext, { q: w }, page)).map((r) => r.href.split('#')[0]), w).toContain(url);
    }
    await page.close();
  });
});
