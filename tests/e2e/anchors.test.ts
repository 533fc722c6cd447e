/**
 * Section-accurate links in the real extension: the anchor fixtures (tests/fixtures/anchors: Sphinx,
 * DocBook, MkDocs, Docusaurus, Javadoc, rustdoc, MediaWiki, a blog post, a GitHub README) are visited
 * and captured by the content script; for each remembered five-word span, the first result's link,
 * as the results page shows it, is opened in Chromium and must land on the heading of the section that
 * holds the span (judged in the page's DOM, and the heading must be on screen after the navigation).
 * Also: a misspelled word is searched as the nearest word the pages use, the results page says so, and
 * "search instead for" searches the word as typed; a Japanese span cut mid-word finds its section.
 */
import fs, { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, searchPage, serve, until, ARTIFACTS, FIXTURES, type Extension, type FixtureServer } from './harness.js';
import { resolveLinkSection } from '../fixtures/anchors/resolveLink.js';

let ext: Extension;
let server: FixtureServer;

const DIR = join(FIXTURES, 'anchors');
const expected = JSON.parse(fs.readFileSync(join(DIR, 'expected.json'), 'utf8')) as { page: string; query: string; heading: string }[];
const PAGES = [...new Set(expected.map((e) => e.page))];

async function inWorker<T>(expr: string): Promise<T> {
  const w = await ext.sw();
  return (await w.evaluate(`(async () => { const { engine } = globalThis.reread; return (${expr}); })()`)) as T;
}

beforeAll(async () => {
  server = await serve({ '/anchors/': DIR });
  ext = await launch();
  await inWorker('engine.updateSettings({ denseEnabled: false })');
  for (const p of PAGES) {
    const url = server.url(`/anchors/${p}`);
    const since = Date.now();
    const page = await ext.ctx.newPage();
    await page.goto(url, { waitUntil: 'load' });
    await until(() => inWorker(`engine.captureLog.findLast((e) => e.url === ${JSON.stringify(url)} && e.at >= ${since})`), `capture of ${p}`);
    await page.close();
  }
}, 120_000);
afterAll(async () => {
  await ext?.close();
  await server?.close();
});

describe('result links land on the section holding the passage', () => {
  it.each(PAGES)('%s', async (p) => {
    const url = server.url(`/anchors/${p}`);
    const tab = await ext.ctx.newPage();
    // A short window, so that landing on a section is a scroll the browser has to make.
    await tab.setViewportSize({ width: 900, height: 260 });
    const misses: string[] = [];
    for (const e of expected.filter((x) => x.page === p)) {
      const [top] = await searchPage(ext, { q: e.query }, tab);
      if (!top || !top.href.startsWith(url)) {
        misses.push(`"${e.query}": first result ${top?.href ?? 'none'}`);
        continue;
      }
      await tab.goto(server.url('/anchors/blank'));
      await tab.goto(top.href, { waitUntil: 'load' });
      await tab.waitForTimeout(150);
      const landed = await tab.evaluate(
        ({ src, href, want }) => {
          const resolve = new Function(`return (${src})`)() as (doc: Document, href: string) => string | null;
          const at = resolve(document, href);
          const norm = (s: string | null) => (s ?? '').replace(/\[\s*edit\s*\]/g, '').replace(/[\u200b-\u200d\u2060\ufeff]/g, '').replace(/[¶§#]/g, ' ').replace(/\s+/g, ' ').trim();
          const heading = [...document.querySelectorAll('h1,h2,h3,h4,h5,h6,dt[id]')].find((h) => norm(h.textContent) === want);
          const r = heading?.getBoundingClientRect();
          return { at, visible: !!r && r.bottom > 0 && r.top < innerHeight };
        },
        { src: resolveLinkSection.toString(), href: top.href, want: e.heading },
      );
      if (landed.at !== e.heading) misses.push(`"${e.query}": ${top.href} lands on ${JSON.stringify(landed.at)}, not ${JSON.stringify(e.heading)}`);
      else if (!landed.visible) misses.push(`"${e.query}": ${top.href} leaves "${e.heading}" off screen`);
    }
    await tab.close();
    expect(misses).toEqual([]);
  });
});

describe('a remembered Japanese span cut mid-word (src/recut.ts)', () => {
  it('finds the section through the cut word, links to it and says what it searched', async () => {
    const url = server.url('/anchors/ja-kernel.html');
    const since = Date.now();
    const page = await ext.ctx.newPage();
    await page.goto(url, { waitUntil: 'load' });
    await until(() => inWorker(`engine.captureLog.findLast((e) => e.url === ${JSON.stringify(url)} && e.at >= ${since})`), 'capture of ja-kernel.html');
    await page.close();
    const tab = await ext.ctx.newPage();
    // 「カーネルパッケ」 is no word of the page (the segmenter keeps the katakana run whole); the other
    // section says 新しい eight times. The index's terms カーネル + パッケージ stand for it.
    const rows = await searchPage(ext, { q: '新しいカーネルパッケ' }, tab);
    expect(rows[0]?.href).toBe(`${url}#kernel`);
    await expect.poll(() => tab.getByTestId('corrected').textContent()).toContain('新しいカーネルパッケージ');
    // Photographed to be looked at (tests/e2e/artifacts).
    mkdirSync(join(ARTIFACTS, 'screens'), { recursive: true });
    await tab.screenshot({ path: join(ARTIFACTS, 'screens', 'search-recut-ja.png') });
    // "Search instead for" searches the words as typed (no re-cut, no banner again).
    await tab.getByTestId('search-exact').click();
    await expect.poll(() => tab.getByTestId('corrected').count()).toBe(0);
    await tab.close();
  });
});

describe('typos on the results page', () => {
  it('shows results for the nearest word, and searches the word as typed on request', async () => {
    const tab = await ext.ctx.newPage();
    // "containers" is in the blog post's title; "contaienrs" is not a word.
    const rows = await searchPage(ext, { q: 'contaienrs' }, tab);
    expect(rows[0]?.href.startsWith(server.url('/anchors/blog.html'))).toBe(true);
    await expect.poll(() => tab.getByTestId('corrected').textContent()).toContain('Showing results for containers');
    await tab.getByTestId('search-exact').click();
    await tab.getByTestId('no-results').waitFor();
    expect(await tab.getByTestId('corrected').count()).toBe(0);
    await tab.close();
  });
});
