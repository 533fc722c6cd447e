/**
 * The capture outbox in Firefox (src/outbox.ts): Firefox gives content scripts no storage.session, so a
 * page left while the background page is suspended hands its capture over through storage.local; the
 * storage change wakes the background, which files it under the page its nonce was registered by. The
 * same rules as in Chromium (tests/e2e/outbox.test.ts): a forged nonce is refused, a claimed URL on
 * another origin is ignored, an entry waits for a late hello.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchFirefox, serve, until, type FirefoxExtension, type FixtureServer } from './harness.js';
import { wordPage } from '../shared/corpus.js';

let ext: FirefoxExtension;
let server: FixtureServer;

beforeAll(async () => {
  server = await serve({});
  server.routes.set('/o/quillwort.html', wordPage('Outbox', 'quillwort'));
  ext = await launchFirefox();
});
afterAll(async () => {
  await ext?.close();
  await server?.close();
});

const urlsFor = (q: string) => ext.bg<string[]>(`engine.search({ q: ${JSON.stringify(q)} }).then((r) => r.results.map((x) => x.url))`);
const payload = (word: string) => ({ title: `Forged ${word}`, lang: 'en', blocks: [{ kind: 'text', text: `${word} `.repeat(40) }] });
const pendingKeys = () => ext.bg<string[]>(`browser.storage.local.get(null).then((all) => Object.keys(all).filter((k) => k.startsWith('outbox:')))`);
/** Writes an entry into storage.local from an extension page (what a content script can do too). */
const put = (key: string, entry: unknown) => ext.bg(`browser.storage.local.set({ ${JSON.stringify(key)}: ${JSON.stringify(entry)} }).then(() => true)`);

describe('capture outbox (Firefox: storage.local)', () => {
  it('files a page that was left while the background page was suspended', async () => {
    const tab = await ext.browser.newPage();
    const url = server.url('/o/quillwort.html');
    await tab.goto(url, { waitUntil: 'load' });
    await until(() => ext.bg<number>(`debug.hellosFor(${JSON.stringify(url)})`), 'the hello was recorded', 5000, 20);
    // Watch the hand-over from an extension page (the control tab, which outlives the suspension).
    await ext.bg(`(globalThis.__handedOver = [], browser.storage.onChanged.addListener((changes, area) => {
      for (const [k, c] of Object.entries(changes)) if (k.startsWith('outbox:') && c.newValue) globalThis.__handedOver.push(area);
    }), true)`);
    await ext.suspendBackground();
    expect(await ext.backgroundState()).toBe('stopped');
    // Leaving now, before the regular capture: it is written to storage.local, whose change wakes the
    // background page.
    await tab.goto('about:blank');
    await until(async () => (await ext.backgroundState()) === 'running', 'the storage change woke the background page', 10_000);
    await until(async () => (await urlsFor('quillwort')).length > 0, 'the left page is searchable');
    expect(await urlsFor('quillwort')).toEqual([url]);
    // Through storage.local: Firefox's content scripts have no storage.session. Once, or (clean-clone CI,
    // 2026-12-07, the machine loaded) more than once: the capture done in one go as the page went away and
    // the regular one, in flight while the background was stopped, handed over as well.
    const handed = await ext.bg<string[]>('globalThis.__handedOver');
    expect(handed.length).toBeGreaterThanOrEqual(1);
    expect(new Set(handed)).toEqual(new Set(['local']));
    expect((await ext.bg<{ filed: number }>('debug.outboxTotals')).filed).toBeGreaterThanOrEqual(1);
    expect(await pendingKeys()).toEqual([]);
    // Its extraction is the one done in one go as the page went away ('body'), or, on a machine slow
    // enough that the regular capture began before the page was left, that capture, handed to the outbox
    // while it waited for the stopped background ('body', 'merged' or 'readability').
    const log = await ext.bg<{ url: string; extraction?: { method: string } }[]>('engine.captureLog');
    const methods = log.filter((l) => l.url === url).map((l) => l.extraction?.method);
    expect(methods.length).toBeGreaterThanOrEqual(1);
    for (const m of methods) expect(m).toMatch(/^(body|merged|readability)$/);
    // However often it was handed over, the one page view is one page and one visit (its capture id).
    const pages = await ext.bg<{ url: string; visitCount: number }[]>(`engine.db().then((db) => db.getAll('pages')).then((all) => all.map((p) => ({ url: p.url, visitCount: p.visitCount })))`);
    expect(pages.filter((p) => p.url === url)).toEqual([{ url, visitCount: 1 }]);
    await tab.close();
  });

  it('refuses an entry whose nonce no page registered', async () => {
    const before = await ext.bg<{ refused: number }>('debug.outboxTotals');
    await put('outbox:forged1', { nonce: 'f'.repeat(32), url: server.url('/o/forged.html'), at: Date.now() - 61_000, payload: payload('forgedword') });
    await until(async () => (await ext.bg<{ refused: number }>('debug.outboxTotals')).refused > before.refused, 'the forged entry was refused');
    expect(await urlsFor('forgedword')).toEqual([]);
    expect(await pendingKeys()).toEqual([]);
  });

  it('files an entry under the page its nonce was registered by, never under another origin it claims', async () => {
    const own = server.url('/o/ticketed.html');
    const nonce = 'a1'.repeat(16);
    await ext.bg(`debug.registerHello(${JSON.stringify(nonce)}, ${JSON.stringify(own)}).then(() => true)`);
    await put('outbox:ticketed1', { nonce, url: own.replace('127.0.0.1', 'localhost'), at: Date.now(), payload: payload('ticketword') });
    await until(async () => (await urlsFor('ticketword')).length > 0, 'the entry was filed');
    expect(await urlsFor('ticketword')).toEqual([own]);
  });

  it('keeps an entry whose hello has not arrived yet, and files it once it does', async () => {
    const nonce = 'b2'.repeat(16);
    const url = server.url('/o/late.html');
    await put('outbox:late1', { nonce, url, at: Date.now(), payload: payload('lateword') });
    await new Promise((r) => setTimeout(r, 500));
    expect(await pendingKeys()).toEqual(['outbox:late1']);
    await ext.bg(`debug.registerHello(${JSON.stringify(nonce)}, ${JSON.stringify(url)}).then(() => true)`);
    await until(async () => (await urlsFor('lateword')).length > 0, 'the late entry was filed');
    expect(await urlsFor('lateword')).toEqual([url]);
    expect(await pendingKeys()).toEqual([]);
  });

  it('logged no console errors from Reread beyond the allowed ones', async () => {
    expect(await ext.consoleProblems()).toEqual([]);
  });
});
