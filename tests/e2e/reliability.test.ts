/**
 * Nothing lost: the service worker is stopped (as Chrome does when it idles) at random moments while
 * 200 pages are being captured by their content scripts and embedded. Afterwards every page is
 * searchable exactly once, no chunk is duplicated or orphaned, every chunk has one vector, and the
 * integrity check passes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, serve, until, type Extension, type FixtureServer } from './harness.js';
import { prng, reliabilityPage } from '../shared/corpus.js';

const PAGES = 200;
const TABS = 4;

let ext: Extension;
let server: FixtureServer;

beforeAll(async () => {
  server = await serve({});
  for (let i = 0; i < PAGES; i++) server.routes.set(`/r/${i}.html`, reliabilityPage(i));
  ext = await launch();
});
afterAll(async () => {
  await ext?.close();
  await server?.close();
});

describe('reliability', () => {
  it('loses nothing when the worker is stopped 20+ times during capture and embedding', async () => {
    const random = prng(20261129);
    let browsing = true;
    let stops = 0;
    const killer = (async () => {
      // Stop at random moments while browsing, and go on (during the embedding backlog) until 20.
      for (let round = 0; (browsing || stops < 20) && round < 200; round++) {
        await new Promise((r) => setTimeout(r, 2000 + random() * 2000));
        // Once browsing is over nothing wakes the worker by itself: wake it (it resumes the backlog).
        if (!browsing) await ext.evalSw('engine.stats()');
        stops += await ext.stopWorker();
      }
    })();
    const tabs = await Promise.all(Array.from({ length: TABS }, () => ext.ctx.newPage()));

    await Promise.all(
      tabs.map(async (tab, t) => {
        for (let i = t; i < PAGES; i += TABS) {
          await tab.goto(server.url(`/r/${i}.html`), { waitUntil: 'load' });
          // Some pages stay past the one-second capture, others are left early (captured on pagehide).
          await tab.waitForTimeout(i % 3 === 0 ? 300 : 1200);
        }
      }),
    );
    // Keep stopping the worker while the embedding backlog drains.
    await new Promise((r) => setTimeout(r, 4000));
    browsing = false;
    await killer;
    await Promise.all(tabs.map((t) => t.close()));
    expect(stops).toBeGreaterThanOrEqual(20);
    console.log(`reliability: ${stops} worker stops while ${PAGES} pages were captured and embedded`);

    let last = { pages: 0, pendingEmbeddings: -1 };
    await until(async () => {
      last = await ext.evalSw<{ pages: number; pendingEmbeddings: number }>('engine.stats()');
      return last.pendingEmbeddings === 0;
    }, 'the embedding backlog drained', 120_000, 1000);
    // Captures handed over as their pages were left are filed by the background as it drains the outbox,
    // which on a loaded machine can end after the embedding backlog: wait for it (entries whose page
    // never got its hello recorded stay until refused; they are reported below as lost).
    await until(
      async () => ext.evalSw<boolean>(`(async () => {
        const pending = Object.entries({ ...(await chrome.storage.local.get(null)), ...(await chrome.storage.session.get(null)) }).filter(([k]) => k.startsWith('outbox:'));
        for (const [, v] of pending) if ((await globalThis.rereadDebug.hellosFor(v.url)) > 0) return false;
        return true;
      })()`),
      'the outbox drained',
      120_000,
      1000,
    ).catch(() => undefined);
    await until(async () => (await ext.evalSw<{ pendingEmbeddings: number }>('engine.stats()')).pendingEmbeddings === 0, 'the embedding backlog drained again', 120_000, 1000);
    const missing = await ext.evalSw<number[]>(`engine.pages.all().then((m) => Array.from({ length: ${PAGES} }, (_, i) => i).filter((i) => !m.has(${JSON.stringify(server.url('/r/'))} + i + '.html')))`);
    // On failure, say where each lost page got to: its hello recorded? its capture still in the outbox?
    const whereabouts = missing.length
      ? await ext.evalSw<string[]>(`(async () => {
          const pending = await chrome.storage.session.get(null);
          return Promise.all(${JSON.stringify(missing.map((i) => server.url(`/r/${i}.html`)))}.map(async (u) => {
            const entries = Object.entries(pending).filter(([k, v]) => k.startsWith('outbox:') && v.url === u).length;
            return u.split('/').pop() + ': hellos ' + (await globalThis.rereadDebug.hellosFor(u)) + ', pending entries ' + entries;
          }));
        })()`)
      : [];
    const totals = await ext.evalSw<unknown>('globalThis.rereadDebug.outboxTotals');
    expect(missing, `pages lost (${last.pages} stored): ${whereabouts.join('; ')}; outbox since last start ${JSON.stringify(totals)}`).toEqual([]);

    const found = await ext.evalSw<{ i: number; urls: string[] }[]>(`(async () => {
      const out = [];
      for (let i = 0; i < ${PAGES}; i++) {
        const res = await engine.search({ q: 'relword' + i + 'x', limit: 10 });
        out.push({ i, urls: res.results.map((r) => r.url) });
      }
      return out;
    })()`);
    for (const { i, urls } of found) expect(urls, `page ${i}`).toEqual([server.url(`/r/${i}.html`)]);

    const report = await ext.evalSw<{ ok: boolean; problems: string[]; checked: { chunks: number; vectors: number } }>('globalThis.rereadDebug.verifyIndex(engine, false)');
    expect(report.problems).toEqual([]);
    // Every page was stored once, with the same sections as any other (no duplicates, no partial pages).
    const perPage = await ext.evalSw<number[]>('engine.pages.all().then((m) => [...m.values()].map((p) => p.chunkIds.length))');
    expect(perPage.length).toBe(PAGES);
    expect(new Set(perPage).size).toBe(1);
    expect(report.checked.chunks).toBe(PAGES * perPage[0]!);
    expect(report.checked.vectors).toBe(report.checked.chunks);
  }, 600_000);
});
