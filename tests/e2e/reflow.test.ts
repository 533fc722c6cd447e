/**
 * Reflow: what a person who zooms in, or has a narrow window, sees.
 *
 * The real toolbar popup (chrome.action.openPopup, not popup.html opened as a tab) at the browser's
 * default zoom. Chrome zooms popups too, and a popup is at most 800 screen pixels wide: at 200% that is
 * 400 CSS pixels, and the popup's 560 CSS pixels scrolled sideways with the Options link out of view.
 * At 100% the popup keeps its 560 pixels (Chrome sizes a popup by growing it from a tiny frame: a popup
 * that follows its frame's width without care stays tiny). The same for the height: a popup is at most
 * 600 screen pixels high (less on a short screen: about 510 in this headless browser), 300 CSS pixels at
 * 200%, and the whole popup scrolled, the footer going out of view with the results; now the search box
 * and the footer stay and what is between them scrolls, while at 100% the popup still grows to its
 * content. Then a long site name, at full and at zoomed
 * width: in the footer ("Never save …") and in a result's line. And the options and results pages at
 * 320 CSS pixels wide (WCAG 1.4.10: a 1280-pixel window at 400%): nothing scrolls sideways.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CDPSession } from 'playwright';
import { launch, ROOT, serve, tabsPermissionDist, until, visit, type Extension, type FixtureServer } from './harness.js';

let server: FixtureServer;
/**
 * A browser at the default zoom with a fresh profile, shared by the popup at 100% and the pages at 320
 * CSS pixels: each launched its own before (the 320-pixel test took 8-12 s with its own launch, visit and
 * close, 3 s in the shared browser, at load 8-12).
 */
let plain: Promise<Extension> | undefined;
const plainBrowser = () => (plain ??= launch());
beforeAll(async () => {
  server = await serve();
});
afterAll(async () => {
  await (await plain)?.close();
  await server?.close();
});

/** A profile whose default zoom is `factor` (Chrome stores it as a level: factor = 1.2 ^ level). */
function zoomedProfile(factor: number): string {
  const profile = mkdtempSync(join(tmpdir(), 'reread-zoom-'));
  mkdirSync(join(profile, 'Default'), { recursive: true });
  writeFileSync(join(profile, 'Default', 'Preferences'), JSON.stringify({ partition: { default_zoom_level: { x: Math.log(factor) / Math.log(1.2) } } }));
  return profile;
}

/** Opens the toolbar popup and returns a way to evaluate an expression in it. */
async function openPopup(ext: Extension): Promise<{ evaluate<T>(expression: string): Promise<T>; close(): Promise<void> }> {
  expect(await ext.evalSw<string>(`chrome.action.openPopup().then(() => 'opened', (e) => String(e))`)).toBe('opened');
  const cdp: CDPSession = await ext.ctx.browser()!.newBrowserCDPSession();
  const popupUrl = ext.extensionUrl('popup.html');
  const target = await until(
    async () => ((await cdp.send('Target.getTargets')) as { targetInfos: { targetId: string; url: string }[] }).targetInfos.find((t) => t.url === popupUrl),
    'the popup',
    10_000,
  );
  const { sessionId } = (await cdp.send('Target.attachToTarget', { targetId: target.targetId, flatten: false })) as { sessionId: string };
  let id = 0;
  return {
    async evaluate<T>(expression: string): Promise<T> {
      const mine = ++id;
      const reply = new Promise<{ result?: { result: { value?: unknown }; exceptionDetails?: { text: string } } }>((resolve) => {
        const on = (ev: { sessionId: string; message: string }) => {
          const msg = JSON.parse(ev.message) as { id?: number };
          if (ev.sessionId === sessionId && msg.id === mine) {
            cdp.off('Target.receivedMessageFromTarget', on as never);
            resolve(msg as never);
          }
        };
        cdp.on('Target.receivedMessageFromTarget', on as never);
      });
      await cdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id: mine, method: 'Runtime.evaluate', params: { expression, awaitPromise: true, returnByValue: true } }) });
      const { result } = await reply;
      if (!result || result.exceptionDetails) throw new Error(result?.exceptionDetails?.text ?? 'no answer from the popup');
      return result.result.value as T;
    },
    close: () => cdp.detach(),
  };
}

interface Fit {
  width: number;
  height: number;
  scrollWidth: number;
  scrollHeight: number;
  optionsRight: number;
  clearRight: number;
  /** The search box and the footer, top and bottom. */
  box: { top: number; bottom: number };
  footer: { top: number; bottom: number };
  /** Capped at the frame (popup/fitPopup.ts). */
  capped: boolean;
  /** What scrolls between the box and the footer, and how far (the results list, or with it the filters). */
  scrolls: { scrollHeight: number; clientHeight: number };
  /** The popup's blocks from top to bottom (class, top, height, first words): what made it this tall. */
  lines: [string, number, number, string][];
  /** After scrolling to the end: the footer and the box still in view, the last result's bottom in view. */
  atEnd: { box: { top: number; bottom: number }; footer: { top: number; bottom: number }; lastResultBottom: number };
}

/** Types `q` into the real popup, waits for its results, and measures the popup. */
async function searchAndMeasure(ext: Extension, q: string): Promise<Fit> {
  const popup = await openPopup(ext);
  try {
    await until(() => popup.evaluate<boolean>(`!!document.querySelector('[data-testid="search-input"]')`), 'the popup rendered');
    await popup.evaluate(`(() => { const i = document.querySelector('[data-testid="search-input"]'); i.value = ${JSON.stringify(q)}; i.dispatchEvent(new Event('input', { bubbles: true })); return true; })()`);
    await until(() => popup.evaluate<boolean>(`!!document.querySelector('[data-testid="result"]') && !document.querySelector('[data-testid="searching"]')`), 'results in the popup', 20_000);
    // Chrome resizes the popup to its content after the results are drawn: measure once that is done.
    await popup.evaluate(`new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 300))))`);
    return await popup.evaluate<Fit>(`(async () => {
      const right = (sel) => document.querySelector(sel)?.getBoundingClientRect().right ?? -1;
      const span = (sel) => { const r = document.querySelector(sel).getBoundingClientRect(); return { top: r.top, bottom: r.bottom }; };
      const scroller = [...document.querySelectorAll('.popup__main, .results')].find((el) => el.scrollHeight > el.clientHeight) ?? document.querySelector('.results');
      const fit = {
        width: innerWidth, height: innerHeight, scrollWidth: document.documentElement.scrollWidth, scrollHeight: document.documentElement.scrollHeight,
        optionsRight: right('.popup__footer a:last-child'), clearRight: right('[data-testid="search-input"]'),
        box: span('[data-testid="search-input"]'), footer: span('.popup__footer'),
        capped: document.querySelector('.popup').hasAttribute('data-capped'),
        scrolls: { scrollHeight: scroller.scrollHeight, clientHeight: scroller.clientHeight },
        lines: [...document.querySelectorAll('.popup__main > *, .search > *, [data-testid="result"], .popup__footer')]
          .filter((el) => el.getBoundingClientRect().height > 0)
          .map((el) => [el.className || el.tagName, Math.round(el.getBoundingClientRect().top), Math.round(el.getBoundingClientRect().height), (el.textContent || '').slice(0, 50)]),
      };
      scroller.scrollTop = scroller.scrollHeight;
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      const results = document.querySelectorAll('[data-testid="result"]');
      fit.atEnd = { box: span('[data-testid="search-input"]'), footer: span('.popup__footer'), lastResultBottom: results[results.length - 1].getBoundingClientRect().bottom };
      return fit;
    })()`);
  } finally {
    await popup.close();
  }
}

describe('the toolbar popup at the browser zoom', () => {
  for (const [factor, width] of [
    [1, 560],
    [1.5, 533],
    [2, 400],
  ] as const) {
    it(`at ${factor * 100}% it is ${width} CSS pixels wide, nothing is out of view sideways, and the search box and footer stay in view`, async () => {
      // 100% is the default zoom: the shared browser (its profile zooms nothing).
      const profile = factor === 1 ? undefined : zoomedProfile(factor);
      const ext = profile ? await launch({ profile }) : await plainBrowser();
      try {
        // Zoomed, three pages: "the" finds them all, more than a zoomed popup can show. At 100%, two: the
        // popup with three results was 501 pixels high in a frame that grows to about 510 here, so one
        // more line anywhere (a heading that wraps) capped it, as it should, and failed the test (CI at
        // 321a5b6). Two results leave it room to grow (201 -> about 385) with a margin.
        const pages = factor === 1 ? ['/cats.html', '/git-undo.html'] : ['/cats.html', '/git-undo.html', '/bread.html'];
        await visit(ext, pages.map((p) => server.url(p)));
        const fit = await searchAndMeasure(ext, 'the');
        /** What the popup showed, for a failure's message. */
        const seen = JSON.stringify({ height: fit.height, scrollHeight: fit.scrollHeight, capped: fit.capped, scrolls: fit.scrolls, lines: fit.lines });
        expect(fit.width).toBe(width);
        expect(fit.scrollWidth).toBeLessThanOrEqual(fit.width);
        expect(fit.optionsRight).toBeGreaterThan(0);
        expect(fit.optionsRight).toBeLessThanOrEqual(fit.width);
        expect(fit.clearRight).toBeLessThanOrEqual(fit.width);
        // The popup itself never scrolls: the box at the top and the footer at the bottom are in view,
        // before and after the list is scrolled to its end, and the last result can be scrolled into view.
        expect(fit.scrollHeight).toBeLessThanOrEqual(fit.height + 1); // a fraction of a pixel is not scrolling
        for (const at of [fit, fit.atEnd]) {
          expect(at.box.top).toBeGreaterThanOrEqual(0);
          expect(at.box.bottom).toBeLessThanOrEqual(at.footer.top);
          expect(at.footer.bottom).toBeLessThanOrEqual(fit.height + 1);
        }
        expect(fit.atEnd.lastResultBottom).toBeLessThanOrEqual(fit.atEnd.footer.top + 1);
        if (factor === 1) {
          // As before: the popup grows to its results (they fit here), nothing is capped or scrolls.
          expect(fit.capped, seen).toBe(false);
          expect(fit.scrolls.scrollHeight, seen).toBeLessThanOrEqual(fit.scrolls.clientHeight);
          expect(fit.height, seen).toBeGreaterThan(300);
        } else {
          // Zoomed, the results are more than the frame holds: they scroll between the box and the footer.
          expect(fit.capped, seen).toBe(true);
          expect(fit.scrolls.scrollHeight, seen).toBeGreaterThan(fit.scrolls.clientHeight);
        }
      } finally {
        if (profile) {
          await ext.close();
          rmSync(profile, { recursive: true, force: true });
        }
      }
    });
  }
});

describe('the toolbar popup taller than its frame', () => {
  it('keeps its 560 pixels while its content is taller than the frame can grow (before it is capped)', async () => {
    // Chrome added the document's scrollbar to the popup's width (590) while the content overflowed: seen
    // in CI as a popup measured 590 wide at 100%, once its results had come.
    const ext = await plainBrowser();
    await visit(ext, [server.url('/cats.html')]);
    const popup = await openPopup(ext);
    try {
      await until(() => popup.evaluate<boolean>(`!!document.querySelector('[data-testid="search-input"]')`), 'the popup rendered');
      expect(await popup.evaluate<number>('innerWidth')).toBe(560);
      await popup.evaluate(`(() => { const d = document.createElement('div'); d.id = 'tall'; d.style.height = '1500px'; document.getElementById('app').append(d); return 1; })()`);
      // The frame grows to its most; the width must not have grown with it.
      await until(() => popup.evaluate<boolean>('innerHeight > 400 && document.documentElement.scrollHeight > innerHeight'), 'the frame at its tallest');
      await popup.evaluate(`new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 300))))`);
      expect(await popup.evaluate<number>('innerWidth')).toBe(560);
      expect(await popup.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(560);
    } finally {
      await popup.close();
    }
  });
});

describe('the popup with a long site name', () => {
  const host = 'documentation-and-reference-material.internal-knowledge-base.very-long-subdomain.example-corporation.com';

  it('wraps the name in its own place: the links beside it keep one line, a result keeps its date in view', async () => {
    const dist = tabsPermissionDist();
    const ext = await launch({ dist, args: ['--host-resolver-rules=MAP *.example-corporation.com 127.0.0.1'] });
    try {
      const url = `http://${host}:${new URL(server.origin).port}/cats.html`;
      await visit(ext, [url]);
      const tab = await ext.ctx.newPage();
      await tab.goto(url);
      const popup = await ext.ctx.newPage();
      await tab.bringToFront(); // the popup reads the active tab's site
      for (const width of [560, 400]) {
        await popup.setViewportSize({ width, height: 600 });
        await popup.goto(ext.extensionUrl('popup.html'));
        await popup.getByTestId('exclude-site').waitFor();
        await popup.getByTestId('search-input').fill('litter');
        await popup.getByTestId('result').first().waitFor();
        await popup.waitForFunction(() => !document.querySelector('[data-testid="searching"]'));
        const layout = await popup.evaluate(() => {
          const main = document.querySelector('[data-testid="result-link"]')!.getBoundingClientRect();
          const date = document.querySelector('.result__date')!.getBoundingClientRect();
          return {
            // Lines of text in each footer link: its text has a box per line.
            linkLines: [...document.querySelectorAll('.popup__footer a, [data-testid="forget-page"]')].map((a) => {
              const r = document.createRange();
              r.selectNodeContents(a);
              return new Set([...r.getClientRects()].map((b) => Math.round(b.top))).size;
            }),
            dateInCard: date.width > 0 && date.right <= main.right,
            scrollWidth: document.documentElement.scrollWidth,
          };
        });
        await popup.screenshot({ path: join(ROOT, `tests/e2e/artifacts/popup-long-site-${width}.png`) });
        // The two links and "Forget this page" (the page is saved).
        expect(layout.linkLines, `at ${width} px`).toEqual([1, 1, 1]);
        expect(layout.dateInCard, `at ${width} px`).toBe(true);
        expect(layout.scrollWidth).toBeLessThanOrEqual(width);
      }
    } finally {
      await ext.close();
      rmSync(dist, { recursive: true, force: true });
    }
  });
});

describe('the options and results pages at 320 CSS pixels', () => {
  it('scroll only down, never sideways', async () => {
    const ext = await plainBrowser();
    await visit(ext, [server.url('/cats.html')]);
    const page = await ext.ctx.newPage();
    await page.setViewportSize({ width: 320, height: 700 });
    await page.goto(ext.extensionUrl('options.html'));
    await page.getByTestId('stat-pages').waitFor();
    // The counters' longest label ("Sections still being read for search by meaning") kept its one
    // line and pushed the numbers out of view; the two columns of never-saved sites and the file
    // chooser were wider than the page too.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
    const pending = await page.getByTestId('stat-pending-embeddings').boundingBox();
    expect(pending!.x + pending!.width).toBeLessThanOrEqual(320);
    await page.goto(ext.extensionUrl('search.html?q=litter'));
    await page.getByTestId('result').first().waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
    await page.close();
  });
});
