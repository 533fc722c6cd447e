/**
 * Day one (#14) in storage: the history import (title-only entries, resumable, never twice, excluded and
 * non-web URLs left out), what search sees of them (title and URL words, kind, site and date filters),
 * a real visit replacing an entry, the backfill's write path (same chunker, keeps the visit), and that
 * forgetting, export/import and verifyIndex cover them.
 */
import { describe, expect, it } from 'vitest';
import { cutSections } from '../../src/sections.js';
import { engineOn, fakeHistory, freshDb, heldHistory, type Item } from './helpers.js';
import { HISTORY_STATE_KEY, HistoryImport, type HistorySource } from '../../background/dayone/historyImport.js';
import { Backfill } from '../../background/dayone/backfill.js';
import type { PageReader, ReadHtmlResult } from '../../background/reader/readerProtocol.js';
import { exportJsonl, importJsonl } from './transferText.js';
import { verifyIndex } from '../../background/verify.js';
import type { Engine } from '../../background/engine.js';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 30, 12);

function history(n: number): Item[] {
  const out: Item[] = [];
  for (let i = 0; i < n; i++) out.push({ url: `https://site${i % 40}.example/docs/page-${i}.html?utm_source=x`, title: `Entry ${i} about topic${i % 97}`, lastVisitTime: NOW - Math.floor(i / 3) * 60_000, visitCount: 1 + (i % 5) });
  return out;
}

async function titlePages(engine: Engine) {
  return [...(await engine.pages.all()).values()].filter((p) => p.kind === 'title');
}

describe('stored deflate blocks', () => {
  it('are read back by the ordinary text reader, short and over one block long', async () => {
    const { storedDeflate } = await import('../../background/pageStore.js');
    const { inflate } = await import('../../background/deflate.js');
    for (const texts of [['example.org › docs › Café'], ['x'.repeat(70_000) + 'é', 'second']]) {
      const json = JSON.stringify(texts);
      expect(await inflate(storedDeflate(new TextEncoder().encode(json)))).toBe(json);
    }
  });
});

describe('history import', () => {
  it('imports title-only entries searchable by title and URL words, leaving out excluded sites and non-web URLs', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    await engine.updateSettings({ excludedSites: ['secret.example'] });
    const items: Item[] = [
      { url: 'https://docs.example/library/asyncio-task.html', title: 'Coroutines and Tasks', lastVisitTime: NOW - DAY, visitCount: 3 },
      { url: 'https://blog.example/2024/quillwort-gardening', title: 'A garden diary', lastVisitTime: NOW - 2 * DAY, visitCount: 1 },
      { url: 'https://mail.secret.example/inbox', title: 'Inbox (3)', lastVisitTime: NOW - DAY, visitCount: 9 },
      { url: 'file:///home/me/notes.txt', title: 'notes', lastVisitTime: NOW - DAY, visitCount: 1 },
      { url: 'chrome://settings/', title: 'Settings', lastVisitTime: NOW - DAY, visitCount: 1 },
      { url: 'https://old.example/ancient', title: 'Too old for 90 days', lastVisitTime: NOW - 200 * DAY, visitCount: 1 },
    ];
    const imp = new HistoryImport(engine, () => fakeHistory(items), () => NOW);
    await imp.start(90);
    await imp.whenIdle();
    const st = await imp.status();
    expect(st.state).toBe('done');
    expect(st.imported).toBe(2);
    expect((await titlePages(engine)).map((p) => p.url).sort()).toEqual(['https://blog.example/2024/quillwort-gardening', 'https://docs.example/library/asyncio-task.html']);
    // By title words, and by URL words.
    const byTitle = await engine.search({ q: 'coroutines' });
    expect(byTitle.results.map((r) => [r.url, r.kind, r.lastVisit])).toEqual([['https://docs.example/library/asyncio-task.html', 'title', NOW - DAY]]);
    expect((await engine.search({ q: 'quillwort' })).results.map((r) => r.url)).toEqual(['https://blog.example/2024/quillwort-gardening']);
    expect((await engine.search({ q: 'asyncio' })).results).toHaveLength(1);
    // Site and date filters apply to them like to every page.
    expect((await engine.search({ q: 'garden diary site:docs.example' })).results).toHaveLength(0);
    expect((await engine.search({ q: 'garden diary', before: new Date(NOW - 1.5 * DAY).toISOString().slice(0, 10) })).results).toHaveLength(1);
    expect((await engine.search({ q: 'garden diary', after: new Date(NOW - DAY).toISOString().slice(0, 10) })).results).toHaveLength(0);
    expect(await engine.search({ q: 'inbox' }).then((r) => r.results)).toHaveLength(0);
    expect((await verifyIndex(engine)).problems).toEqual([]);
  });

  it('survives worker stops: 3,000 entries, the importer killed at every window and once rewound, each entry imported once', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    const items = history(3000);
    const expected = new Set(items.map((i) => i.url.replace('?utm_source=x', '')));
    /** A history source that hangs for good at its `dieAt`-th call: the worker stopped there. */
    const dying = (dieAt: number): HistorySource => {
      const inner = fakeHistory(items);
      let calls = 0;
      return { search: (q) => (++calls >= dieAt ? new Promise(() => undefined) : inner.search(q)) };
    };
    const first = new HistoryImport(engine, () => dying(2), () => NOW);
    await first.start(0);
    const progressed = async (before: number) => {
      for (let i = 0; i < 2000; i++) {
        const s = (await db.get('meta', 'historyImport')) as { seen: number };
        if (s.seen > before) return s.seen;
        await new Promise((r) => setTimeout(r, 10));
      }
      throw new Error('no progress');
    };
    let seen = await progressed(0);
    // Stopped after the first window was stored but before its cursor was saved: the cursor rewinds.
    const rewound = (await db.get('meta', 'historyImport')) as { cursor: number; seen: number };
    await db.put('meta', { ...rewound, cursor: NOW + 1 }, 'historyImport');
    let stops = 1;
    for (; stops < 10; stops++) {
      const s = (await db.get('meta', 'historyImport')) as { state: string };
      if (s.state !== 'running') break;
      // A new worker: resumes from the saved cursor, and is stopped in its turn.
      void new HistoryImport(engine, () => dying(2), () => NOW).resume();
      seen = await progressed(seen).catch(() => seen);
    }
    expect(stops).toBeGreaterThanOrEqual(3);
    const st = (await db.get('meta', 'historyImport')) as { state: string; imported: number };
    expect(st.state).toBe('done');
    const pages = await titlePages(engine);
    expect(new Set(pages.map((p) => p.url))).toEqual(expected);
    expect(pages).toHaveLength(expected.size);
    // One section each, and nothing twice in the index.
    expect((await engine.lexical.corpusStats()).N).toBe(expected.size);
    expect(pages.every((p) => p.chunkIds.length === 1)).toBe(true);
    expect((await verifyIndex(engine)).problems).toEqual([]);
  }, 60_000);

  it('a later real visit replaces the entry with the full page; an import never overwrites a page read in a tab', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    const read = 'https://read.example/article';
    await engine.capture(read, { title: 'Read article', lang: 'en', blocks: [{ kind: 'text', text: 'A page the user really read, with enough words in it to be stored as a full page of text here.' }] }, NOW - 3 * DAY);
    const items: Item[] = [
      { url: read, title: 'Read article (history title)', lastVisitTime: NOW - DAY, visitCount: 2 },
      { url: 'https://later.example/page', title: 'Later page', lastVisitTime: NOW - DAY, visitCount: 4 },
    ];
    const imp = new HistoryImport(engine, () => fakeHistory(items), () => NOW);
    await imp.start(30);
    await imp.whenIdle();
    expect((await db.get('pages', read))!.kind).toBeUndefined();
    expect((await db.get('pages', read))!.title).toBe('Read article');
    const before = (await db.get('pages', 'https://later.example/page'))!;
    expect(before.kind).toBe('title');
    await engine.capture('https://later.example/page', { title: 'Later page', lang: 'en', blocks: [{ kind: 'heading', level: 1, text: 'Later' }, { kind: 'text', text: 'The marshbrook gravelrun text the user read at last, long enough to be kept as a full page of the index.' }] }, NOW);
    const after = (await db.get('pages', 'https://later.example/page'))!;
    expect(after.kind).toBeUndefined();
    expect(after.visitCount).toBe(before.visitCount + 1);
    expect((await engine.search({ q: 'marshbrook' })).results[0]?.kind).toBeUndefined();
    expect((await verifyIndex(engine)).problems).toEqual([]);
  });

  it('forget site, range and everything cover title-only entries; export/import carries their kind', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    const items = history(120);
    const imp = new HistoryImport(engine, () => fakeHistory(items), () => NOW);
    await imp.start(0);
    await imp.whenIdle();
    expect(await engine.deleteSite('site3.example')).toBe(3);
    const { jsonl, pages } = await exportJsonl(engine, false);
    expect(pages).toBe(117);
    expect(jsonl).toContain('"pageKind":"title"');
    const other = engineOn(await freshDb());
    expect((await importJsonl(other, jsonl)).pages).toBe(117);
    expect((await titlePages(other)).length).toBe(117);
    expect((await other.search({ q: 'topic5' })).results[0]?.kind).toBe('title');
    expect((await verifyIndex(other)).problems).toEqual([]);
    const newest = NOW - 10 * 60_000;
    expect(await engine.deleteRange(newest, undefined)).toBeGreaterThan(0);
    expect([...(await engine.pages.all()).values()].every((p) => p.lastVisit < newest)).toBe(true);
    await engine.deleteAll();
    expect(await db.count('pages')).toBe(0);
  });
});

describe('two starts at once', () => {
  it('(the permission granted and the page asking): the loop goes on with the newer one, which ends done', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    const items = history(300);
    const { source, held, release } = heldHistory(items, 1);
    const imp = new HistoryImport(engine, () => source, () => NOW);
    await imp.start(90);
    await held;
    // The other start's state lands while this loop reads (both found no import running, both wrote one).
    const state = (await db.get('meta', HISTORY_STATE_KEY)) as Record<string, unknown>;
    await db.put('meta', { ...state, startedAt: NOW + 1 }, HISTORY_STATE_KEY);
    release();
    await imp.whenIdle();
    expect((await imp.status()).state).toBe('done');
    expect((await titlePages(engine)).length).toBe(300);
  });
});

describe('forgetting while the import runs', () => {
  it('a page, a site or a range forgotten meanwhile is left out of what the import still brings', async () => {
    const engine = engineOn(await freshDb());
    // 1,500 entries: the first read window (1,000, newest first) is stored, then the source waits.
    const items = history(1500);
    const { source, held, release } = heldHistory(items, 2);
    const imp = new HistoryImport(engine, () => source, () => NOW);
    await imp.start(0);
    await held;
    // Entries of the second window, as stored (the tracking parameter dropped).
    const page = items[1200]!.url.replace('?utm_source=x', '');
    const other = items[1201]!.url.replace('?utm_source=x', '');
    const site = 'site7.example';
    // Three forgets at once (each reads and writes the import's state): none may erase another.
    await Promise.all([imp.forgotUrls([page]), imp.forgotSite(site), imp.forgotRange(items[1450]!.lastVisitTime, items[1400]!.lastVisitTime + 1)]);
    release();
    await imp.whenIdle();
    expect((await imp.status()).state).toBe('done');
    const stored = await engine.pages.all();
    const [a, b] = [items[1450]!.lastVisitTime, items[1400]!.lastVisitTime + 1];
    const want = items
      .map((i) => ({ url: i.url.replace('?utm_source=x', ''), at: i.lastVisitTime }))
      // The first window was stored before the forgets (removing it is the forget's own work, not the import's).
      .filter((e, n) => n < 1000 || (e.url !== page && new URL(e.url).hostname !== site && !(e.at >= a && e.at < b)))
      .map((e) => e.url);
    expect([...stored.keys()].sort()).toEqual(want.sort());
    expect(stored.has(other)).toBe(true);
    expect(want.length).toBeLessThan(1500 - 50);
  });
});

/** A reader standing in for the offscreen document: answers by URL. */
function fakeReader(answers: Record<string, ReadHtmlResult>, seen: string[] = []): PageReader {
  return {
    async readHtml(url) {
      seen.push(url);
      await new Promise((r) => setTimeout(r, 2));
      return answers[url] ?? { ok: false, reason: 'http-error', status: 404 };
    },
    readPdf: async () => ({ ok: false, problem: 'broken' }),
  };
}

describe('backfill', () => {
  it('stores what it reads as `fetched` keeping the visit, leaves the rest title-only and marked, and respects the daily cap', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    const items = history(30);
    const imp = new HistoryImport(engine, () => fakeHistory(items), () => NOW);
    await imp.start(0);
    await imp.whenIdle();
    const urls = (await titlePages(engine)).map((p) => p.url);
    const answers: Record<string, ReadHtmlResult> = {};
    for (const [i, u] of urls.entries()) {
      if (i % 3 === 0) continue;
      // What the reader sends: the page's blocks cut by the same step a content script runs.
      const cut = await cutSections([{ kind: 'heading', level: 1, text: `Heading ${i}` }, { kind: 'text', text: `Backfilled body ${i} with the word fernlight and enough other words to be a real page of text that is stored.` }]);
      answers[u] = { ok: true, title: `Fetched ${i}`, lang: 'en', method: 'body', words: 30, blocks: cut.blocks, sections: cut.sections, chunker: cut.chunker };
    }
    const seen: string[] = [];
    const bf = new Backfill(engine, fakeReader(answers, seen), () => NOW);
    await bf.control(undefined, 12);
    await bf.control('start');
    await bf.whenIdle();
    let st = await bf.status();
    expect(st.state).toBe('capped');
    expect(seen).toHaveLength(12);
    // Next day: goes on.
    const bf2 = new Backfill(engine, fakeReader(answers, seen), () => NOW + DAY);
    await bf2.control(undefined, 1000);
    await bf2.control('resume');
    await bf2.whenIdle();
    st = await bf2.status();
    expect(st.state).toBe('done');
    expect(seen).toHaveLength(30);
    expect(new Set(seen).size).toBe(30);
    expect(st.stored).toBe(20); // all 20 readable pages, over both days
    const fetched = [...(await engine.pages.all()).values()].filter((p) => p.kind === 'fetched');
    expect(fetched).toHaveLength(20);
    const one = (await db.get('pages', fetched[0]!.url))!;
    const item = items.find((i) => i.url.startsWith(one.url))!;
    expect([one.lastVisit, one.visitCount]).toEqual([item.lastVisitTime, item.visitCount]);
    const left = (await titlePages(engine)).filter((p) => p.fetchSkipped);
    expect(left).toHaveLength(10);
    expect((await engine.search({ q: 'fernlight' })).results.every((r) => r.kind === 'fetched')).toBe(true);
    expect((await verifyIndex(engine)).problems).toEqual([]);
  });

  it('never fetches an excluded site, and never two requests to one host at once', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    const imp = new HistoryImport(engine, () => fakeHistory(history(60)), () => NOW);
    await imp.start(0);
    await imp.whenIdle();
    await engine.updateSettings({ excludedSites: ['site1.example'] });
    const seen: string[] = [];
    const bf = new Backfill(engine, fakeReader({}, seen), () => NOW);
    await bf.control('start');
    await bf.whenIdle();
    expect(seen.some((u) => u.includes('site1.example'))).toBe(false);
    expect(bf.log.maxPerHost).toBe(1);
    expect(bf.log.maxInFlight).toBeGreaterThan(1);
    expect(bf.log.maxInFlight).toBeLessThanOrEqual(3);
  });
});
