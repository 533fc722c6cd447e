/**
 * Snippets of unspaced text on the results page (src/snippet.ts). A Japanese page whose sections each
 * say アップグレード only near the end of a long paragraph: every result row, the one-line "more" rows
 * included, must show its highlight. Before the windows were cut at the segmenter's word starts, a
 * paragraph without spaces was one "word", so each row opened at the paragraph's start and the mark lay
 * far past the row's ellipsis, hidden. Photographed light and dark (docs/screens with UPDATE_DOCS=1).
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeViolations, failing, runAxe } from './axe.js';
import { ARTIFACTS, FIXTURES, launch, ROOT, searchPage, serve, until, type Extension, type FixtureServer } from './harness.js';

let ext: Extension;
let server: FixtureServer;
const QUERY = 'アップグレード';

beforeAll(async () => {
  server = await serve({ '/anchors/': join(FIXTURES, 'anchors') });
  ext = await launch();
  await ext.evalSw('engine.updateSettings({ denseEnabled: false })');
  const url = server.url('/anchors/ja-upgrade.html');
  const since = Date.now();
  const page = await ext.ctx.newPage();
  await page.goto(url, { waitUntil: 'load' });
  await until(() => ext.evalSw(`engine.captureLog.findLast((e) => e.url === ${JSON.stringify(url)} && e.at >= ${since})`), 'capture of ja-upgrade.html');
  await page.close();
}, 60_000);
afterAll(async () => {
  await ext?.close();
  await server?.close();
});

/** For each result row (main and "more"): its text, and whether its first mark lies whole inside the row's visible box. */
async function rowMarks(tab: Page): Promise<{ kind: string; text: string; mark: string; shown: boolean }[]> {
  return tab.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>('[data-testid=result-link], [data-testid=more-link]')].map((row) => {
      const box = row.getBoundingClientRect();
      const style = getComputedStyle(row);
      const right = box.right - parseFloat(style.paddingRight);
      const mark = row.querySelector('mark');
      const r = mark?.getBoundingClientRect();
      // A "more" row is one line cut by an ellipsis; a mark past the cut is not drawn at all.
      return { kind: row.dataset.testid!, text: row.textContent ?? '', mark: mark?.textContent ?? '', shown: !!r && r.width > 0 && r.right <= right + 0.5 && r.left >= box.left && r.bottom <= box.bottom + 0.5 };
    }),
  );
}

describe('snippets of Japanese text on the results page', () => {
  it('show the highlighted match in every row, the one-line "more" rows included', async () => {
    const tab = await ext.ctx.newPage();
    for (const width of [640, 520]) {
      await tab.setViewportSize({ width, height: 600 });
      const rows = await searchPage(ext, { q: QUERY }, tab);
      expect(rows[0]?.href.startsWith(server.url('/anchors/ja-upgrade.html'))).toBe(true);
      const marks = await rowMarks(tab);
      // Four sections say it: the page's best, and as many more rows as a page gets (two).
      expect(marks.filter((m) => m.kind === 'more-link').length).toBe(2);
      for (const m of marks) expect({ width, ...m }).toMatchObject({ mark: QUERY, shown: true });
    }
    await tab.close();
  });

  it('reads well light and dark (axe-clean), photographed', async () => {
    mkdirSync(join(ARTIFACTS, 'screens'), { recursive: true });
    for (const scheme of ['light', 'dark'] as const) {
      const tab = await ext.ctx.newPage();
      await tab.emulateMedia({ colorScheme: scheme });
      await tab.setViewportSize({ width: 640, height: 520 });
      await searchPage(ext, { q: QUERY }, tab);
      expect((await rowMarks(tab)).every((m) => m.shown)).toBe(true);
      const report = await runAxe(tab);
      expect(failing(report), describeViolations(failing(report))).toEqual([]);
      const name = `search-ja-more-${scheme}.png`;
      await tab.screenshot({ path: join(ARTIFACTS, 'screens', name) });
      if (process.env.UPDATE_DOCS) copyFileSync(join(ARTIFACTS, 'screens', name), join(ROOT, 'docs/screens', name));
      await tab.close();
    }
  });
});
