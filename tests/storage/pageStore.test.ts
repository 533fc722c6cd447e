import { TOKENIZER } from '../../src/indexing.js';
import { describe, expect, it } from 'vitest';
import { decodeSegment } from '../../src/postings.js';
import { deletePages, recordVisit, writePage, writePages, writeTitlePages } from '../../background/pageStore.js';
import { storeVectors } from '../../background/vectorStore.js';
import { verifyIndex } from '../../background/verify.js';
import { unpackSections } from '../../background/sections.js';
import { engineOn, freshDb, logicalIndex, pageInput, readAll, settle } from './helpers.js';

const URL_A = 'https://a.example/doc';
const OLD = ['the zephyrine litter box stands in the hall', 'cats prefer quiet corners for their boxes'];
const NEW = ['sourdough bread needs a lively starter', 'bake the loaf in a hot dutch oven'];

/** Every id of every posting the readers can see in the stores (main blocks and segments), dead or not. */
async function storedPostingIds(db: Awaited<ReturnType<typeof freshDb>>): Promise<Set<number>> {
  const all = await readAll(db);
  const ids = new Set<number>();
  for (const b of all.postings) for (const e of b.entries) ids.add(e.id);
  for (const s of all.segments) decodeSegment(s, s.first, (_t, list) => list.forEach((e) => ids.add(e.id)));
  return ids;
}

describe('writePage', () => {
  it('stores a new page: page record with section lengths, one sections record, one segment, stats, queue', async () => {
    const db = await freshDb();
    const res = await writePage(db, pageInput(URL_A, 'Cats', OLD, 1000, 'm'), TOKENIZER);
    expect(res.outcome).toBe('new');
    expect(res.addedChunkIds).toEqual([1, 2]);
    const all = await readAll(db);
    expect(all.pages).toHaveLength(1);
    expect(all.pages[0]).toMatchObject({ url: URL_A, site: 'a.example', title: 'Cats', chunkIds: [1, 2], firstVisit: 1000, lastVisit: 1000, visitCount: 1 });
    const lens = all.pages[0]!.lens!;
    expect(lens).toHaveLength(2);
    expect(all.stats).toEqual({ N: 2, totalLength: lens[0]! + lens[1]!, nextChunkId: 3, nextSeq: 2 });
    // The page's sections, metadata and text, are one compressed record.
    expect(all.sections.map((s) => s.url)).toEqual([URL_A]);
    const sections = await unpackSections(all.sections[0]!.z, all.pages[0]!);
    expect(sections.map((s) => [s.id, s.text, s.headingPath, s.anchor])).toEqual([
      [1, OLD[0], ['Section 0'], { id: 's0' }],
      [2, OLD[1], ['Section 1'], { id: 's1' }],
    ]);
    // Its postings are one segment, terms as strings; the main index is untouched.
    expect(all.segments).toHaveLength(1);
    expect(all.segments[0]).toMatchObject({ seq: 1, first: 1, end: 3 });
    expect(all.segments[0]!.t).toContain('zephyrine');
    expect(all.segments[0]!.t).toContain('cat'); // the title is indexed with every chunk
    expect(all.postings).toEqual([]);
    expect(all.terms).toEqual([]);
    expect(res.batch.segment?.terms.get('zephyrine')?.ids).toEqual([1]);
    expect(all.queue).toEqual([
      { id: 1, model: 'm' },
      { id: 2, model: 'm' },
    ]);
  });

  it('a capture writes the same handful of records however large the index is', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    for (let i = 0; i < 30; i++) await writePage(db, pageInput(`https://a.example/${i}`, `Page ${i}`, [`words for page ${i} river stone`, `more words ${i}`]), TOKENIZER);
    await settle(engine);
    const before = await readAll(db);
    expect(before.postings.length).toBeGreaterThan(10);
    await writePage(db, pageInput('https://a.example/new', 'New', ['river stone and new words', 'second']), TOKENIZER);
    const after = await readAll(db);
    // One more page, one sections record, one segment; not one posting block rewritten.
    expect(after.pages.length - before.pages.length).toBe(1);
    expect(after.sections.length - before.sections.length).toBe(1);
    expect(after.segments.length).toBe(1);
    expect(after.postingValues).toEqual(before.postingValues);
    expect(after.terms).toEqual(before.terms);
  });

  it('a revisit with the same content only bumps the visit', async () => {
    const db = await freshDb();
    await writePage(db, pageInput(URL_A, 'Cats', OLD, 1000), TOKENIZER);
    const before = await readAll(db);
    const res = await writePage(db, pageInput(URL_A, 'Cats', OLD, 5000), TOKENIZER);
    expect(res.outcome).toBe('revisit');
    expect(res.batch.segment).toBeNull();
    const after = await readAll(db);
    expect(after.pages[0]).toMatchObject({ firstVisit: 1000, lastVisit: 5000, visitCount: 2, chunkIds: before.pages[0]!.chunkIds });
    expect(after.segments).toEqual(before.segments);
    expect(after.sections).toEqual(before.sections);
    // An older visit arriving late does not move lastVisit back.
    const late = await recordVisit(db, URL_A, 2000);
    expect(late?.visitCount).toBe(2);
    expect(await db.get('pages', URL_A)).toMatchObject({ lastVisit: 5000, visitCount: 3 });
    expect(await recordVisit(db, 'https://nowhere.example/', 1)).toBeUndefined();
  });

  it('a replace swaps the content whole: old ids tombstoned, old queue entries gone, other page fields kept', async () => {
    const db = await freshDb();
    const first = await writePage(db, pageInput(URL_A, 'Cats', OLD, 1000, 'm'), TOKENIZER);
    await writePage(db, pageInput('https://b.example/other', 'Other', ['cats and corners elsewhere'], 1000, 'm'), TOKENIZER);
    await storeVectors(db, 'm', 2, first.addedChunkIds.map((id) => ({ id, codes: Int8Array.from([1, 2]), scale: 0.1 })), first.addedChunkIds);
    // A field another feature keeps on the page survives the rewrite.
    await db.put('pages', { ...(await db.get('pages', URL_A))!, visits: [1000] } as never);
    const res = await writePage(db, pageInput(URL_A, 'Baking', NEW, 2000, 'm'), TOKENIZER);
    expect(res.outcome).toBe('changed');
    expect(res.removedChunkIds).toEqual(first.addedChunkIds);
    expect(res.batch.dead).toEqual([{ seq: expect.any(Number), first: first.addedChunkIds[0], end: first.addedChunkIds[1]! + 1, at: expect.any(Number) }]);

    const all = await readAll(db);
    const old = new Set(first.addedChunkIds);
    expect(all.queue.filter((q) => old.has(q.id))).toEqual([]);
    expect(all.tombstones.map((t) => [t.first, t.end])).toEqual([[1, 3]]);
    expect(all.pages.find((p) => p.url === URL_A)).toMatchObject({ title: 'Baking', chunkIds: res.addedChunkIds, firstVisit: 1000, lastVisit: 2000, visitCount: 2, visits: [1000] });

    const engine = engineOn(db);
    expect((await engine.search({ q: 'zephyrine' })).results).toEqual([]);
    const found = await engine.search({ q: 'sourdough' });
    expect(found.results.map((r) => r.url)).toEqual([URL_A]);
    expect(found.results[0]!.title).toBe('Baking');
    // Words shared with the other page now find only that page.
    expect((await engine.search({ q: 'corners' })).results.map((r) => r.url)).toEqual(['https://b.example/other']);
    expect((await verifyIndex(engine)).problems).toEqual([]);
    // After the sweep nothing of the old version is stored at all.
    await settle(engine);
    const swept = await readAll(db);
    expect([...(await storedPostingIds(db))].filter((id) => old.has(id))).toEqual([]);
    expect(swept.vectors.flatMap((v) => [...v.ids]).filter((id) => old.has(id))).toEqual([]);
    expect(swept.terms.some((t) => t.term === 'zephyrine')).toBe(false);
    expect(swept.tombstones).toEqual([]);
    expect((await verifyIndex(engine)).problems).toEqual([]);
  });

  it('a write that fails half-way leaves nothing behind', async () => {
    const db = await freshDb();
    await writePage(db, pageInput(URL_A, 'Cats', OLD, 1000), TOKENIZER);
    await writePage(db, pageInput('https://b.example/other', 'Other', ['cats and corners elsewhere'], 1000), TOKENIZER);
    // Broken statistics: the new ids are not valid keys, so the queue entries are refused after the
    // page, its sections, the old version's tombstone and the segment were put in the transaction.
    const stats = (await db.get('meta', 'stats')) as Record<string, number>;
    await db.put('meta', { ...stats, nextChunkId: NaN }, 'stats');
    const before = await readAll(db);
    const input = pageInput(URL_A, 'Cats', ['cats are back in new words'], 2000, 'm');
    await expect(writePage(db, input, TOKENIZER)).rejects.toThrow();
    expect(await readAll(db)).toEqual(before);
    // The database is still usable afterwards.
    await db.put('meta', stats, 'stats');
    await expect(writePage(db, input, TOKENIZER)).resolves.toMatchObject({ outcome: 'changed' });
    expect((await verifyIndex(engineOn(db))).problems).toEqual([]);
  });

  it('a batch of pages is one transaction and one segment', async () => {
    const db = await freshDb();
    await writePage(db, pageInput(URL_A, 'Cats', OLD, 1000), TOKENIZER);
    const batch = await writePages(
      db,
      [pageInput(URL_A, 'Cats', OLD, 3000), pageInput('https://b.example/1', 'One', ['first page of the batch']), pageInput('https://b.example/2', 'Two', ['second page of the batch', 'with two sections'])],
      TOKENIZER,
    );
    expect(batch.pages.map((p) => p.outcome)).toEqual(['revisit', 'new', 'new']);
    expect(batch.pages.map((p) => p.addedChunkIds)).toEqual([[], [3], [4, 5]]);
    const all = await readAll(db);
    expect(all.segments.map((s) => [s.first, s.end])).toEqual([
      [1, 3],
      [3, 6],
    ]);
    await expect(writePages(db, [pageInput(URL_A, 'x', ['y']), pageInput(URL_A, 'x', ['z'])], TOKENIZER)).rejects.toThrow(/twice/);
    const engine = engineOn(db);
    expect((await engine.search({ q: 'batch' })).results.map((r) => r.url).sort()).toEqual(['https://b.example/1', 'https://b.example/2']);
    expect((await verifyIndex(engine)).problems).toEqual([]);
  });

  it('a batch of title-only entries (history import) is one transaction and one segment; stored pages are left alone', async () => {
    const db = await freshDb();
    await writePage(db, pageInput(URL_A, 'Cats', OLD, 1000), TOKENIZER);
    const entries = Array.from({ length: 50 }, (_, i) => ({ url: `https://h${i}.example/path`, site: `h${i}.example`, title: `History title ${i} quetzalword${i}`, text: `h${i}.example path`, lastVisit: 2000 + i, visitCount: 1, hash: `h${i}` }));
    const res = await writeTitlePages(db, [...entries, { ...entries[0]!, url: URL_A }], TOKENIZER, 'm');
    expect(res.pages).toHaveLength(50);
    expect(res.segment?.first).toBe(3);
    const all = await readAll(db);
    expect(all.segments).toHaveLength(2); // the page, then the whole batch
    expect(all.pages.find((p) => p.url === URL_A)!.title).toBe('Cats');
    expect(all.pages.filter((p) => p.kind === 'title').every((p) => p.chunkIds.length === 1 && p.lens?.length === 1)).toBe(true);
    expect(all.queue).toHaveLength(50);
    // Again: nothing twice.
    expect((await writeTitlePages(db, entries, TOKENIZER, 'm')).pages).toEqual([]);
    const engine = engineOn(db);
    engine.applyWrite(res);
    expect((await engine.search({ q: 'quetzalword7' })).results.map((r) => r.url)).toEqual(['https://h7.example/path']);
    await settle(engine);
    expect((await engineOn(db).search({ q: 'quetzalword7' })).results.map((r) => r.url)).toEqual(['https://h7.example/path']);
    expect((await verifyIndex(engine)).problems).toEqual([]);
  });

  it('deletePages removes the pages, their sections and queue entries, tombstones their ids, and nothing else', async () => {
    const db = await freshDb();
    await writePage(db, pageInput(URL_A, 'Cats', OLD, 1000, 'm'), TOKENIZER);
    const keep = await writePage(db, pageInput('https://b.example/other', 'Other', ['cats and corners elsewhere'], 1000, 'm'), TOKENIZER);
    const res = await deletePages(db, [URL_A, URL_A, 'https://none.example/']);
    expect(res.pages.map((p) => p.url)).toEqual([URL_A]);
    const all = await readAll(db);
    expect(all.pages.map((p) => p.url)).toEqual(['https://b.example/other']);
    expect(all.sections.map((s) => s.url)).toEqual(['https://b.example/other']);
    expect(all.queue.map((q) => q.id)).toEqual(keep.addedChunkIds);
    expect(all.tombstones.map((t) => [t.first, t.end])).toEqual([[1, 3]]);
    expect(all.stats).toMatchObject({ N: 1, totalLength: all.pages[0]!.lens![0] });
    const engine = engineOn(db);
    expect((await verifyIndex(engine)).problems).toEqual([]);
    await settle(engine);
    expect([...(await storedPostingIds(db))]).toEqual(keep.addedChunkIds);
    expect((await verifyIndex(engine)).problems).toEqual([]);
    // The logical index equals the kept page written alone.
    const alone = await freshDb();
    await writePage(alone, pageInput('https://b.example/other', 'Other', ['cats and corners elsewhere'], 1000, 'm'), TOKENIZER);
    expect((await logicalIndex(db)).terms).toEqual((await logicalIndex(alone)).terms);
  });
});
