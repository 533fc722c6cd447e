/**
 * Incognito tabs are never captured, in the real browser. The extension is allowed in incognito the
 * way a user allows it (the `incognito` flag of its entry in the profile's Preferences, written between
 * two launches of the same profile), so its content scripts are injected into incognito tabs: they must
 * stop at once (browser.extension.inIncognitoContext), and the router refuses incognito senders.
 *
 * Positive controls: the worker reports incognito access allowed; the content scripts' isolated world
 * ("Reread") is created in the incognito tab; the same page in a normal tab is captured.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, serve, until, type Extension, type FixtureServer } from './harness.js';

let ext: Extension;
let server: FixtureServer;
let profile: string;

const page = (word: string) =>
  `<!doctype html><html lang="en"><head><title>Private ${word}</title></head><body><article><h1>Private ${word}</h1><p>A page about ${word} read in a private window, with enough ordinary words to be worth keeping.</p><p>More words about ${word} so the page would not be skipped as too short by the capture rules.</p></article></body></html>`;

beforeAll(async () => {
  server = await serve({});
  for (const w of ['hushwort', 'openwort']) server.routes.set(`/i/${w}.html`, page(w));
  profile = mkdtempSync(join(tmpdir(), 'reread-incognito-'));
  // First launch creates the extension's entry in Preferences; the user's "Allow in Incognito" is then
  // set on it, and the profile launched again.
  const first = await launch({ profile });
  const id = first.extId;
  await first.close({ keepProfile: true });
  const prefsPath = join(profile, 'Default', 'Preferences');
  const prefs = JSON.parse(readFileSync(prefsPath, 'utf8')) as { extensions: { settings: Record<string, Record<string, unknown>> } };
  expect(prefs.extensions.settings[id]).toBeDefined();
  prefs.extensions.settings[id]!.incognito = true;
  writeFileSync(prefsPath, JSON.stringify(prefs));
  ext = await launch({ profile });
  expect(ext.extId).toBe(id);
});
afterAll(async () => {
  await ext?.close();
  await server?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

const urlsFor = (q: string) => ext.evalSw<string[]>(`engine.search({ q: ${JSON.stringify(q)} }).then((r) => r.results.map((x) => x.url))`);
const hellos = (url: string) => ext.evalSw<number>(`globalThis.rereadDebug.hellosFor(${JSON.stringify(url)})`);
const navigations = (url: string) => ext.evalSw<number>(`globalThis.rereadDebug.sightingsFor(${JSON.stringify(url)})`);
const capturesOf = (url: string) => ext.evalSw<number>(`engine.captureLog.filter((l) => l.url === ${JSON.stringify(url)}).length`);

describe('incognito', () => {
  it('the extension is allowed in incognito', async () => {
    expect(await ext.evalSw<boolean>('chrome.extension.isAllowedIncognitoAccess()')).toBe(true);
  });

  it('a page read in an incognito window is never captured, though the content scripts are injected there', async () => {
    const url = server.url('/i/hushwort.html');
    const cdp = await ext.ctx.browser()!.newBrowserCDPSession();
    // A real incognito window, opened the way the extension API opens one.
    const win = await ext.evalSw<{ id: number; incognito: boolean }>(`chrome.windows.create({ incognito: true, url: ${JSON.stringify(url)} }).then((w) => ({ id: w.id, incognito: w.incognito }))`);
    expect(win.incognito).toBe(true);
    const tab = await until(
      () => ext.evalSw<{ id: number; incognito: boolean; status: string } | null>(`chrome.tabs.query({ windowId: ${win.id} }).then((t) => t[0] && t[0].status === 'complete' ? { id: t[0].id, incognito: t[0].incognito, status: t[0].status } : null)`),
      'the incognito tab to load',
    );
    expect(tab.incognito).toBe(true);

    // The content scripts' isolated world exists in that tab: they were injected, and stopped themselves.
    // (The extension has no "tabs" permission, so the tab's URL is read from the browser's targets.)
    const { targetInfos } = (await cdp.send('Target.getTargets')) as { targetInfos: { targetId: string; type: string; url: string }[] };
    const target = targetInfos.find((t) => t.type === 'page' && t.url === url);
    expect(target).toBeDefined();
    expect(server.requests).toContain('/i/hushwort.html');
    const { sessionId } = (await cdp.send('Target.attachToTarget', { targetId: target!.targetId, flatten: false })) as { sessionId: string };
    const worlds: string[] = [];
    cdp.on('Target.receivedMessageFromTarget', (ev: { sessionId: string; message: string }) => {
      if (ev.sessionId !== sessionId) return;
      const msg = JSON.parse(ev.message) as { method?: string; params?: { context: { name: string; auxData?: { type?: string } } } };
      if (msg.method === 'Runtime.executionContextCreated' && msg.params?.context.auxData?.type === 'isolated') worlds.push(msg.params.context.name);
    });
    await cdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id: 1, method: 'Runtime.enable' }) });
    await until(async () => worlds.includes('Reread'), 'the content scripts\' world in the incognito tab', 5000);
    await cdp.detach().catch(() => undefined);

    // Well past the time a normal page takes to be captured (600 ms after load).
    await new Promise((r) => setTimeout(r, 3000));
    expect(await hellos(url)).toBe(0);
    expect(await navigations(url)).toBe(0);
    expect(await capturesOf(url)).toBe(0);
    expect(await urlsFor('hushwort')).toEqual([]);
    expect(await ext.evalSw<boolean>(`engine.pages.all().then((t) => t.has(${JSON.stringify(url)}))`)).toBe(false);
    await ext.evalSw(`chrome.windows.remove(${win.id})`);
  });

  it('the same kind of page in a normal tab is captured (control)', async () => {
    const url = server.url('/i/openwort.html');
    const tab = await ext.ctx.newPage();
    await tab.goto(url, { waitUntil: 'load' });
    await until(async () => (await urlsFor('openwort')).length > 0, 'the normal page is searchable');
    expect(await urlsFor('openwort')).toEqual([url]);
    expect(await hellos(url)).toBeGreaterThan(0);
    expect(await navigations(url)).toBeGreaterThan(0);
    await tab.close();
  });
});
