import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DB } from '../../background/db.js';
import { coarseModel, dropModelVectors, IdbCodeReader, loadDenseIndex, removeVectors, storeVectors, VECTOR_BLOCK } from '../../background/vectorStore.js';
import { normalize, quantize } from '../../src/vectors.js';
import { freshDb, readAll } from './helpers.js';

const DIM = 4;
const vec = (id: number) => ({ id, codes: Int8Array.from([id % 127, -(id % 13), 1, (id * 7) % 100]), scale: 0.01 + (id % 5) / 100 });

async function queue(db: DB, ids: readonly number[], model = 'm') {
  const tx = db.transaction('embedQueue', 'readwrite');
  await Promise.all(ids.map((id) => tx.store.put({ id, model })));
  await tx.done;
}

/** Every stored vector of a model, by id, checking the block layout on the way. */
async function stored(db: DB, model = 'm'): Promise<Map<number, { codes: number[]; scale: number }>> {
  const out = new Map<number, { codes: number[]; scale: number }>();
  const blocks = (await readAll(db)).vectors.filter((b) => b.m === model);
  for (let b = 0; b < blocks.length; b++) {
    const block = blocks[b]!;
    const nextKey = blocks[b + 1]?.f ?? Infinity;
    expect(block.ids.length).toBeGreaterThan(0);
    expect(block.ids.length).toBeLessThanOrEqual(VECTOR_BLOCK);
    expect(block.codes.length).toBe(block.ids.length * block.dim);
    for (let i = 0; i < block.ids.length; i++) {
      const id = block.ids[i]!;
      expect(id).toBeGreaterThanOrEqual(block.f);
      expect(id).toBeLessThan(nextKey);
      if (i > 0) expect(id).toBeGreaterThan(block.ids[i - 1]!);
      expect(out.has(id), `vector ${id} stored twice`).toBe(false);
      out.set(id, { codes: [...block.codes.subarray(i * block.dim, (i + 1) * block.dim)], scale: block.scales[i]! });
    }
  }
  return out;
}

describe('storeVectors', { timeout: 30_000 }, () => {
  it('stores a batch, dequeues it, and is idempotent', async () => {
    const db = await freshDb();
    const ids = Array.from({ length: 600 }, (_, i) => i + 1);
    await queue(db, ids);
    const first = await storeVectors(db, 'm', DIM, ids.map(vec), ids);
    expect(first.map((e) => e.id)).toEqual(ids);
    expect(await db.count('embedQueue')).toBe(0);
    const once = await stored(db);
    expect(once.size).toBe(600);
    expect(once.get(77)).toEqual({ codes: [...vec(77).codes], scale: Math.fround(vec(77).scale) });
    // The same batch again (a worker restarted after committing): nothing is stored twice.
    expect(await storeVectors(db, 'm', DIM, ids.map(vec), ids)).toEqual([]);
    expect(await stored(db)).toEqual(once);
  });

  it('skips chunks no longer queued (deleted mid-batch) or queued for another model, but dequeues done ids without vectors', async () => {
    const db = await freshDb();
    await queue(db, [1, 2, 3]);
    await queue(db, [4], 'other');
    // 2 was deleted while its batch was embedded; 3 had no vector (no known words).
    await db.delete('embedQueue', 2);
    const res = await storeVectors(db, 'm', DIM, [vec(1), vec(2), vec(4)], [1, 2, 3, 4]);
    expect(res.map((e) => e.id)).toEqual([1]);
    expect([...(await stored(db)).keys()]).toEqual([1]);
    expect((await db.getAll('embedQueue')).map((q) => q.id)).toEqual([4]);
  });

  it('refuses a vector of the wrong size before writing anything', async () => {
    const db = await freshDb();
    await queue(db, [1, 2, 3]);
    await storeVectors(db, 'm', DIM, [vec(1), vec(2)], [1, 2]);
    const before = await readAll(db);
    const bad = { id: 3, codes: new Int8Array(DIM + 2), scale: 1 };
    await expect(storeVectors(db, 'm', DIM, [vec(3), bad].slice(1), [3])).rejects.toThrow(/dims/);
    expect(await readAll(db)).toEqual(before);
  });

  it('merges batches arriving in any order into well-formed blocks (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.uniqueArray(fc.integer({ min: 1, max: 2000 }), { minLength: 1, maxLength: 300 }), { minLength: 1, maxLength: 6 }),
        async (batches) => {
          const db = await freshDb();
          await queue(db, [...new Set(batches.flat())]);
          const want = new Set<number>();
          for (const batch of batches) {
            const res = await storeVectors(db, 'm', DIM, batch.map(vec), batch);
            for (const e of res) {
              expect(want.has(e.id)).toBe(false);
              want.add(e.id);
            }
          }
          const got = await stored(db);
          expect(new Set(got.keys())).toEqual(want);
          for (const [id, v] of got) expect(v.codes).toEqual([...vec(id).codes]);
          const index = await loadDenseIndex(db, 'm', DIM);
          expect(index.size).toBe(want.size);
          db.close();
        },
      ),
      { numRuns: 20 },
    );
  });
});

describe('removeVectors, loadDenseIndex, dropModelVectors', { timeout: 30_000 }, () => {
  it('removes ids from every model and keeps the rest', async () => {
    const db = await freshDb();
    const ids = Array.from({ length: 700 }, (_, i) => i * 3 + 1);
    await queue(db, ids);
    await storeVectors(db, 'm', DIM, ids.map(vec), ids);
    await queue(db, ids, 'n');
    await storeVectors(db, 'n', DIM, ids.map(vec), ids);
    const drop = ids.filter((id) => id % 2 === 0 || id > 1500);
    const tx = db.transaction('vectors', 'readwrite');
    await removeVectors(tx as never, [...drop, 999_999]);
    await tx.done;
    const keep = ids.filter((id) => !drop.includes(id));
    expect([...(await stored(db, 'm')).keys()]).toEqual(keep);
    expect([...(await stored(db, 'n')).keys()]).toEqual(keep);

    const index = await loadDenseIndex(db, 'm', DIM);
    expect(index.size).toBe(keep.length);
    for (const id of keep) expect(index.has(id)).toBe(true);
    for (const id of drop) expect(index.has(id)).toBe(false);
    const entry = [...index.entries()].find((e) => e.id === keep[5]);
    expect([...entry!.codes]).toEqual([...vec(keep[5]!).codes]);
    // A resident index of another dimension loads nothing from blocks of this one.
    expect((await loadDenseIndex(db, 'm', DIM + 1)).size).toBe(0);

    await dropModelVectors(db, 'm');
    expect((await stored(db, 'm')).size).toBe(0);
    expect((await stored(db, 'n')).size).toBe(keep.length);
    expect((await loadDenseIndex(db, 'm', DIM)).size).toBe(0);
  });

  it('removing everything of a block deletes the block', async () => {
    const db = await freshDb();
    await queue(db, [5, 6]);
    await storeVectors(db, 'm', DIM, [vec(5), vec(6)], [5, 6]);
    const tx = db.transaction('vectors', 'readwrite');
    await removeVectors(tx as never, [5, 6]);
    await tx.done;
    expect(await db.count('vectors')).toBe(0);
  });
});

describe('the storage tier over IndexedDB', { timeout: 60_000 }, () => {
  const D = 48;
  /** Deterministic unit vectors, quantised. */
  const real = (id: number) => {
    let x = id * 2654435761;
    const v = Array.from({ length: D }, () => {
      x = (Math.imul(x ^ (x >>> 15), 2246822507) + 0x9e3779b9) >>> 0;
      return x / 4294967296 - 0.5 + (id % 7 === 0 ? 0.3 : 0);
    });
    const q = quantize(normalize(v)!);
    return { id, codes: q.codes, scale: q.scale };
  };

  it('loads only sign bits over the budget and answers like the resident tier; removals and additions keep working', async () => {
    const db = await freshDb();
    const ids = Array.from({ length: 1500 }, (_, i) => i * 2 + 1);
    for (let i = 0; i < ids.length; i += 100) {
      const batch = ids.slice(i, i + 100);
      await queue(db, batch);
      await storeVectors(db, 'm', D, batch.map(real), batch);
    }
    const resident = await loadDenseIndex(db, 'm', D);
    expect(resident.tier).toBe('resident');
    const tiered = await loadDenseIndex(db, 'm', D, { residentBudget: 500 * D });
    expect(tiered.tier).toBe('storage');
    expect(tiered.size).toBe(1500);
    expect(tiered.residentBytes).toBeLessThan(resident.residentBytes / 4);
    const queries = [7, 8, 100, 2001].map((id) => {
      const v = real(id);
      return normalize(Array.from(v.codes, (c) => c * v.scale))!;
    });
    const allowed = new Set(ids.filter((id) => id % 3 === 0));
    for (const q of queries) {
      const exhaustive = { k: 10, hamming: 1e9, rerank: 1e9 };
      const a = await tiered.searchAsync(q, exhaustive);
      const b = resident.search(q, exhaustive);
      expect(a.map((h) => h.id)).toEqual(b.map((h) => h.id));
      a.forEach((h, i) => expect(h.score).toBeCloseTo(b[i]!.score, 5));
      const filtered = await tiered.searchAsync(q, { ...exhaustive, allowed });
      expect(filtered.every((h) => allowed.has(h.id))).toBe(true);
      expect(filtered.map((h) => h.id)).toEqual(resident.search(q, { k: 10, allowed }).map((h) => h.id));
    }
    // Remove some (store and index, as the engine does), add new ones: both tiers agree again.
    const drop = ids.filter((id) => id % 5 === 0);
    const tx = db.transaction('vectors', 'readwrite');
    await removeVectors(tx as never, drop);
    await tx.done;
    for (const id of drop) tiered.remove(id);
    const more = [4000, 4002, 4003];
    await queue(db, more);
    for (const e of await storeVectors(db, 'm', D, more.map(real), more)) tiered.add(e.id, e.codes, e.scale);
    const reloaded = await loadDenseIndex(db, 'm', D);
    expect(reloaded.size).toBe(1500 - drop.length + 3);
    const again = await loadDenseIndex(db, 'm', D, { residentBudget: 500 * D });
    expect([...again.liveIds()]).toEqual([...reloaded.liveIds()]);
    for (const q of queries) {
      const want = reloaded.search(q, { k: 10 }).map((h) => h.id);
      expect((await tiered.searchAsync(q, { k: 10, hamming: 1e9, rerank: 1e9 })).map((h) => h.id)).toEqual(want);
      expect((await again.searchAsync(q, { k: 10, hamming: 1e9, rerank: 1e9 })).map((h) => h.id)).toEqual(want);
    }
    // Default parameters (Hamming + estimate, not exhaustive) still find the vector a query was made from.
    const self = await tiered.searchAsync(queries[0]!, { k: 10 });
    expect(self[0]!.id).toBe(7);
    await dropModelVectors(db, 'm');
    expect(await db.count('vectors')).toBe(0);
  });

  it('loads the same index in batches of any size, both tiers, with skipped ids left out', async () => {
    const db = await freshDb();
    const ids = Array.from({ length: 700 }, (_, i) => i * 3 + 2);
    await queue(db, ids);
    await storeVectors(db, 'm', D, ids.map(real), ids);
    const skip = (id: number) => id % 7 === 0;
    const whole = await loadDenseIndex(db, 'm', D, { skip, batch: 1e6 });
    expect(whole.size).toBe(ids.filter((id) => !skip(id)).length);
    const q = normalize(Array.from(real(11).codes, (c) => c * real(11).scale))!;
    for (const batch of [1, 3, 16, 100]) {
      const parts = await loadDenseIndex(db, 'm', D, { skip, batch });
      expect([...parts.liveIds()]).toEqual([...whole.liveIds()]);
      expect(parts.search(q, { k: 20 })).toEqual(whole.search(q, { k: 20 }));
      const tiered = await loadDenseIndex(db, 'm', D, { skip, batch, residentBudget: 10 * D });
      expect(tiered.tier).toBe('storage');
      expect([...tiered.liveIds()]).toEqual([...whole.liveIds()]);
    }
  });

  it('reads codes from id-aligned blocks with one get each, and from blocks of the earlier layout', async () => {
    const db = await freshDb();
    const ids = [3, 17, 18, 40, 41, 42, 1000];
    await queue(db, ids);
    await storeVectors(db, 'm', D, ids.map(real), ids);
    const blocks = (await db.getAll('vectors')).filter((b) => b.m === 'm');
    for (const b of blocks) {
      expect(b.f % VECTOR_BLOCK).toBe(0);
      for (const id of b.ids) expect(id - (id % VECTOR_BLOCK)).toBe(b.f);
    }
    const coarse = (await db.getAll('vectors')).filter((b) => b.m === coarseModel('m'));
    expect(coarse.flatMap((b) => [...b.ids])).toEqual(ids);
    // An earlier-layout block: keyed by its first id, not aligned.
    const legacy = [2001, 2030, 2077].map(real);
    await db.put('vectors', { m: 'm', f: 2001, dim: D, ids: Uint32Array.from(legacy, (e) => e.id), codes: Int8Array.from(legacy.flatMap((e) => [...e.codes])), scales: Float32Array.from(legacy, (e) => e.scale) });
    const reader = new IdbCodeReader(db, 'm');
    const got = await reader.read([17, 42, 1000, 2030, 2077, 5555]);
    expect([...got.keys()].sort((a, b) => a - b)).toEqual([17, 42, 1000, 2030, 2077]);
    expect([...got.get(2030)!.codes]).toEqual([...real(2030).codes]);
    expect([...got.get(42)!.codes]).toEqual([...real(42).codes]);
    expect(got.get(42)!.scale).toBe(Math.fround(real(42).scale));
    // A start finds the legacy vectors without coarse blocks: it loads them and writes their bits.
    const index = await loadDenseIndex(db, 'm', D);
    expect(index.size).toBe(ids.length + 3);
    expect((await db.getAll('vectors')).filter((b) => b.m === coarseModel('m')).flatMap((b) => [...b.ids])).toEqual([...ids, 2001, 2030, 2077]);
    const storage = await loadDenseIndex(db, 'm', D, { residentBudget: 0 });
    expect(storage.tier).toBe('storage');
    expect(storage.size).toBe(ids.length + 3);
  });
});
