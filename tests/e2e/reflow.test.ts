/**
 * Reflow: what a person who zooms in, or has a narrow window, sees.
 *
 * The real toolbar popup (chrome.action.openPopup, not popup.html opened as a tab) at the browser's
 * default zoom. Chrome zooms popups too, and a popup is at most 800 screen pixels wide: at 200% that is
 * 400 CSS pixels, and the popup's 560 CSS pixels scrolled sideways with the Options link out of view.
 * At 100% the popup keeps its 560 pixels (Chrome sizes a popup by growing it from a tiny frame: a popup
 * that follows its frame's width without care stays tiny). Then a long site name, at full and at zoomed
 * width: in the footer ("Never save …") and in a result's line. And the options and results pages at
 * 320 CSS pixels wide (WCAG 1.4.10: a 1280-pixel window at 400%): nothing scrolls sideways.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CDPSession } from 'playwright';
import { launch, serve, tabsPermissionDist, until, visit, type Extension, type FixtureServer } from './harness.js';

let server: FixtureServer;
beforeAll(async () => {
  server = await serve();
});
afterAll(async () => {
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
  scrollWidth: number;
  optionsRight: number;
  clearRight: number;
}

/** Types `q` into the real popup, waits for its results, and measures the popup's width. */
async function searchAndMeasure(ext: Extension, q: string): Promise<Fit> {
  const popup = await openPopup(ext);
  try {
    await until(() => popup.evaluate<boolean>(`!!document.querySelector('[data-testid="search-input"]')`), 'the popup rendered');
    await popup.evaluate(`(() => { const i = document.querySelector('[data-testid="search-input"]'); i.value = ${JSON.stringify(q)}; i.dispatchEvent(new Event('input', { bubbles: true })); return true; })()`);
    await until(() => popup.evaluate<boolean>(`!!document.querySelector('[data-testid="result"]') && !document.querySelector('[data-testid="searching"]')`), 'results in the popup', 20_000);
    return await popup.evaluate<Fit>(`(() => {
      const right = (sel) => document.querySelector(sel)?.getBoundingClientRect().right ?? -1;
      return { width: innerWidth, scrollWidth: document.documentElement.scrollWidth, optionsRight: right('.popup__footer a:last-child'), clearRight: right('[data-testid="search-input"]') };
    })()`);
  } finally {
    await popup.close();
  }
}

describe('the toolbar popup at the browser zoom', () => {
  for (const [factor, width] of [
    [1, 560],
    [2, 400],
  ] as const) {
    it(`at ${factor * 100}% it is ${width} CSS pixels wide and nothing is out of view sideways`, async () => {
      const profile = zoomedProfile(factor);
      const ext = await launch({ profile });
      try {
        await visit(ext, [server.url('/cats.html')]);
        const fit = await searchAndMeasure(ext, 'litter box');
        expect(fit.width).toBe(width);
        expect(fit.scrollWidth).toBeLessThanOrEqual(fit.width);
        expect(fit.optionsRight).toBeGreaterThan(0);
        expect(fit.optionsRight).toBeLessThanOrEqual(fit.width);
        expect(fit.clearRight).toBeLessThanOrEqual(fit.width);
      } finally {
        await ext.close();
        rmSync(profile, { recursive: true, force: true });
      }
    });
  }
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
            linkLines: [...document.querySelectorAll('.popup__footer a')].map((a) => {
              const r = document.createRange();
              r.selectNodeContents(a);
              return new Set([...r.getClientRects()].map((b) => Math.round(b.top))).size;
            }),
            dateInCard: date.width > 0 && date.right <= main.right,
            scrollWidth: document.documentElement.scrollWidth,
          };
        });
        expect(layout.linkLines, `at ${width} px`).toEqual([1, 1]);
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
    const ext = await launch();
    try {
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
    } finally {
      await ext.close();
    }
  });
});
