/**
 * Day one (#14), part 1: tabs that were open before Reread was installed are captured once it loads.
 * The browser starts without the extension, pages are opened (one on an excluded site, one still
 * loading because the server holds its answer), then the extension is loaded into the running browser
 * (CDP Extensions.loadUnpacked, as a user installing it). Positive control: a page opened after the load
 * is captured by the manifest's content script as usual.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { Page } from 'playwright';
import { launch, until, type Extension } from './harness.js';

const PAGES: Record<string, string> = {
  '/teapot': '<title>Teapot history</title><main><h1>Teapots</h1><p>The xyloteapot quillwort was first glazed in a small kiln, and its spout curved twice before the handle. Collectors value the crackle pattern on its lid above all else.</p></main>',
  '/river': '<title>River notes</title><main><h1>Rivers</h1><p>The marshbrook gravelrun meanders through seven valleys before it reaches the estuary, carrying silt that feeds the reed beds every spring flood season.</p></main>',
  '/slow': '<title>Slow page</title><main><h1>Slow</h1><p>The lanternfish dovetailer arrived late because the server kept this answer back until the extension was already loaded and watching the tabs.</p></main>',
  '/paused': '<title>Paused page</title><main><h1>Paused</h1><p>The cobblestone weathervane page was opened while capture was paused, so nothing read it then; resuming capture reads the tabs that are still open.</p></main>',
  '/after': '<title>After install</title><main><h1>After</h1><p>The bramblewick tinderbox was opened after the extension had been installed, so its ordinary content script reads it without any help at all.</p></main>',
};

let server: Server;
let origin = '';
let excludedOrigin = '';
let releaseSlow: () => void = () => undefined;
const slowReleased = new Promise<void>((r) => (releaseSlow = r));
let ext: Extension;

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const html = PAGES[path];
    if (!html) return void res.writeHead(404).end();
    const send = () => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
    if (path === '/slow') void slowReleased.then(send);
    else send();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  origin = `http://127.0.0.1:${port}`;
  // A site on the default exclusion list, served by the same server (the browser resolves it here).
  excludedOrigin = `http://wellsfargo.com:${port}`;
  ext = await launch({
    args: ['--host-resolver-rules=MAP wellsfargo.com 127.0.0.1'],
    beforeLoad: async (ctx) => {
      for (const u of [`${origin}/teapot`, `${origin}/river`, `${excludedOrigin}/river`]) {
        const p = await ctx.newPage();
        await p.goto(u, { waitUntil: 'load' });
      }
      const slow: Page = await ctx.newPage();
      void slow.goto(`${origin}/slow`).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 300));
    },
  });
}, 120_000);

afterAll(async () => {
  await ext?.close();
  server?.closeAllConnections();
  server?.close();
});

const pageOf = (url: string) => ext.evalSw<{ kind?: string; visitCount: number } | null>(`engine.db().then((db) => db.get('pages', ${JSON.stringify(url)})).then((p) => p ? { kind: p.kind, visitCount: p.visitCount } : null)`);

describe('tabs open before the install', () => {
  it('are captured once the extension loads; excluded sites are not', async () => {
    // Nothing but the install event starts this (runtime.onInstalled -> the open-tabs sweep).
    await until(async () => (await pageOf(`${origin}/teapot`)) && (await pageOf(`${origin}/river`)), 'open tabs captured', 30_000, 300);
    expect(await ext.evalSw<number>('rereadDebug.openTabsLog.sweeps')).toBeGreaterThanOrEqual(1);
    // The excluded site's tab was loaded and is open, but never read.
    expect(ext.ctx.pages().some((p) => p.url().startsWith(excludedOrigin))).toBe(true);
    expect(await pageOf(`${excludedOrigin}/river`)).toBeNull();
    const found = await ext.evalSw<string[]>(`engine.search({ q: 'xyloteapot quillwort' }).then((r) => r.results.map((x) => x.url))`);
    expect(found).toEqual([`${origin}/teapot`]);
  });

  it('a tab still loading at install is captured when it has loaded', async () => {
    expect(await pageOf(`${origin}/slow`)).toBeNull();
    releaseSlow();
    await until(() => pageOf(`${origin}/slow`), 'the slow tab captured', 30_000, 300);
  });

  it('sweeping again stores nothing twice (idempotent)', async () => {
    const before = await pageOf(`${origin}/teapot`);
    const stats = await ext.evalSw<{ pages: number; chunks: number }>('engine.stats()');
    await ext.evalSw('rereadDebug.captureOpenTabs()');
    await new Promise((r) => setTimeout(r, 2500));
    expect(await ext.evalSw<{ pages: number; chunks: number }>('engine.stats()')).toMatchObject({ pages: stats.pages, chunks: stats.chunks });
    // The copy injected into a tab already captured hands over to the running one: no second capture.
    expect((await pageOf(`${origin}/teapot`))!.visitCount).toBe(before!.visitCount);
  });

  it('a tab opened while capture was paused is read when capture is resumed', async () => {
    const options = await ext.ctx.newPage();
    await options.goto(ext.extensionUrl('options.html'));
    await options.getByTestId('pause').check();
    await until(async () => (await ext.evalSw<{ paused: boolean }>('engine.settings()')).paused, 'paused');
    const p = await ext.ctx.newPage();
    await p.goto(`${origin}/paused`, { waitUntil: 'load' });
    await new Promise((r) => setTimeout(r, 2500));
    expect(await pageOf(`${origin}/paused`)).toBeNull();
    await options.getByTestId('pause').uncheck();
    await until(() => pageOf(`${origin}/paused`), 'the paused tab read after resuming', 20_000, 300);
    await options.close();
  });

  it('positive control: a page opened after the install is captured by the manifest content script', async () => {
    const p = await ext.ctx.newPage();
    await p.goto(`${origin}/after`, { waitUntil: 'load' });
    await until(() => pageOf(`${origin}/after`), 'page opened after install captured', 20_000, 300);
  });
});
