/**
 * Nothing leaves the machine, in Firefox: while pages are browsed, captured and embedded, and the
 * results page, popup, omnibox and options are used, the add-on starts no network request.
 *
 * Two independent witnesses:
 * - Firefox's own record: an observer of every HTTP(S) channel the browser opens (in the parent
 *   process, where all of them pass, content processes and the background page included), installed
 *   before the add-on, noting who triggered each one (the principal: a web page, the browser itself, or
 *   an add-on with its id).
 * - A recording proxy (tests/shared/proxy.ts) that all traffic goes through, loopback included: it
 *   forwards only 127.0.0.1 and refuses anything else.
 * Positive control: a request made on purpose from an extension page is seen by both and attributed
 * to the add-on, so an extension request could not pass unnoticed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineStats, launchFirefox, searchPage, serve, until, visit, type FirefoxExtension, type FixtureServer } from './harness.js';
import { startRecordingProxy, type RecordingProxy } from '../shared/proxy.js';

let ext: FirefoxExtension;
let server: FixtureServer;
let proxy: RecordingProxy;

interface ChannelRecord {
  url: string;
  /** 'system' for the browser itself, else the triggering principal's origin. */
  triggering: string;
  addonId: string;
}

const CONTROL_PATH = '/extension-control-request';

beforeAll(async () => {
  server = await serve();
  proxy = await startRecordingProxy();
  ext = await launchFirefox({
    prefs: {
      'network.proxy.type': 1,
      'network.proxy.http': '127.0.0.1',
      'network.proxy.http_port': proxy.port,
      'network.proxy.ssl': '127.0.0.1',
      'network.proxy.ssl_port': proxy.port,
      'network.proxy.no_proxies_on': '',
      'network.proxy.allow_hijacking_localhost': true,
    },
    beforeInstall: (chrome) =>
      chrome(`(() => {
        const log = (window.__rereadChannels = []);
        const principal = (p) => (!p ? '' : p.isSystemPrincipal ? 'system' : p.origin);
        window.__rereadObserver = {
          observe(subject) {
            const ch = subject.QueryInterface(Ci.nsIHttpChannel);
            const li = ch.loadInfo;
            log.push({
              url: ch.URI.spec,
              triggering: principal(li && li.triggeringPrincipal),
              addonId: (li && ((li.triggeringPrincipal && li.triggeringPrincipal.addonId) || (li.loadingPrincipal && li.loadingPrincipal.addonId))) || '',
            });
          },
        };
        Services.obs.addObserver(window.__rereadObserver, 'http-on-opening-request');
        return true;
      })()`),
  });
});
afterAll(async () => {
  await ext?.close();
  await server?.close();
  await proxy?.close();
});

const channels = () => ext.chrome<ChannelRecord[]>('window.__rereadChannels');
const fromAddon = (c: ChannelRecord) => c.addonId === ext.id || c.triggering.startsWith(`moz-extension://${ext.uuid}`);

describe('privacy (Firefox)', () => {
  it('starts no request while pages are browsed, captured, embedded and searched on every surface', async () => {
    await visit(ext, [server.url('/cats.html'), server.url('/git-undo.html'), server.url('/bread.html')]);
    await until(async () => {
      const s = await engineStats(ext);
      return s.pages === 3 && s.pendingEmbeddings === 0;
    }, 'pages stored and embedded', 60_000);
    expect((await searchPage(ext, { q: 'zephyrine' }))[0]?.href).toBe(server.url('/cats.html') + '#litter');
    expect((await searchPage(ext, { q: 'cake pastry' }))[0]?.lanes).toEqual(['dense']);
    const popup = await ext.openExtensionPage('popup.html');
    await popup.type('[data-testid="search-input"]', 'litter box', { delay: 10 });
    await popup.waitForSelector('[data-testid="result"]');
    await popup.close();
    await ext.chrome(`new Promise((resolve) => ChromeUtils.importESModule('resource://gre/modules/ExtensionSearchHandler.sys.mjs').ExtensionSearchHandler.handleSearch({ keyword: 'rr', text: 'rr sourdough', inPrivateWindow: false }, (s) => resolve(s.length)))`);
    const options = await ext.openExtensionPage('options.html');
    await options.waitForSelector('[data-testid="stat-pages"]');
    await new Promise((r) => setTimeout(r, 1500));
    await options.close();

    const seen = await channels();
    const mine = seen.filter(fromAddon);
    expect(mine, JSON.stringify(mine)).toEqual([]);
    // Every page load the test made was seen by the observer, triggered by the browser (the test drives it).
    for (const path of ['/cats.html', '/git-undo.html', '/bread.html']) expect(seen.some((c) => c.url === server.url(path))).toBe(true);

    // The proxy forwarded only the fixture server, and only the pages (and Firefox's favicon lookups).
    const fixtureHost = new URL(server.origin).host;
    const forwarded = proxy.records.filter((r) => r.forwarded);
    expect(forwarded.every((r) => r.target === fixtureHost), JSON.stringify(forwarded)).toBe(true);
    expect(server.requests.filter((p) => !['/bread.html', '/cats.html', '/git-undo.html', '/favicon.ico'].includes(p))).toEqual([]);
    // Whatever else reached the proxy (refused) came from the browser itself, not from the add-on.
    const refused = proxy.records.filter((r) => !r.forwarded);
    for (const r of refused) {
      const host = r.target.replace(/:\d+$/, '');
      const who = seen.filter((c) => new URL(c.url).hostname === host);
      expect(who.length, `${r.url}: no channel seen for it`).toBeGreaterThan(0);
      expect(who.every((c) => c.triggering === 'system' && !c.addonId), `${r.url} ${JSON.stringify(who)}`).toBe(true);
    }
    console.log(`privacy (Firefox): ${seen.length} channels seen, 0 from the add-on; proxy: ${forwarded.length} forwarded (fixture pages), ${refused.length} refused (${[...new Set(refused.map((r) => r.target))].join(', ') || 'none'}, all the browser's own)`);
  });

  it('would see a request from the add-on (positive control)', async () => {
    const before = proxy.records.length;
    await ext.bg(`fetch(${JSON.stringify(server.url(CONTROL_PATH))}).then((r) => r.status)`);
    const hits = (await channels()).filter((c) => c.url === server.url(CONTROL_PATH));
    expect(hits.length).toBe(1);
    expect(fromAddon(hits[0]!)).toBe(true);
    expect(proxy.records.slice(before).some((r) => r.url === server.url(CONTROL_PATH))).toBe(true);
  });

  it('logged no console errors from Reread beyond the allowed ones', async () => {
    expect(await ext.consoleProblems()).toEqual([]);
  });
});
