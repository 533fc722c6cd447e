/**
 * Vectors in IndexedDB: blocks of up to VECTOR_BLOCK int8 vectors per model, keyed [model, first id],
 * ids sorted inside a block. Blocks make a cold start one getAll of a few hundred records instead of
 * one record per chunk; a chunk's block is found by key (greatest first <= id), never by scanning.
 */
import type { IDBPTransaction, StoreNames } from 'idb';
import { DenseIndex } from '../src/vectors.js';
import type { DB, RereadDB, VectorBlockRecord } from './db.js';

export const VECTOR_BLOCK = 256;

type VectorTx = IDBPTransaction<RereadDB, StoreNames<RereadDB>[], 'readwrite'>;

interface Entry {
  id: number;
  codes: Int8Array;
  scale: number;
}

function unpack(b: VectorBlockRecord): Entry[] {
  const out: Entry[] = [];
  for (let i = 0; i < b.ids.length; i++) out.push({ id: b.ids[i]!, codes: b.codes.slice(i * b.dim, (i + 1) * b.dim), scale: b.scales[i]! });
  return out;
}

function pack(model: string, dim: number, entries: Entry[], first = entries[0]!.id): VectorBlockRecord {
  const codes = new Int8Array(entries.length * dim);
  entries.forEach((e, i) => codes.set(e.codes, i * dim));
  return { m: model, f: first, dim, ids: Uint32Array.from(entries.map((e) => e.id)), codes, scales: Float32Array.from(entries.map((e) => e.scale)) };
}

/** All models that have vector blocks (few: the active one, and the previous one during a switch). */
async function modelsWithVectors(tx: VectorTx): Promise<string[]> {
  const models: string[] = [];
  const store = tx.objectStore('vectors');
  let cursor = await store.openCursor();
  while (cursor) {
    const m = cursor.value.m;
    models.push(m);
    cursor = await store.openCursor(IDBKeyRange.lowerBound([m, Infinity], true));
  }
  return models;
}

/** Removes these chunks' vectors from every model's blocks (inside the caller's transaction). */
export async function removeVectors(tx: VectorTx, ids: readonly number[]): Promise<void> {
  if (!ids.length) return;
  const store = tx.objectStore('vectors');
  const sorted = [...ids].sort((a, b) => a - b);
  for (const m of await modelsWithVectors(tx)) {
    let i = 0;
    while (i < sorted.length) {
      const cursor = await store.openCursor(IDBKeyRange.bound([m, 0], [m, sorted[i]!]), 'prev');
      if (!cursor) {
        i++;
        continue;
      }
      const block = cursor.value;
      const next = await store.openCursor(IDBKeyRange.bound([m, block.f], [m, Infinity], true, false));
      const limit = next ? next.value.f : Infinity;
      const drop = new Set<number>();
      while (i < sorted.length && sorted[i]! < limit) drop.add(sorted[i++]!);
      const kept = unpack(block).filter((e) => !drop.has(e.id));
      if (kept.length === block.ids.length) continue;
      if (kept.length) await store.put(pack(m, block.dim, kept, block.f));
      else await store.delete([m, block.f]);
    }
  }
}

/**
 * Stores vectors for one model and removes the same chunks from the embedding queue, atomically: a
 * worker killed mid-batch either committed the batch (queue entries gone) or not (still queued).
 * Chunks deleted while their batch was being embedded are skipped.
 */
export async function storeVectors(db: DB, model: string, dim: number, entries: readonly Entry[], doneIds: readonly number[]): Promise<Entry[]> {
  // Checked before any write: a wrong-sized vector would throw half-way, after its block was deleted.
  for (const e of entries) if (e.codes.length !== dim) throw new Error(`vector ${e.id} has ${e.codes.length} dims, model ${model} has ${dim}`);
  const tx = db.transaction(['vectors', 'embedQueue', 'chunks'], 'readwrite');
  const store = tx.objectStore('vectors');
  const queue = tx.objectStore('embedQueue');
  // Only chunks still queued for this model (not deleted, not already stored by another run).
  const queued = await Promise.all(doneIds.map((id) => queue.get(id)));
  const stillQueued = new Set(doneIds.filter((_, i) => queued[i]?.model === model));
  const todo = entries.filter((e) => stillQueued.has(e.id)).sort((a, b) => a.id - b.id);
  let i = 0;
  while (i < todo.length) {
    const id = todo[i]!.id;
    let cursor = await store.openCursor(IDBKeyRange.bound([model, 0], [model, id]), 'prev');
    if (!cursor) cursor = await store.openCursor(IDBKeyRange.bound([model, id], [model, Infinity]));
    const block = cursor?.value;
    const next = block ? await store.openCursor(IDBKeyRange.bound([model, block.f], [model, Infinity], true, false)) : null;
    const limit = next ? next.value.f : Infinity;
    const batch: Entry[] = [];
    while (i < todo.length && todo[i]!.id < limit) batch.push(todo[i++]!);
    const merged = new Map<number, Entry>();
    for (const e of block ? unpack(block) : []) merged.set(e.id, e);
    for (const e of batch) merged.set(e.id, e);
    const all = [...merged.values()].sort((a, b) => a.id - b.id);
    if (block) await store.delete([model, block.f]);
    for (let j = 0; j < all.length; j += VECTOR_BLOCK) {
      const part = all.slice(j, j + VECTOR_BLOCK);
      await store.put(pack(model, dim, part, j === 0 && block ? Math.min(block.f, part[0]!.id) : part[0]!.id));
    }
  }
  await Promise.all(doneIds.filter((id) => stillQueued.has(id)).map((id) => queue.delete(id)));
  await tx.done;
  return todo;
}

/** Loads one model's vectors into a resident index (one getAll over its blocks). */
export async function loadDenseIndex(db: DB, model: string, dim: number): Promise<DenseIndex> {
  const blocks = await db.getAll('vectors', IDBKeyRange.bound([model, 0], [model, Infinity]));
  let n = 0;
  for (const b of blocks) n += b.ids.length;
  const index = new DenseIndex(dim, Math.max(1024, n));
  for (const b of blocks) {
    if (b.dim !== dim) continue;
    for (let i = 0; i < b.ids.length; i++) index.add(b.ids[i]!, b.codes.subarray(i * dim, (i + 1) * dim), b.scales[i]!);
  }
  return index;
}

/** Drops every vector of a model (after a switch completes, or when the user removes a model). */
export async function dropModelVectors(db: DB, model: string): Promise<void> {
  await db.delete('vectors', IDBKeyRange.bound([model, 0], [model, Infinity]));
}
