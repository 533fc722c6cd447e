import { tfCode, TOKENIZER } from '../../src/indexing.js';
import { describe, expect, it } from 'vitest';
import { parseQuery } from '../../src/query.js';
import { writePage } from '../../background/pageStore.js';
import { PageTable } from '../../background/pageTable.js';
import { engineOn, freshDb, pageInput, readAll, settle } from './helpers.js';
import { HistoryImport, type HistorySource } from '../../background/dayone/historyImport.js';

describe('LexicalReader', () => {
  const ids = async (engine: ReturnType<typeof engineOn>, term: string) => [...(await engine.lexical.postings([term])).get(term)!.ids];

  it('reads the main index and the pending segments as one, with lengths from the norms', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    const a = await engine.capture('https://a.example/', { title: 'A', lang: 'en', blocks: [{ kind: 'text', text: 'river stone river and enough other words to make a page worth storing' }] });
    expect(a.outcome).toBe('new');
    const first = await engine.lexical.postings(['river', 'absent']);
    expect([...first.get('river')!.ids]).toEqual([1]);
    expect([...first.get('river')!.tfs]).toEqual([tfCode(2, false, false, false)]); // twice in the body, not in a heading or the title
    const page = (await db.get('pages', 'https://a.example/'))!;
    expect([...first.get('river')!.lens]).toEqual(page.lens);
    expect(first.get('absent')!.ids.length).toBe(0);
    expect(await engine.lexical.corpusStats()).toEqual({ N: 1, totalLength: page.lens![0] });
    // Merged into the main index: the same list, now from the blocks.
    await settle(engine);
    expect((await readAll(db)).segments).toEqual([]);
    expect(await ids(engine, 'river')).toEqual([1]);
    expect([...(await engineOn(db).lexical.postings(['river'])).get('river')!.lens]).toEqual(page.lens);
  });

  it('captures and deletes need no invalidation: new postings come from the delta, forgotten ids are filtered', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    const text = (w: string) => [{ kind: 'text' as const, text: `${w} river and enough other words to make a page worth storing here` }];
    await engine.capture('https://a.example/', { title: 'A', lang: 'en', blocks: text('alpha') });
    await settle(engine);
    expect(await ids(engine, 'river')).toEqual([1]); // cached now
    await engine.capture('https://b.example/', { title: 'B', lang: 'en', blocks: text('beta') });
    expect(await ids(engine, 'river')).toEqual([1, 2]);
    expect((await engine.lexical.corpusStats()).N).toBe(2);
    await engine.deleteUrls(['https://a.example/']);
    expect(await ids(engine, 'river')).toEqual([2]);
    expect(await ids(engine, 'alpha')).toEqual([]);
    expect((await engine.lexical.corpusStats()).N).toBe(1);
    // Through a merge and a sweep, and from a cold engine: the same.
    await settle(engine);
    expect(await ids(engine, 'river')).toEqual([2]);
    expect(await ids(engineOn(db), 'river')).toEqual([2]);
    expect(await ids(engineOn(db), 'alpha')).toEqual([]);
  });

  it('a read that straddles the end of a merge neither misses postings nor caches a stale list', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    await engine.capture('https://a.example/', { title: 'A', lang: 'en', blocks: [{ kind: 'text', text: 'stone and enough other words to make a page worth storing here' }] });
    const reading = engine.lexical.postings(['stone']);
    const merging = settle(engine); // the merge's last step may land while the read is in flight
    expect([...(await reading).get('stone')!.ids]).toEqual([1]);
    await merging;
    expect(await ids(engine, 'stone')).toEqual([1]);
    await engine.capture('https://c.example/', { title: 'C', lang: 'en', blocks: [{ kind: 'text', text: 'stone again with enough other words to make a page worth storing' }] });
    const reading2 = engine.lexical.postings(['stone']);
    await settle(engine);
    expect([...(await reading2).get('stone')!.ids]).toEqual([1, 2]);
    expect(await ids(engine, 'stone')).toEqual([1, 2]);
  });

  it('stays warm through every write and every merge (capture, re-capture over a title-only entry, revisit, change, title import, forget): the warm cache equals a cold read', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    const NOW = Date.UTC(2026, 10, 30, 12);
    const items = Array.from({ length: 120 }, (_, i) => ({ url: `https://site${i % 4}.example/river/page-${i}`, title: `River stone ${i}`, lastVisitTime: NOW - i * 60_000, visitCount: 1 }));
    const source: HistorySource = { search: async (q) => items.filter((i) => i.lastVisitTime >= q.startTime && i.lastVisitTime < q.endTime).slice(0, q.maxResults) };
    const terms = ['river', 'stone', 'page', 'site0', 'delta', 'marsh', 'gravel', 'absent'];
    const body = (w: string) => [{ kind: 'text' as const, text: `The ${w} river carries stone and silt past the delta, a page of ordinary prose long enough to be kept in the index.` }];
    await engine.capture('https://a.example/one', { title: 'River one', lang: 'en', blocks: body('marsh') }, NOW);
    await settle(engine);
    // Warm the cache (and the statistics) from the main index, then write in every way a page can be written.
    await engine.lexical.postings(terms);
    await engine.lexical.corpusStats();
    const imp = new HistoryImport(engine, () => source, () => NOW);
    await imp.start(0);
    await imp.whenIdle();
    await engine.capture(items[3]!.url, { title: 'River stone 3, read at last', lang: 'en', blocks: body('gravel') }, NOW, { kind: 'fetched', notAVisit: true, onlyOverTitle: true });
    await engine.capture(items[7]!.url, { title: 'River stone 7', lang: 'en', blocks: body('delta') }, NOW);
    await engine.capture('https://a.example/one', { title: 'River one', lang: 'en', blocks: body('marsh') }, NOW + 1000); // revisit
    await engine.capture('https://a.example/one', { title: 'River one, changed', lang: 'en', blocks: body('estuary') }, NOW + 2000);
    await engine.deleteUrls([items[11]!.url]);
    expect((await readAll(db)).segments.length).toBeGreaterThan(1);
    // Served from memory: no posting or statistics read reaches the database after the writes, before
    // and after the merges move every segment's postings into the main index.
    const reads = { postings: 0, meta: 0 };
    const real = db.transaction.bind(db);
    (db as unknown as { transaction: typeof db.transaction }).transaction = ((...a: Parameters<typeof db.transaction>) => {
      const stores = typeof a[0] === 'string' ? [a[0]] : Array.from(a[0]);
      if (stores.includes('postings') && a[1] !== 'readwrite') reads.postings++;
      if (stores.length === 1 && stores[0] === 'meta' && a[1] !== 'readwrite') reads.meta++;
      return real(...a);
    }) as typeof db.transaction;
    const same = async (when: string) => {
      reads.postings = reads.meta = 0; // the maintenance's own reads (settle) are not a search's
      const warm = await engine.lexical.postings(terms);
      const warmStats = await engine.lexical.corpusStats();
      expect({ when, ...reads }).toEqual({ when, postings: 0, meta: 0 });
      const cold = engineOn(db);
      const fresh = await cold.lexical.postings(terms);
      for (const t of terms) expect({ when, t, ids: [...warm.get(t)!.ids], tfs: [...warm.get(t)!.tfs], lens: [...warm.get(t)!.lens] }).toEqual({ when, t, ids: [...fresh.get(t)!.ids], tfs: [...fresh.get(t)!.tfs], lens: [...fresh.get(t)!.lens] });
      expect(warmStats).toEqual(await cold.lexical.corpusStats());
      return warm;
    };
    await same('pending');
    await settle(engine);
    const warm = await same('merged');
    expect(warm.get('river')!.ids.length).toBeGreaterThan(115);
    expect(warm.get('gravel')!.ids.length).toBe(1);
    expect((await readAll(db)).segments).toEqual([]);
  });

  it("invalidate('all') drops everything", async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    await writePage(db, pageInput('https://a.example/', 'A', ['stone']), TOKENIZER);
    await settle(engine);
    expect(await ids(engine, 'stone')).toEqual([1]);
    await db.clear('postings');
    expect(await ids(engine, 'stone')).toEqual([1]); // cached
    engine.lexical.invalidate('all');
    expect(await ids(engine, 'stone')).toEqual([]);
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
    // Norms and owners by chunk id, kept in step too.
    const owner = await table.owners();
    expect(owner(p1.addedChunkIds[1]!)?.url).toBe('https://docs.python.org/a');
    expect((await table.norms()).get(p2.addedChunkIds[0]!)).toBe(p2.page.lens![0]);
    table.remove('https://docs.python.org/a');
    expect(owner(p1.addedChunkIds[1]!)).toBeUndefined();
    expect((await table.norms()).get(p1.addedChunkIds[1]!)).toBe(0);
  });

  it('filters out hidden pages (an undo window), the view kept in step with every change and reused while nothing changes', async () => {
    const db = await freshDb();
    const now = new Date(2024, 0, 10).getTime();
    const p1 = await writePage(db, pageInput('https://a.example/1', 'One', ['x', 'y'], now), TOKENIZER);
    const p2 = await writePage(db, pageInput('https://b.example/2', 'Two', ['x'], now), TOKENIZER);
    const table = new PageTable(() => Promise.resolve(db));
    const ids = async (q = 'x') => {
      const s = await table.allowedChunks(parseQuery(q, now));
      return s === null ? null : [...s].sort((a, b) => a - b);
    };
    expect(await ids()).toBeNull();
    table.hide(['https://a.example/1']);
    expect(await ids()).toEqual(p2.addedChunkIds);
    expect([...(await table.all()).keys()]).toEqual(['https://b.example/2']);
    // Nothing changed: the same view, not a rebuilt one (what every keystroke in the window asks).
    expect(await table.allowedChunks(parseQuery('y', now))).toBe(await table.allowedChunks(parseQuery('x', now)));
    expect(await table.all()).toBe(await table.all());
    // A capture during the window is visible at once; a removal is gone at once.
    const p3 = await writePage(db, pageInput('https://c.example/3', 'Three', ['x'], now), TOKENIZER);
    table.put(p3.page);
    expect(await ids()).toEqual([...p2.addedChunkIds, ...p3.addedChunkIds]);
    expect((await table.all()).has('https://c.example/3')).toBe(true);
    table.remove('https://b.example/2');
    expect(await ids()).toEqual(p3.addedChunkIds);
    // Other filters still apply on top of the hidden pages.
    expect(await ids('x site:c.example')).toEqual(p3.addedChunkIds);
    expect(await ids('x site:a.example')).toEqual([]);
    // Undo: the hidden page is back.
    table.unhide(['https://a.example/1']);
    expect(await ids()).toBeNull();
    expect((await table.all()).has('https://a.example/1')).toBe(true);
    table.hide(['https://c.example/3']);
    expect(await ids()).toEqual(p1.addedChunkIds);
    // A reset reloads from the store (b was removed only from the table, so it is back).
    table.reset();
    expect(await ids()).toEqual([...p1.addedChunkIds, ...p2.addedChunkIds]);
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
