/**
 * Nothing lost in Firefox: the background page is suspended (as Firefox does when it idles:
 * DebugUtils.terminateBackgroundScript) at random moments while 200 pages are being captured by their
 * content scripts and embedded. Afterwards every page is searchable exactly once (save at most three
 * whose hello died with a suspended background, see below), no chunk is
 * duplicated or orphaned, every chunk has one vector, each page counts one visit, and the integrity
 * check passes.
 *
 * The same corpus and schedule as the Chromium test (tests/e2e/reliability.test.ts). Pages left while
 * the background is suspended reach it through the outbox in storage.local (src/outbox.ts).
 *
 * RELIABILITY_PAGES and RELIABILITY_SUSPEND_EVERY (ms; a suspension every 1-2 times that) change the
 * load. Session 42 tried 120 pages and a suspension every 1-2.5 s (RELIABILITY_PAGES=120
 * RELIABILITY_SUSPEND_EVERY=1000, to halve the test's time): alone 5 runs of 5 passed, beside other load
 * (Chromium's reliability test, or two or three busy processes) 3 runs of 18 lost pages. In one, r/105
 * and r/111, each left 300 ms after it loaded, had their captures in the outbox and no hello recorded
 * (the hello died with a suspended background; such an entry is refused by design, as in Chromium's
 * test, which allows a few); in another r/117.html had its hello recorded and neither a stored page nor
 * an outbox entry; the third was not detailed. The likely path of r/117: its capture's ten sends all
 * failed, and the capture read again as the tab closed never reached the outbox. A capture whose sends
 * give up now goes to the outbox at once (content/main.ts; tests/e2e/outbox.test.ts). Kept at 200 pages
 * every 2-4 s; there too a clean-clone run once lost a page without its hello (allowed below, as in
 * Chromium's test).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchFirefox, serve, until, type FirefoxExtension, type FixtureServer } from './harness.js';
import { prng, reliabilityPage } from '../shared/corpus.js';

const PAGES = Number(process.env.RELIABILITY_PAGES ?? 200);
/** A suspension every EVERY to 2 × EVERY ms. */
const EVERY = Number(process.env.RELIABILITY_SUSPEND_EVERY ?? 2000);
const TABS = 4;
/** RELIABILITY_SUSPEND=0 measures the same run without suspensions (the test then fails on the count). */
const SUSPEND = process.env.RELIABILITY_SUSPEND !== '0';

let ext: FirefoxExtension;
let server: FixtureServer;

beforeAll(async () => {
  server = await serve({});
  for (let i = 0; i < PAGES; i++) server.routes.set(`/r/${i}.html`, reliabilityPage(i));
  ext = await launchFirefox();
});
afterAll(async () => {
  await ext?.close();
  await server?.close();
});

describe('reliability (Firefox)', () => {
  it('loses nothing when the background page is suspended 20+ times during capture and embedding', async () => {
    const started = Date.now();
    const random = prng(20261129);
    let browsing = true;
    let stops = 0;
    // When each suspension ran and when each page was open (ms): a page lost without its hello must have
    // had a suspension during its visit (below).
    const suspensions: [number, number][] = [];
    const visits = new Map<number, [number, number]>();
    const killer = (async () => {
      for (let round = 0; (browsing || (SUSPEND && stops < 20)) && round < 200; round++) {
        await new Promise((r) => setTimeout(r, EVERY + random() * EVERY));
        // Once browsing is over nothing wakes the background by itself: wake it (it resumes the backlog).
        if (!browsing) await ext.bg('engine.stats()');
        if (SUSPEND && (await ext.backgroundState()) === 'running') {
          const from = Date.now();
          await ext.suspendBackground();
          suspensions.push([from, Date.now()]);
          stops++;
        }
      }
    })();
    const tabs = await Promise.all(Array.from({ length: TABS }, () => ext.browser.newPage()));
    await Promise.all(
      tabs.map(async (tab, t) => {
        for (let i = t; i < PAGES; i += TABS) {
          const openedAt = Date.now();
          await tab.goto(server.url(`/r/${i}.html`), { waitUntil: 'load' });
          // Some pages stay past the one-second capture, others are left early (captured on pagehide).
          await new Promise((r) => setTimeout(r, i % 3 === 0 ? 300 : 1200));
          visits.set(i, [openedAt, Date.now()]);
        }
      }),
    );
    await new Promise((r) => setTimeout(r, 4000));
    browsing = false;
    await killer;
    await Promise.all(tabs.map((t) => t.close()));
    if (SUSPEND) expect(stops).toBeGreaterThanOrEqual(20);

    let last = { pages: 0, pendingEmbeddings: -1 };
    await until(async () => {
      last = await ext.bg<{ pages: number; pendingEmbeddings: number }>('engine.stats()');
      return last.pendingEmbeddings === 0;
    }, 'the embedding backlog drained', 120_000, 1000);
    // Captures handed over as their pages were left are filed by the background as it drains the outbox,
    // which on a loaded machine can end after the embedding backlog: wait for it (entries whose page
    // never got its hello recorded stay until refused; they are reported below as lost).
    await until(
      async () => ext.bg<boolean>(`(async () => {
        const pending = Object.entries({ ...(await browser.storage.local.get(null)), ...(await browser.storage.session.get(null)) }).filter(([k]) => k.startsWith('outbox:'));
        for (const [, v] of pending) if ((await debug.hellosFor(v.url)) > 0) return false;
        return true;
      })()`),
      'the outbox drained',
      120_000,
      1000,
    ).catch(() => undefined);
    await until(async () => (await ext.bg<{ pendingEmbeddings: number }>('engine.stats()')).pendingEmbeddings === 0, 'the embedding backlog drained again', 120_000, 1000);
    const prefix = JSON.stringify(server.url('/r/'));
    const missing = await ext.bg<number[]>(`engine.pages.all().then((m) => Array.from({ length: ${PAGES} }, (_, i) => i).filter((i) => !m.has(${prefix} + i + '.html')))`);
    // On failure, say where each lost page got to: its hello recorded? its capture still in an outbox?
    const whereabouts = missing.length
      ? await ext.bg<string[]>(`(async () => {
          const pending = { ...(await browser.storage.local.get(null)), ...(await browser.storage.session.get(null)) };
          return Promise.all(${JSON.stringify(missing.map((i) => server.url(`/r/${i}.html`)))}.map(async (u) => {
            const entries = Object.entries(pending).filter(([k, v]) => k.startsWith('outbox:') && v.url === u).length;
            return u.split('/').pop() + ': hellos ' + (await debug.hellosFor(u)) + ', pending entries ' + entries;
          }));
        })()`)
      : [];
    const totals = await ext.bg<unknown>('debug.outboxTotals');
    console.log(`reliability (Firefox): ${stops} background suspensions while ${PAGES} pages were captured and embedded; ${missing.length} lost; outbox since last start ${JSON.stringify(totals)}; ${((Date.now() - started) / 1000).toFixed(0)} s`);
    // And what the content scripts said of their captures (a send given up, the outbox refused).
    const said = missing.length ? (await ext.consoleEntries()).filter((e) => /reread: (capture failed|outbox refused)/.test(e.message)).map((e) => `${e.level} ${e.source}: ${e.message}`) : [];
    // A page left a few hundred ms after it loaded, while the background was being suspended, can lose its
    // hello (sent at document_start, it dies with the background): its capture, handed to the outbox, then
    // cannot be told from one a compromised page forged, and is refused by design (src/outbox.ts). Chromium
    // vouches for such an entry by the navigation the browser reported; Firefox's build does not ask for
    // webNavigation (an install warning there), so nothing does. Such a page is said, and allowed only when
    // a suspension ran while it was open (its leaving included: up to a second after), and at most 3 of
    // 200 (as in tests/e2e/reliability.test.ts); seen in a clean-clone run of 2026-12-08 (r/132.html, 300 ms
    // on screen, 27 suspensions). A page lost with its hello recorded is a bug.
    const helloless = missing.filter((_, k) => / hellos 0, pending entries [01]$/.test(whereabouts[k]!));
    const suspendedDuring = (i: number) => {
      const v = visits.get(i);
      return !!v && suspensions.some(([from, to]) => from <= v[1] + 1000 && to >= v[0]);
    };
    if (helloless.length) console.log(`reliability (Firefox): lost without a hello: ${helloless.map((i) => `r/${i}.html${suspendedDuring(i) ? ' (a suspension ran during its visit)' : ' (NO suspension during its visit)'}`).join(', ')}`);
    const lostMessage = `pages lost (${last.pages} stored): ${whereabouts.join('; ')}; content scripts said: ${said.join(' | ') || 'nothing'}`;
    expect(missing.filter((i) => !helloless.includes(i) || !suspendedDuring(i)), lostMessage).toEqual([]);
    expect(helloless.length, lostMessage).toBeLessThanOrEqual(3);
    const kept = Array.from({ length: PAGES }, (_, i) => i).filter((i) => !missing.includes(i));

    const found = await ext.bg<{ i: number; urls: string[] }[]>(`(async () => {
      const out = [];
      for (const i of ${JSON.stringify(kept)}) {
        const res = await engine.search({ q: 'relword' + i + 'x', limit: 10 });
        out.push({ i, urls: res.results.map((r) => r.url) });
      }
      return out;
    })()`, 60_000);
    for (const { i, urls } of found) expect(urls, `page ${i}`).toEqual([server.url(`/r/${i}.html`)]);

    // Each page was loaded once: one visit, however often its capture was sent again to a background
    // woken from suspension or handed to the outbox while in flight (CapturePayload.capture).
    const counted = await ext.bg<[string, number][]>('engine.pages.all().then((m) => [...m.values()].filter((p) => p.visitCount !== 1).map((p) => [p.url, p.visitCount]))');
    expect(counted, 'pages counted as more than one visit').toEqual([]);

    const report = await ext.bg<{ ok: boolean; problems: string[]; checked: { chunks: number; vectors: number } }>('debug.verifyIndex(engine, false)', 60_000);
    expect(report.problems).toEqual([]);
    const perPage = await ext.bg<number[]>('engine.pages.all().then((m) => [...m.values()].map((p) => p.chunkIds.length))');
    expect(perPage.length).toBe(kept.length);
    expect(new Set(perPage).size).toBe(1);
    expect(report.checked.chunks).toBe(kept.length * perPage[0]!);
    expect(report.checked.vectors).toBe(report.checked.chunks);
  }, 600_000);

  it('logged no console errors from Reread beyond the allowed ones', async () => {
    expect(await ext.consoleProblems()).toEqual([]);
  });
});
