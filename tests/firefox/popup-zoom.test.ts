/**
 * The toolbar popup in Firefox on a display scaled to 150% and 200% (tests/e2e/reflow.test.ts is the
 * same in Chromium, where the browser's zoom is what shrinks the popup's room).
 *
 * Firefox leaves popups at 100% whatever the default zoom, but a scaled display has fewer CSS pixels:
 * 1366 × 768 at 150% is 910 × 512, 1920 × 1080 at 200% is 960 × 540, and below the toolbar there is less
 * room than the popup's 600 pixels. Firefox then laid the popup out at its full height and showed the
 * part that fit on the screen: the footer (Options, "Never save …") and the last results were cut off,
 * and nothing scrolled to them. A headless Firefox keeps the panel whole, so this runs a real window on
 * an X server of that size (Xvfb) with Firefox's own scale (`layout.css.devPixelsPerPx`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineStats, launchFirefox, serve, startXvfb, until, visit, type FirefoxExtension, type FixtureServer } from './harness.js';

let server: FixtureServer;
beforeAll(async () => {
  server = await serve();
});
afterAll(async () => {
  await server?.close();
});

interface Fit {
  /** The popup's top on the screen and the bottom of the screen's usable area, in CSS pixels. */
  screenTop: number;
  screenBottom: number;
  height: number;
  scrollHeight: number;
  box: { top: number; bottom: number };
  footer: { top: number; bottom: number };
  capped: boolean;
  scrolls: { scrollHeight: number; clientHeight: number };
  atEnd: { footerTop: number; lastResultBottom: number };
}

/** The open popup's layout (read from the control tab: the popup is one of the add-on's views). */
const MEASURE = `(async () => {
  const w = browser.extension.getViews({ type: 'popup' })[0];
  if (!w) return null;
  const d = w.document;
  const span = (sel) => { const r = d.querySelector(sel).getBoundingClientRect(); return { top: r.top, bottom: r.bottom }; };
  const scroller = [...d.querySelectorAll('.popup__main, .results')].find((el) => el.scrollHeight > el.clientHeight) ?? d.querySelector('.results');
  const fit = {
    screenTop: w.mozInnerScreenY, screenBottom: w.screen.availTop + w.screen.availHeight,
    height: w.innerHeight, scrollHeight: d.documentElement.scrollHeight,
    box: span('[data-testid="search-input"]'), footer: span('.popup__footer'),
    capped: d.querySelector('.popup').hasAttribute('data-capped'),
    scrolls: { scrollHeight: scroller.scrollHeight, clientHeight: scroller.clientHeight },
  };
  scroller.scrollTop = scroller.scrollHeight;
  await new Promise((r) => w.requestAnimationFrame(() => w.requestAnimationFrame(r)));
  const results = d.querySelectorAll('[data-testid="result"]');
  fit.atEnd = { footerTop: d.querySelector('.popup__footer').getBoundingClientRect().top, lastResultBottom: results[results.length - 1].getBoundingClientRect().bottom };
  scroller.scrollTop = 0;
  return fit;
})()`;

describe('the toolbar popup on a scaled display', () => {
  for (const [scale, width, height] of [
    [1.5, 1366, 768],
    [2, 1920, 1080],
  ] as const) {
    it(`at ${scale * 100}% on a ${width} × ${height} screen, the search box and the footer stay on the screen and the results scroll between them`, async () => {
      const x = await startXvfb(width, height);
      let ext: FirefoxExtension | undefined;
      try {
        ext = await launchFirefox({
          display: x.display,
          prefs: {
            'layout.css.devPixelsPerPx': String(scale),
            // browser.action.openPopup from the test, and the popup kept open while the window has no focus (no window manager).
            'extensions.openPopupWithoutUserGesture.enabled': true,
            'ui.popup.disable_autohide': true,
          },
        });
        const e = ext;
        // Three pages: "the" finds them all, more than the room below the toolbar holds.
        await visit(e, [server.url('/cats.html'), server.url('/git-undo.html'), server.url('/bread.html')]);
        await until(async () => (await engineStats(e)).pages >= 3, 'three pages stored');
        expect(await e.bg<string>(`browser.action.openPopup().then(() => 'opened', (err) => String(err))`)).toBe('opened');
        await until(() => e.bg<boolean>(`!!browser.extension.getViews({ type: 'popup' })[0]?.document.querySelector('[data-testid="search-input"]')`), 'the popup');
        await e.bg(`(() => {
          const w = browser.extension.getViews({ type: 'popup' })[0];
          const i = w.document.querySelector('[data-testid="search-input"]');
          i.value = 'the';
          i.dispatchEvent(new w.Event('input', { bubbles: true }));
          return true;
        })()`);
        await until(() => e.bg<boolean>(`(() => { const d = browser.extension.getViews({ type: 'popup' })[0].document; return d.querySelectorAll('[data-testid="result"]').length >= 3 && !d.querySelector('[data-testid="searching"]'); })()`), 'results in the popup', 20_000);
        // The panel is placed and sized after a layout: measure once two readings agree.
        let fit: Fit | null = null;
        await until(async () => {
          const before = fit;
          fit = await e.bg<Fit | null>(MEASURE);
          return !!before && !!fit && before.height === fit.height && before.screenTop === fit.screenTop;
        }, 'the popup settled', 10_000, 400);
        const f = fit!;
        // Less room below the toolbar than the popup's content: the case this is about.
        expect(f.screenBottom - f.screenTop).toBeLessThan(f.scrolls.scrollHeight + (f.height - f.scrolls.clientHeight));
        // The whole popup is on the screen, its box at the top and its footer at the bottom, before and
        // after the list is scrolled to its end; the popup itself never scrolls.
        expect(f.screenTop + f.height).toBeLessThanOrEqual(f.screenBottom + 1);
        expect(f.scrollHeight).toBeLessThanOrEqual(f.height + 1);
        expect(f.box.top).toBeGreaterThanOrEqual(0);
        expect(f.box.bottom).toBeLessThanOrEqual(f.footer.top);
        expect(f.footer.bottom).toBeLessThanOrEqual(f.height + 1);
        expect(f.capped).toBe(true);
        expect(f.scrolls.scrollHeight).toBeGreaterThan(f.scrolls.clientHeight);
        expect(f.atEnd.lastResultBottom).toBeLessThanOrEqual(f.atEnd.footerTop + 1);
        expect(await e.consoleProblems()).toEqual([]);
      } finally {
        await ext?.close();
        x.stop();
      }
    });
  }
});
