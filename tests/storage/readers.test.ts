import { TOKENIZER } from '../../src/indexing.js';
import { describe, expect, it } from 'vitest';
import { parseQuery } from '../../src/query.js';
import { LexicalReader } from '../../background/lexicalIndex.js';
import { writePage } from '../../background/pageStore.js';
import { PageTable } from '../../background/pageTable.js';
import { freshDb, pageInput } from './helpers.js';

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
