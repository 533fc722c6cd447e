import { TOKENIZER } from '../../src/indexing.js';
import { describe, expect, it } from 'vitest';
import { parseQuery } from '../../src/query.js';
import { LexicalReader } from '../../background/lexicalIndex.js';
import { deletePages, writePage } from '../../background/pageStore.js';
import { chunkRecords, forgetTexts } from '../../background/sectionTexts.js';
import { PageTable } from '../../background/pageTable.js';
import { engineOn, freshDb, pageInput } from './helpers.js';
import { HistoryImport, type HistorySource } from '../../background/dayone/historyImport.js';

describe('LexicalReader', () => {
  it('serves postings and stats from its cache until invalidated', async () => {
    const db = await freshDb();
    const reader = new LexicalReader(() => Promise.resolve(db));
    const a = await writePage(db, pageInput('https://a.example/', 'A', ['river stone', 'river']), TOKENIZER);
    const first = await reader.postings(['river', 'absent']);
    expect([...first.get('river')!.ids]).toEqual(a.addedChunkIds);
    expect(first.get('absent')!.ids.length).toBe(0);
    expect(await reader.corpusStats()).toEqual({ N: 2, totalLength: (await db.getAll('chunks')).reduce((n, c) => n + c.len, 0) });

    const b = await writePage(db, pageInput('https://b.example/', 'B', ['river delta']), TOKENIZER);
    // Not told yet: still the cached list (this is what invalidate() is for).
    expect([...(await reader.postings(['river'])).get('river')!.ids]).toEqual(a.addedChunkIds);
    reader.invalidate(b.touchedTerms);
    expect([...(await reader.postings(['river'])).get('river')!.ids]).toEqual([...a.addedChunkIds, ...b.addedChunkIds]);
    expect((await reader.corpusStats()).N).toBe(3);
  });

  it('does not cache a read that straddles a write', async () => {
    const db = await freshDb();
    const reader = new LexicalReader(() => Promise.resolve(db));
    await writePage(db, pageInput('https://a.example/', 'A', ['stone']), TOKENIZER);
    const reading = reader.postings(['stone']);
    const stats = reader.corpusStats();
    reader.invalidate(['stone']); // a write committed while the read was in flight
    await Promise.all([reading, stats]);
    const c = await writePage(db, pageInput('https://c.example/', 'C', ['stone']), TOKENIZER);
    expect((await reader.postings(['stone'])).get('stone')!.ids).toContain(c.addedChunkIds[0]);
    expect((await reader.corpusStats()).N).toBe(2);
  });

  it('follows every write through the engine (capture, re-capture over a title-only entry, revisit, title import): the warm cache equals a cold read', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    const NOW = Date.UTC(2026, 10, 30, 12);
    const items = Array.from({ length: 120 }, (_, i) => ({ url: `https://site${i % 4}.example/river/page-${i}`, title: `River stone ${i}`, lastVisitTime: NOW - i * 60_000, visitCount: 1 }));
    const source: HistorySource = { search: async (q) => items.filter((i) => i.lastVisitTime >= q.startTime && i.lastVisitTime < q.endTime).slice(0, q.maxResults) };
    const terms = ['river', 'stone', 'page', 'site0', 'delta', 'marsh', 'absent'];
    const body = (w: string) => [{ kind: 'text' as const, text: `The ${w} river carries stone and silt past the delta, a page of ordinary prose long enough to be kept in the index.` }];
    await engine.capture('https://a.example/one', { title: 'River one', lang: 'en', blocks: body('marsh') }, NOW);
    // Warm the cache (and the statistics), then write in every way a page can be written.
    await engine.lexical.postings(terms);
    await engine.lexical.corpusStats();
    const imp = new HistoryImport(engine, () => source, () => NOW);
    await imp.start(0);
    await imp.whenIdle();
    await engine.capture(items[3]!.url, { title: 'River stone 3, read at last', lang: 'en', blocks: body('gravel') }, NOW, { kind: 'fetched', notAVisit: true, onlyOverTitle: true });
    await engine.capture(items[7]!.url, { title: 'River stone 7', lang: 'en', blocks: body('delta') }, NOW);
    await engine.capture('https://a.example/one', { title: 'River one', lang: 'en', blocks: body('marsh') }, NOW + 1000); // revisit
    await engine.capture('https://a.example/one', { title: 'River one, changed', lang: 'en', blocks: body('estuary') }, NOW + 2000);
    // Served from memory: no posting read reaches the database after the writes.
    const reads = { n: 0 };
    const real = db.transaction.bind(db);
    (db as unknown as { transaction: typeof db.transaction }).transaction = ((...a: Parameters<typeof db.transaction>) => {
      if ((typeof a[0] === 'string' ? [a[0]] : Array.from(a[0])).includes('postings')) reads.n++;
      return real(...a);
    }) as typeof db.transaction;
    const warm = await engine.lexical.postings(terms);
    expect(reads.n).toBe(0);
    const cold = await new LexicalReader(() => Promise.resolve(db)).postings(terms);
    expect(reads.n).toBe(1);
    for (const t of terms) expect({ t, ids: [...warm.get(t)!.ids], tfs: [...warm.get(t)!.tfs], lens: [...warm.get(t)!.lens] }).toEqual({ t, ids: [...cold.get(t)!.ids], tfs: [...cold.get(t)!.tfs], lens: [...cold.get(t)!.lens] });
    expect(warm.get('river')!.ids.length).toBeGreaterThan(120);
    expect(await engine.lexical.corpusStats()).toEqual(await new LexicalReader(() => Promise.resolve(db)).corpusStats());
  });

  it("invalidate('all') drops everything", async () => {
    const db = await freshDb();
    const reader = new LexicalReader(() => Promise.resolve(db));
    await writePage(db, pageInput('https://a.example/', 'A', ['stone']), TOKENIZER);
    await reader.postings(['stone']);
    await db.clear('postings');
    reader.invalidate('all');
    expect((await reader.postings(['stone'])).get('stone')!.ids.length).toBe(0);
  });
});

describe('chunkRecords (the section records a search reads)', () => {
  /** Counts transactions that read the chunks store. */
  function countChunkReads(db: Awaited<ReturnType<typeof freshDb>>): { n: number } {
    const reads = { n: 0 };
    const real = db.transaction.bind(db);
    (db as unknown as { transaction: typeof db.transaction }).transaction = ((...a: Parameters<typeof db.transaction>) => {
      if ((typeof a[0] === 'string' ? [a[0]] : Array.from(a[0])).includes('chunks')) reads.n++;
      return real(...a);
    }) as typeof db.transaction;
    return reads;
  }

  it('reads each record once, then serves it from memory; the records of a deleted or rewritten page are forgotten', async () => {
    const db = await freshDb();
    const a = await writePage(db, pageInput('https://a.example/', 'A', ['river stone', 'river bank']), TOKENIZER);
    const b = await writePage(db, pageInput('https://b.example/', 'B', ['delta']), TOKENIZER);
    const reads = countChunkReads(db);
    const first = await chunkRecords(db, [...a.addedChunkIds, 999_999]);
    expect(first.map((c) => c?.url)).toEqual(['https://a.example/', 'https://a.example/', undefined]);
    expect(reads.n).toBe(1);
    expect((await chunkRecords(db, a.addedChunkIds)).map((c) => c?.id)).toEqual(a.addedChunkIds);
    expect(reads.n).toBe(1);
    // A rewrite removes the page's old sections: never served again.
    await writePage(db, pageInput('https://a.example/', 'A', ['river changed']), TOKENIZER);
    expect(await chunkRecords(db, a.addedChunkIds)).toEqual([undefined, undefined]);
    await chunkRecords(db, b.addedChunkIds);
    await deletePages(db, ['https://b.example/'], TOKENIZER);
    expect(await chunkRecords(db, b.addedChunkIds)).toEqual([undefined]);
  });

  it('does not keep a record whose read straddled a delete (the read may predate it)', async () => {
    const db = await freshDb();
    const a = await writePage(db, pageInput('https://a.example/', 'A', ['river stone']), TOKENIZER);
    const reads = countChunkReads(db);
    const reading = chunkRecords(db, a.addedChunkIds);
    forgetTexts(db, a.addedChunkIds); // a delete committed while the read was in flight
    expect((await reading)[0]?.id).toBe(a.addedChunkIds[0]);
    await chunkRecords(db, a.addedChunkIds);
    expect(reads.n).toBe(2);
  });
});

describe('PageTable', () => {
  it('resolves site, date and page filters into chunk ids', async () => {
    const db = await freshDb();
    const day = 86_400_000;
    const t0 = new Date(2024, 0, 10).getTime();
    const p1 = await writePage(db, pageInput('https://docs.python.org/a', 'A', ['x', 'y'], t0), TOKENIZER);
    const p2 = await writePage(db, pageInput('https://www.python.org/b', 'B', ['x'], t0 + 5 * day), TOKENIZER);
    const p3 = await writePage(db, pageInput('https://rust-lang.org/c', 'C', ['x'], t0 + 10 * day), TOKENIZER);
    const table = new PageTable(() => Promise.resolve(db));
    const now = t0 + 20 * day;
    const ids = async (q: string, excludeUrl?: string) => {
      const s = await table.allowedChunks(parseQuery(q, now), excludeUrl);
      return s === null ? null : [...s].sort((a, b) => a - b);
    };
    expect(await ids('x')).toBeNull();
    expect(await ids('site:python.org')).toEqual([...p1.addedChunkIds, ...p2.addedChunkIds]);
    expect(await ids('site:docs.python.org')).toEqual(p1.addedChunkIds);
    expect(await ids('-site:python.org')).toEqual(p3.addedChunkIds);
    expect(await ids('site:python.org site:rust-lang.org -site:docs.python.org')).toEqual([...p2.addedChunkIds, ...p3.addedChunkIds]);
    expect(await ids('after:2024-01-15')).toEqual([...p2.addedChunkIds, ...p3.addedChunkIds]);
    expect(await ids('before:2024-01-15')).toEqual(p1.addedChunkIds);
    expect(await ids('after:2024-01-11 before:2024-01-20')).toEqual(p2.addedChunkIds);
    expect(await ids('site:nowhere.example')).toEqual([]);
    expect(await ids('', 'https://rust-lang.org/c')).toEqual([...p1.addedChunkIds, ...p2.addedChunkIds]);

    // Kept in step with writes once loaded; reset reloads.
    const p4 = await writePage(db, pageInput('https://rust-lang.org/d', 'D', ['x'], now), TOKENIZER);
    expect(await ids('site:rust-lang.org')).toEqual(p3.addedChunkIds);
    table.put(p4.page);
    expect(await ids('site:rust-lang.org')).toEqual([...p3.addedChunkIds, ...p4.addedChunkIds]);
    table.remove('https://rust-lang.org/c');
    expect(await ids('site:rust-lang.org')).toEqual(p4.addedChunkIds);
    table.reset();
    expect((await table.all()).size).toBe(4);
    expect((await table.get('https://docs.python.org/a'))?.title).toBe('A');
  });

  it('recovers from a failed load', async () => {
    const db = await freshDb();
    await writePage(db, pageInput('https://a.example/', 'A', ['x']), TOKENIZER);
    let calls = 0;
    const table = new PageTable(() => (++calls === 1 ? Promise.reject(new Error('database closed')) : Promise.resolve(db)));
    await expect(table.all()).rejects.toThrow('database closed');
    expect((await table.all()).size).toBe(1);
  });
});

describe('Engine.searchesQuiet (background writers give way to searches)', () => {
  it('resolves at once with no search, waits while one runs and for the quiet time after it, and never past its maximum', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    let t = performance.now();
    await engine.searchesQuiet(200, 2000);
    expect(performance.now() - t).toBeLessThan(50);
    await engine.capture('https://a.example/one', { title: 'River one', lang: 'en', blocks: [{ kind: 'text', text: 'The marsh river carries stone and silt past the delta, a page of ordinary prose long enough to be kept.' }] });
    // A search in flight: a writer waits for it to end, then for the quiet time.
    let ended = 0;
    const search = engine.search({ q: 'river stone' }).then(() => (ended = performance.now()));
    t = performance.now();
    await engine.searchesQuiet(150, 5000);
    await search;
    expect(ended).toBeGreaterThan(0);
    expect(performance.now() - ended).toBeGreaterThanOrEqual(140);
    // Searches all the time: the writer still goes on after its maximum wait.
    let typing = true;
    const keys = (async () => {
      while (typing) {
        await engine.search({ q: 'river' });
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    t = performance.now();
    await engine.searchesQuiet(150, 400);
    const waited = performance.now() - t;
    typing = false;
    await keys;
    expect(waited).toBeGreaterThanOrEqual(390);
    expect(waited).toBeLessThan(1500);
  });
});
