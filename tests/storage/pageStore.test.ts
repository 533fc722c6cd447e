import { TOKENIZER } from '../../src/indexing.js';
import { describe, expect, it } from 'vitest';
import { decodeBlock } from '../../src/postings.js';
import { deletePages, recordVisit, writePage } from '../../background/pageStore.js';
import { storeVectors } from '../../background/vectorStore.js';
import { verifyIndex } from '../../background/verify.js';
import { unpackTexts } from '../../background/sectionTexts.js';
import { engineOn, freshDb, pageInput, readAll } from './helpers.js';

const URL_A = 'https://a.example/doc';
const OLD = ['the zephyrine litter box stands in the hall', 'cats prefer quiet corners for their boxes'];
const NEW = ['sourdough bread needs a lively starter', 'bake the loaf in a hot dutch oven'];

async function allPostingIds(db: Awaited<ReturnType<typeof freshDb>>): Promise<Set<number>> {
  const ids = new Set<number>();
  for (const b of await db.getAll('postings')) for (const e of decodeBlock({ first: b.f, n: b.n, data: b.d })) ids.add(e.id);
  return ids;
}

describe('writePage', () => {
  it('stores a new page: chunks, postings, stats, queue', async () => {
    const db = await freshDb();
    const res = await writePage(db, pageInput(URL_A, 'Cats', OLD, 1000, 'm'), TOKENIZER);
    expect(res.outcome).toBe('new');
    expect(res.addedChunkIds).toEqual([1, 2]);
    const all = await readAll(db);
    expect(all.pages).toHaveLength(1);
    expect(all.pages[0]).toMatchObject({ url: URL_A, site: 'a.example', title: 'Cats', chunkIds: [1, 2], firstVisit: 1000, lastVisit: 1000, visitCount: 1 });
    expect(all.chunks.map((c) => c.id)).toEqual([1, 2]);
    expect(all.stats).toEqual({ N: 2, totalLength: all.chunks.reduce((n, c) => n + c.len, 0), nextChunkId: 3, tail: expect.any(String) });
    // Schema 2: the text lives in one compressed record for the page, not in the chunk records.
    expect(all.chunks.every((c) => c.text === undefined)).toBe(true);
    expect(all.texts.map((t) => ({ url: t.url, ids: t.ids }))).toEqual([{ url: URL_A, ids: [1, 2] }]);
    expect(await unpackTexts(all.texts[0]!.z)).toEqual(OLD);
    expect(all.queue).toEqual([
      { id: 1, model: 'm' },
      { id: 2, model: 'm' },
    ]);
    expect(res.touchedTerms.has('zephyrine')).toBe(true);
    expect(res.touchedTerms.has('cat')).toBe(true); // the title is indexed with every chunk
  });

  it('a revisit with the same content only bumps the visit', async () => {
    const db = await freshDb();
    await writePage(db, pageInput(URL_A, 'Cats', OLD, 1000), TOKENIZER);
    const before = await readAll(db);
    const res = await writePage(db, pageInput(URL_A, 'Cats', OLD, 5000), TOKENIZER);
    expect(res.outcome).toBe('revisit');
    expect(res.touchedTerms.size).toBe(0);
    const after = await readAll(db);
    expect(after.pages[0]).toMatchObject({ firstVisit: 1000, lastVisit: 5000, visitCount: 2, chunkIds: before.pages[0]!.chunkIds });
    expect(after.postings).toEqual(before.postings);
    expect(after.chunks).toEqual(before.chunks);
    // An older visit arriving late does not move lastVisit back.
    const late = await recordVisit(db, URL_A, 2000);
    expect(late?.visitCount).toBe(2);
    expect((await db.get('pages', URL_A))).toMatchObject({ lastVisit: 5000, visitCount: 3 });
    expect(await recordVisit(db, 'https://nowhere.example/', 1)).toBeUndefined();
  });

  it('a replace swaps the content whole: old chunks, postings, queue entries and vectors are gone', async () => {
    const db = await freshDb();
    const first = await writePage(db, pageInput(URL_A, 'Cats', OLD, 1000, 'm'), TOKENIZER);
    await writePage(db, pageInput('https://b.example/other', 'Other', ['cats and corners elsewhere'], 1000, 'm'), TOKENIZER);
    await storeVectors(db, 'm', 2, first.addedChunkIds.map((id) => ({ id, codes: Int8Array.from([1, 2]), scale: 0.1 })), first.addedChunkIds);
    const res = await writePage(db, pageInput(URL_A, 'Baking', NEW, 2000, 'm'), TOKENIZER);
    expect(res.outcome).toBe('changed');
    expect(res.removedChunkIds).toEqual(first.addedChunkIds);
    expect(res.touchedTerms.has('zephyrine')).toBe(true);
    expect(res.touchedTerms.has('sourdough')).toBe(true);

    const all = await readAll(db);
    const old = new Set(first.addedChunkIds);
    expect(all.chunks.filter((c) => old.has(c.id))).toEqual([]);
    expect([...(await allPostingIds(db))].filter((id) => old.has(id))).toEqual([]);
    expect(all.queue.filter((q) => old.has(q.id))).toEqual([]);
    expect(all.vectors).toEqual([]);
    expect(all.postings.some((p) => p.t === 'zephyrine')).toBe(false);
    expect(all.pages.find((p) => p.url === URL_A)).toMatchObject({ title: 'Baking', chunkIds: res.addedChunkIds, firstVisit: 1000, lastVisit: 2000, visitCount: 2 });

    const engine = engineOn(db);
    expect((await engine.search({ q: 'zephyrine' })).results).toEqual([]);
    const found = await engine.search({ q: 'sourdough' });
    expect(found.results.map((r) => r.url)).toEqual([URL_A]);
    expect(found.results[0]!.title).toBe('Baking');
    // Words shared with the other page now find only that page.
    expect((await engine.search({ q: 'corners' })).results.map((r) => r.url)).toEqual(['https://b.example/other']);
    expect((await verifyIndex(engine)).problems).toEqual([]);
  });

  it('a write that fails half-way leaves nothing behind', async () => {
    const db = await freshDb();
    await writePage(db, pageInput(URL_A, 'Cats', OLD, 1000), TOKENIZER);
    await writePage(db, pageInput('https://b.example/other', 'Other', ['cats and corners elsewhere'], 1000), TOKENIZER);
    // Stale statistics: the next ids collide with stored ones, and the posting append refuses them
    // after the old chunks and their postings were already removed inside the transaction.
    const stats = (await db.get('meta', 'stats')) as { N: number; totalLength: number; nextChunkId: number };
    await db.put('meta', { ...stats, nextChunkId: 1 }, 'stats');
    const before = await readAll(db);
    await expect(writePage(db, pageInput(URL_A, 'Cats', ['cats are back in new words'], 2000), TOKENIZER)).rejects.toThrow(/grow/);
    expect(await readAll(db)).toEqual(before);
    // The database is still usable afterwards.
    await db.put('meta', stats, 'stats');
    await expect(writePage(db, pageInput(URL_A, 'Cats', ['cats are back in new words'], 2000), TOKENIZER)).resolves.toMatchObject({ outcome: 'changed' });
    expect((await verifyIndex(engineOn(db))).problems).toEqual([]);
  });

  it('deletePages removes everything of the pages and nothing else; unknown urls are ignored', async () => {
    const db = await freshDb();
    await writePage(db, pageInput(URL_A, 'Cats', OLD, 1000, 'm'), TOKENIZER);
    const keep = await writePage(db, pageInput('https://b.example/other', 'Other', ['cats and corners elsewhere'], 1000, 'm'), TOKENIZER);
    const res = await deletePages(db, [URL_A, URL_A, 'https://none.example/'], TOKENIZER);
    expect(res.pages.map((p) => p.url)).toContain(URL_A);
    const all = await readAll(db);
    expect(all.pages.map((p) => p.url)).toEqual(['https://b.example/other']);
    expect(all.chunks.map((c) => c.id)).toEqual(keep.addedChunkIds);
    expect([...(await allPostingIds(db))]).toEqual(keep.addedChunkIds);
    expect(all.queue.map((q) => q.id)).toEqual(keep.addedChunkIds);
    expect(all.stats).toMatchObject({ N: 1, totalLength: all.chunks[0]!.len });
    expect((await verifyIndex(engineOn(db))).problems).toEqual([]);
  });
});
