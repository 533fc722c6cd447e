/**
 * The content script (content/main.ts) on single-page apps, in real Chromium with the page's clock under
 * the test's control (Playwright's clock: every timer and idle callback runs when the test says): which
 * view is filed under which address. The extension's APIs are a stand-in that answers every message and
 * keeps what was sent; the script runs in the page's own world, so the page can act at a chosen point of
 * the capture (the first time it yields to the page).
 */
import { existsSync } from 'node:fs';
import { build } from 'esbuild';
import { chromium, type Browser, type Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const CHROMIUM = ['/usr/lib/chromium/chromium', '/usr/bin/chromium'].find((p) => existsSync(p));

/** webextension-polyfill as the script sees it: capture allowed, every message answered, each one kept. */
const API = `
const sent = (globalThis.__rereadSent = []);
const reply = (m) =>
  m.type === 'page/check' ? { ok: true, data: { allowed: true } }
  : m.type === 'page/capture' ? { ok: true, data: { outcome: 'new', chunks: m.payload.sections.length } }
  : { ok: true, data: {} };
export default {
  runtime: {
    id: 'reread-test',
    sendMessage: async (m) => { sent.push(JSON.parse(JSON.stringify(m))); return reply(m); },
    onMessage: { addListener() {} },
    getURL: (p) => 'chrome-extension://reread-test/' + p,
  },
  storage: { local: { get: async () => ({ captureGate: { paused: false, excludedSites: [] } }), set: async () => {} } },
  extension: { inIncognitoContext: false },
};`;

const prose = (w: string) => Array.from({ length: 6 }, () => `The ${w} report lists the quarterly figures for every region in plain words.`).join(' ');
const view = (w: string) => `<h1>${w}</h1><p>${prose(w)}</p><p>${prose(`${w} second`)}</p>`;
const APP = `<!doctype html><html lang="en"><head><title>Field guide</title></head><body><main id="view">${view('aardwolf')}</main></body></html>`;

let browser: Browser;
let script: string;

beforeAll(async () => {
  if (!CHROMIUM) return;
  const bundle = await build({
    entryPoints: [new URL('../../content/main.ts', import.meta.url).pathname],
    bundle: true,
    format: 'iife',
    write: false,
    platform: 'browser',
    logLevel: 'silent',
    plugins: [
      {
        name: 'extension-api',
        setup(b) {
          b.onResolve({ filter: /^webextension-polyfill$/ }, () => ({ path: 'api', namespace: 'extension-api' }));
          b.onLoad({ filter: /.*/, namespace: 'extension-api' }, () => ({ contents: API, loader: 'js' }));
        },
      },
    ],
  });
  script = bundle.outputFiles[0]!.text;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
});
afterAll(async () => {
  await browser?.close();
});

/** The app at https://app.example/a, its clock stopped; `before` runs in the page before the script starts. */
async function openApp(before?: (page: Page) => Promise<void>): Promise<Page> {
  const page = await browser.newPage();
  await page.route('https://app.example/**', (r) => r.fulfill({ contentType: 'text/html', body: APP }));
  await page.clock.install({ time: 0 });
  await page.goto('https://app.example/a');
  await before?.(page);
  await page.addScriptTag({ content: script });
  return page;
}

/** The captures sent so far: address and first heading. */
const captures = (page: Page) =>
  page.evaluate(() =>
    (globalThis as unknown as { __rereadSent: { type: string; payload: { url: string; blocks: { text: string }[] } }[] }).__rereadSent
      .filter((m) => m.type === 'page/capture')
      .map((m) => ({ url: m.payload.url, heading: m.payload.blocks[0]?.text, text: m.payload.blocks.map((b) => b.text).join(' ') })),
  );

describe.skipIf(!CHROMIUM)('single-page apps: each view is filed under its own address', () => {
  it('a view shown seconds after the address changed is captured under the new address, and the old view is not', async () => {
    const page = await openApp();
    await page.clock.runFor(3000);
    expect(await captures(page)).toEqual([{ url: 'https://app.example/a', heading: 'aardwolf', text: expect.any(String) }]);
    // The app changes the address at once and shows the new view when its data came: the old view stays
    // on screen past the content script's quiet period (1.5 s)...
    await page.evaluate(() => history.pushState({}, '', '/b'));
    await page.clock.runFor(4000);
    // ...then the new view, written into the elements already there (three text nodes: no "large" change).
    await page.evaluate(() => {
      for (const [i, e] of Array.from(document.querySelectorAll('#view > *')).entries()) e.firstChild!.nodeValue = i === 0 ? 'zibeline' : e.firstChild!.nodeValue!.replace(/aardwolf/g, 'zibeline');
    });
    await page.clock.runFor(8000);
    const underB = (await captures(page)).filter((c) => c.url === 'https://app.example/b');
    expect(underB.length).toBeGreaterThan(0);
    for (const c of underB) expect(c.text).not.toContain('aardwolf');
    expect(underB.at(-1)!.heading).toBe('zibeline');
    await page.close();
  });

  /** Opens the app with a page that moves to /b the first time the capture yields to it (its slices wait for idle time), showing `next` then (or, without it, the same view). */
  const movingWhileRead = (next?: string) =>
    openApp((p) =>
      p.evaluate((html) => {
        const idle = window.requestIdleCallback.bind(window);
        let moved = false;
        window.requestIdleCallback = (cb, o) =>
          idle((deadline) => {
            if (o?.timeout === 50 && !moved) {
              moved = true;
              history.pushState({}, '', '/b');
              if (html) document.getElementById('view')!.innerHTML = html;
            }
            cb(deadline);
          }, o);
      }, next ?? ''),
    );

  it('a page that moves to another address while it is read, its content unchanged, has the read filed under the address it began at', async () => {
    // The app changes the address between two slices of the read and shows the new view later: the read
    // was sent under the new address.
    const page = await movingWhileRead();
    await page.clock.runFor(3000);
    await page.evaluate((next) => (document.getElementById('view')!.innerHTML = next), view('zibeline'));
    await page.clock.runFor(8000);
    const sent = await captures(page);
    expect(sent.map((c) => [c.url, c.heading])).toEqual([
      ['https://app.example/a', 'aardwolf'],
      ['https://app.example/b', 'zibeline'],
    ]);
    await page.close();
  });

  it('a page whose address and content both change while it is read has that read filed nowhere (it may hold parts of both views)', async () => {
    const page = await movingWhileRead(view('zibeline'));
    await page.clock.runFor(12_000);
    const sent = await captures(page);
    // The new view is captured under its address (the move starts a capture); of the read, nothing.
    expect(sent.map((c) => [c.url, c.heading])).toEqual([['https://app.example/b', 'zibeline']]);
    for (const c of sent) expect(c.text).not.toContain('aardwolf');
    await page.close();
  });
});
