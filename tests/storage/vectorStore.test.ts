import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DB } from '../../background/db.js';
import { WRITE_STORES } from '../../background/pageStore.js';
import { dropModelVectors, loadDenseIndex, removeVectors, storeVectors, VECTOR_BLOCK } from '../../background/vectorStore.js';
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
    const tx = db.transaction([...WRITE_STORES], 'readwrite');
    await removeVectors(tx, [...drop, 999_999]);
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
    const tx = db.transaction([...WRITE_STORES], 'readwrite');
    await removeVectors(tx, [5, 6]);
    await tx.done;
    expect(await db.count('vectors')).toBe(0);
  });
});
