/**
 * Vectors in IndexedDB, two record kinds in the `vectors` store (key [m, f]), written together in the
 * same transactions:
 *
 * - exact blocks, m = model: the int8 codes and scales of the vectors whose chunk ids fall in
 *   [f, f + VECTOR_BLOCK), f a multiple of VECTOR_BLOCK, ids sorted inside. Small, id-aligned blocks let
 *   the storage tier fetch a candidate's codes with one get on a computed key (a few hundred scattered
 *   candidates: one read-only transaction of parallel gets; see tests/bench/dense for the layouts measured).
 * - coarse blocks, m = coarseModel(model): the sign bits of the same vectors (ceil(dim / 32) 32-bit
 *   words a vector, as bytes in `codes`; their `dim` is that byte width, so code that slices any block by
 *   `dim`, as verify's repair does, stays right), COARSE_BLOCK ids a block. A start over the memory budget
 *   loads only these (1M × 384 dims: ~1,000 records, 48 MB) instead of the 384 MB of codes.
 *
 * Blocks written by earlier layouts (up to 256 vectors, keyed by their first id) are still read and
 * removed correctly; a start that finds exact blocks without coarse ones writes the coarse ones.
 */
import type { IDBPTransaction, StoreNames } from 'idb';
import { DEFAULT_RESIDENT_BUDGET, DenseIndex, signBits, type CodeReader } from '../src/vectors.js';
import type { DB, RereadDB, VectorBlockRecord } from './db.js';

/** Ids per exact block (id-aligned): 16 × 384 B ≈ 6 KB records. */
export const VECTOR_BLOCK = 16;
/** Ids per coarse block (id-aligned): 1,024 × 48 B ≈ 50 KB records for 384 dims. */
export const COARSE_BLOCK = 1024;

/** The m of a model's coarse blocks (no model id contains a NUL). */
export function coarseModel(model: string): string {
  return `${model}\u0000bits`;
}

type VectorTx = IDBPTransaction<RereadDB, StoreNames<RereadDB>[], 'readwrite'>;

interface Entry {
  id: number;
  codes: Int8Array;
  scale: number;
}

const range = (m: string) => IDBKeyRange.bound([m, 0], [m, Infinity]);

function unpack(b: VectorBlockRecord): Entry[] {
  const width = b.ids.length ? b.codes.length / b.ids.length : 0;
  const out: Entry[] = [];
  for (let i = 0; i < b.ids.length; i++) out.push({ id: b.ids[i]!, codes: b.codes.slice(i * width, (i + 1) * width), scale: b.scales[i]! });
  return out;
}

/** `dim`: the model's dimension for exact blocks, the byte width of the bits for coarse ones. */
function pack(m: string, dim: number, entries: readonly Entry[], first: number): VectorBlockRecord {
  const width = entries[0]!.codes.length;
  const codes = new Int8Array(entries.length * width);
  entries.forEach((e, i) => codes.set(e.codes, i * width));
  return { m, f: first, dim, ids: Uint32Array.from(entries, (e) => e.id), codes, scales: Float32Array.from(entries, (e) => e.scale) };
}

/** Bytes of sign bits a vector. */
export const coarseWidth = (dim: number) => Math.ceil(dim / 32) * 4;

/** A vector's coarse code as stored: its sign bits' bytes. */
function coarseEntry(e: Entry): Entry {
  const words = new Uint32Array(Math.ceil(e.codes.length / 32));
  signBits(e.codes, words, 0);
  return { id: e.id, codes: new Int8Array(words.buffer), scale: e.scale };
}

/**
 * Records for vectors not stored yet (ascending ids, none already present): exact and coarse blocks.
 * storeVectors merges into existing blocks; this is for bulk writes into an empty model (benchmarks).
 */
export function vectorRecords(model: string, dim: number, sorted: readonly Entry[], block = VECTOR_BLOCK): VectorBlockRecord[] {
  const out: VectorBlockRecord[] = [];
  const group = (m: string, size: number, entries: readonly Entry[], width = dim) => {
    let i = 0;
    while (i < entries.length) {
      const f = entries[i]!.id - (entries[i]!.id % size);
      const part: Entry[] = [];
      while (i < entries.length && entries[i]!.id < f + size) part.push(entries[i++]!);
      out.push(pack(m, width, part, f));
    }
  };
  group(model, block, sorted);
  group(coarseModel(model), COARSE_BLOCK, sorted.map(coarseEntry), coarseWidth(dim));
  return out;
}

/** Every m in the store: models and their coarse kinds (few: the active model, and the previous one during a switch). */
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

/** Removes these chunks' vectors (both kinds) from every model's blocks (inside the caller's transaction). */
export async function removeVectors(tx: VectorTx, ids: readonly number[]): Promise<void> {
  if (!ids.length) return;
  const store = tx.objectStore('vectors');
  const sorted = [...ids].sort((a, b) => a - b);
  for (const m of await modelsWithVectors(tx)) {
    let i = 0;
    while (i < sorted.length) {
      // The block holding sorted[i], whatever the layout: the greatest first id <= it.
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

/** Merges entries (ascending ids) into id-aligned blocks of `size` under m. */
async function mergeAligned(tx: VectorTx, m: string, dim: number, size: number, todo: readonly Entry[]): Promise<void> {
  const store = tx.objectStore('vectors');
  let i = 0;
  while (i < todo.length) {
    const f = todo[i]!.id - (todo[i]!.id % size);
    const batch: Entry[] = [];
    while (i < todo.length && todo[i]!.id < f + size) batch.push(todo[i++]!);
    const block = await store.get([m, f]);
    const merged = new Map<number, Entry>();
    for (const e of block ? unpack(block) : []) merged.set(e.id, e);
    for (const e of batch) merged.set(e.id, e);
    await store.put(pack(m, dim, [...merged.values()].sort((a, b) => a.id - b.id), f));
  }
}

/**
 * Stores vectors for one model and removes the same chunks from the embedding queue, atomically: a
 * worker killed mid-batch either committed the batch (queue entries gone) or not (still queued).
 * Chunks deleted while their batch was being embedded are skipped.
 */
export async function storeVectors(db: DB, model: string, dim: number, entries: readonly Entry[], doneIds: readonly number[]): Promise<Entry[]> {
  // Checked before any write: a wrong-sized vector would throw half-way.
  for (const e of entries) if (e.codes.length !== dim) throw new Error(`vector ${e.id} has ${e.codes.length} dims, model ${model} has ${dim}`);
  // Not 'sections' (nor a migrating database's 'chunks'): a deleted section's queue entry goes with it
  // (pageStore), which is what is checked here, and a read-write transaction over the section stores
  // would hold every search's reads of its results until it commits.
  const tx = db.transaction(['vectors', 'embedQueue'], 'readwrite');
  const queue = tx.objectStore('embedQueue');
  // Only chunks still queued for this model (not deleted, not already stored by another run).
  const queued = await Promise.all(doneIds.map((id) => queue.get(id)));
  const stillQueued = new Set(doneIds.filter((_, i) => queued[i]?.model === model));
  const todo = entries.filter((e) => stillQueued.has(e.id)).sort((a, b) => a.id - b.id);
  await mergeAligned(tx as unknown as VectorTx, model, dim, VECTOR_BLOCK, todo);
  await mergeAligned(tx as unknown as VectorTx, coarseModel(model), coarseWidth(dim), COARSE_BLOCK, todo.map(coarseEntry));
  await Promise.all(doneIds.filter((id) => stillQueued.has(id)).map((id) => queue.delete(id)));
  await tx.done;
  return todo;
}

/**
 * Reads candidates' int8 codes for the storage tier: one read-only transaction, one get per distinct
 * aligned block, all in flight at once; an id not where its aligned key says (a block of an earlier
 * layout) is looked up by the greatest first id <= it.
 */
export class IdbCodeReader implements CodeReader {
  /** Reads done and records fetched, for measurements. */
  reads = 0;
  records = 0;

  constructor(
    private readonly db: DB,
    readonly model: string,
    readonly block = VECTOR_BLOCK,
  ) {}

  async read(ids: readonly number[]): Promise<Map<number, { codes: Int8Array; scale: number }>> {
    const out = new Map<number, { codes: Int8Array; scale: number }>();
    if (!ids.length) return out;
    const store = this.db.transaction('vectors').store;
    const keys = [...new Set(ids.map((id) => id - (id % this.block)))];
    const blocks = await Promise.all(keys.map((f) => store.get([this.model, f])));
    this.reads++;
    this.records += keys.length;
    const byKey = new Map<number, VectorBlockRecord>();
    keys.forEach((f, i) => blocks[i] && byKey.set(f, blocks[i]));
    const missing: number[] = [];
    const take = (b: VectorBlockRecord, id: number): boolean => {
      const i = lowerBound(b.ids, id);
      if (b.ids[i] !== id) return false;
      out.set(id, { codes: b.codes.subarray(i * b.dim, (i + 1) * b.dim), scale: b.scales[i]! });
      return true;
    };
    for (const id of ids) {
      const b = byKey.get(id - (id % this.block));
      if (!b || !take(b, id)) missing.push(id);
    }
    for (const id of missing) {
      const cursor = await store.openCursor(IDBKeyRange.bound([this.model, 0], [this.model, id]), 'prev');
      if (cursor) take(cursor.value, id);
    }
    return out;
  }
}

function lowerBound(a: Uint32Array, x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export interface LoadOptions {
  /** Bytes of int8 codes kept resident (default DEFAULT_RESIDENT_BUDGET); beyond, the storage tier. */
  residentBudget?: number;
  /** Ids not to load (sections forgotten, their vectors not swept yet). */
  skip?: (id: number) => boolean;
  /** Records a read (default LOAD_BATCH). */
  batch?: number;
}

/**
 * Records a read while loading: each read its own transaction, so a search's reads (postings, sections)
 * wait for one batch at most, not for the whole load (IndexedDB serves a database's requests in order).
 * 256 exact blocks: 4,096 vectors, 1.6 MB of codes at 384 dims.
 */
export const LOAD_BATCH = 256;

/** Every record of m, in batches of `batch` records, each batch read in its own transaction. */
async function readBatched(db: DB, m: string, batch: number, each: (b: VectorBlockRecord) => void): Promise<void> {
  let from = 0;
  let open = false;
  for (;;) {
    const part = await db.getAll('vectors', IDBKeyRange.bound([m, from], [m, Infinity], open, false), batch);
    for (const b of part) each(b);
    if (part.length < batch) return;
    from = part[part.length - 1]!.f;
    open = true;
  }
}

/**
 * Loads one model's vectors into an index with a reader attached. Within the budget: the exact blocks
 * (resident tier). Beyond it: the coarse blocks only (storage tier). Read in batches (readBatched), not
 * as one snapshot: vectors stored or removed meanwhile are for the caller to apply after (DenseService
 * logs them while its load runs).
 */
export async function loadDenseIndex(db: DB, model: string, dim: number, opts: LoadOptions = {}): Promise<DenseIndex> {
  const budget = opts.residentBudget ?? DEFAULT_RESIDENT_BUDGET;
  const skip = opts.skip ?? (() => false);
  const batch = Math.max(1, opts.batch ?? LOAD_BATCH);
  const words = Math.ceil(dim / 32);
  const width = coarseWidth(dim);
  // Coarse blocks do not record the model's dimension: the active model's id fixes it. Read first (1/32
  // of the exact blocks' bytes at 384 dims): their count decides the tier.
  let n = 0;
  let coarseStored = 0;
  const coarse: VectorBlockRecord[] = [];
  await readBatched(db, coarseModel(model), Math.max(1, batch >> 4), (b) => {
    if (b.dim !== width) return;
    coarse.push(b);
    coarseStored += b.ids.length;
    for (const id of b.ids) if (!skip(id)) n++;
  });
  const reader = new IdbCodeReader(db, model);
  if (n * dim > budget) {
    const index = new DenseIndex(dim, n, 'storage');
    index.residentBudget = budget;
    for (const b of coarse) {
      const bits = new Uint32Array(b.codes.buffer, b.codes.byteOffset, b.ids.length * words);
      for (let i = 0; i < b.ids.length; i++) if (!skip(b.ids[i]!)) index.addBits(b.ids[i]!, bits.subarray(i * words, (i + 1) * words));
    }
    index.attachReader(reader);
    return index;
  }
  coarse.length = 0;
  const index = new DenseIndex(dim, Math.max(1024, n));
  index.residentBudget = budget;
  let stored = 0;
  await readBatched(db, model, batch, (b) => {
    if (b.dim !== dim) return;
    stored += b.ids.length;
    index.addBlock(b.ids, b.codes, b.scales, skip);
  });
  if (stored > 0 && coarseStored !== stored) await rewriteCoarse(db, model, dim);
  index.attachReader(reader);
  return index;
}

/**
 * Coarse blocks missing or out of step (an earlier layout): rewritten from the exact ones, read and
 * written in one transaction (the batched load's counts may have moved with a write between batches;
 * this checks them again on one snapshot and rewrites only if they still differ).
 */
async function rewriteCoarse(db: DB, model: string, dim: number): Promise<void> {
  const tx = db.transaction('vectors', 'readwrite');
  const [blocks, coarse] = await Promise.all([tx.store.getAll(range(model)), tx.store.getAll(range(coarseModel(model)))]);
  const exact = blocks.filter((b) => b.dim === dim);
  const count = (bs: VectorBlockRecord[]) => bs.reduce((s, b) => s + b.ids.length, 0);
  if (count(exact) !== count(coarse.filter((b) => b.dim === coarseWidth(dim)))) {
    const all = exact.flatMap(unpack).sort((a, b) => a.id - b.id);
    await tx.store.delete(range(coarseModel(model)));
    await Promise.all(vectorRecords(model, dim, all).filter((r) => r.m !== model).map((r) => tx.store.put(r)));
  }
  await tx.done;
}

/** Drops every vector of a model, both kinds (after a switch completes, or when the user removes a model). */
export async function dropModelVectors(db: DB, model: string): Promise<void> {
  const tx = db.transaction('vectors', 'readwrite');
  await Promise.all([tx.store.delete(range(model)), tx.store.delete(range(coarseModel(model)))]);
  await tx.done;
}
