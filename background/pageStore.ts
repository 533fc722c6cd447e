/**
 * Writes and deletes pages: chunks, BM25 postings, statistics and the embedding queue change together
 * in one IndexedDB transaction, or not at all. Work is proportional to the page, not to the index.
 */
import type { IDBPTransaction } from 'idb';
import type { Chunk } from '../src/chunker.js';
import { tokenize, termFrequencies, type TokenizerOptions } from '../src/tokenizer.js';
import { appendToBlock, BLOCK_SIZE, removeFromBlock, type EncodedBlock, type PostingEntry } from '../src/postings.js';
import type { CaptureOutcome } from '../src/protocol.js';
import { EMPTY_STATS, type ChunkRecord, type DB, type PageRecord, type RereadDB, type StatsRecord } from './db.js';
import { removeVectors } from './vectorStore.js';

export interface PageInput {
  url: string;
  site: string;
  title: string;
  lang: string;
  hash: string;
  words: number;
  chunks: readonly Chunk[];
  /** Visit time (epoch ms). */
  now: number;
  /** Model to queue the new chunks for; null when the dense lane is off. */
  embedModel: string | null;
}

export interface WriteResult {
  outcome: CaptureOutcome;
  page: PageRecord;
  /** Terms whose postings changed (the caller's caches drop them). */
  touchedTerms: Set<string>;
  removedChunkIds: number[];
  addedChunkIds: number[];
}

type WriteTx = IDBPTransaction<RereadDB, ('pages' | 'chunks' | 'postings' | 'meta' | 'embedQueue' | 'vectors')[], 'readwrite'>;

export const WRITE_STORES = ['pages', 'chunks', 'postings', 'meta', 'embedQueue', 'vectors'] as const;

/** The text embedded for a chunk: the page title folded in, so title words find every section. */
export function indexedText(title: string, chunkText: string): string {
  return title ? `${title}\n${chunkText}` : chunkText;
}

/**
 * Title and heading-path terms count this many times in a chunk (a BM25F-style field weight). 3 was
 * chosen on training data (SciFact train, Python-manual odd ids): nDCG@10 0.686 / 0.687 against
 * 0.683 / 0.642 without (see tests/eval/README.md).
 */
export const FIELD_BOOST = 3;

/** The terms BM25 indexes for a chunk. Writes, deletes and verification must all use this. */
export function indexedTerms(title: string, chunk: { text: string; headingPath: readonly string[] }, tok: TokenizerOptions): string[] {
  const terms = tokenize(indexedText(title, chunk.text), tok);
  const fields = tokenize(`${title}\n${chunk.headingPath.join(' > ')}`, tok);
  for (let r = 1; r < FIELD_BOOST; r++) for (const t of fields) terms.push(t);
  return terms;
}

export async function readStats(tx: { objectStore(name: 'meta'): { get(key: string): Promise<unknown> } }): Promise<StatsRecord> {
  const s = (await tx.objectStore('meta').get('stats')) as StatsRecord | undefined;
  return s ? { ...s } : { ...EMPTY_STATS };
}

/** Term -> entries for a set of chunks, each list sorted by chunk id. */
function groupPostings(docs: readonly { id: number; terms: string[] }[]): Map<string, PostingEntry[]> {
  const byTerm = new Map<string, PostingEntry[]>();
  for (const d of docs) {
    const len = d.terms.length;
    for (const [term, tf] of termFrequencies(d.terms)) {
      let list = byTerm.get(term);
      if (!list) byTerm.set(term, (list = []));
      list.push({ id: d.id, tf, len });
    }
  }
  return byTerm;
}

function toBlock(r: { f: number; n: number; d: Uint8Array }): EncodedBlock {
  return { first: r.f, n: r.n, data: r.d };
}

/** Removes chunk ids from one term's blocks: one keyed lookup per block touched. */
async function removeTermPostings(tx: WriteTx, term: string, ids: number[]): Promise<void> {
  const store = tx.objectStore('postings');
  const sorted = [...ids].sort((a, b) => a - b);
  let i = 0;
  while (i < sorted.length) {
    const id = sorted[i]!;
    const cursor = await store.openCursor(IDBKeyRange.bound([term, 0], [term, id]), 'prev');
    if (!cursor) {
      i++; // not indexed under this term (should not happen; verifyIndex would report it)
      continue;
    }
    const block = toBlock(cursor.value);
    const inBlock = new Set<number>();
    // The block holds ids up to the next block's first; take every pending id below that.
    const next = await store.openCursor(IDBKeyRange.bound([term, block.first], [term, Infinity], true, false));
    const limit = next ? next.value.f : Infinity;
    while (i < sorted.length && sorted[i]! < limit) inBlock.add(sorted[i++]!);
    const kept = removeFromBlock(block, inBlock);
    if (kept) await store.put({ t: term, f: kept.first, n: kept.n, d: kept.data });
    else await store.delete([term, block.first]);
  }
}

async function appendTermPostings(tx: WriteTx, term: string, entries: PostingEntry[]): Promise<void> {
  const store = tx.objectStore('postings');
  const cursor = await store.openCursor(IDBKeyRange.bound([term, 0], [term, Infinity]), 'prev');
  const last = cursor && cursor.value.n < BLOCK_SIZE ? toBlock(cursor.value) : undefined;
  for (const b of appendToBlock(last, entries)) await store.put({ t: term, f: b.first, n: b.n, d: b.data });
}

async function removeChunks(tx: WriteTx, chunks: readonly ChunkRecord[], titleOf: (c: ChunkRecord) => string, tok: TokenizerOptions, stats: StatsRecord, touched: Set<string>): Promise<void> {
  if (!chunks.length) return;
  const docs = chunks.map((c) => ({ id: c.id, terms: indexedTerms(titleOf(c), c, tok) }));
  const byTerm = groupPostings(docs);
  await Promise.all([...byTerm].map(([term, entries]) => removeTermPostings(tx, term, entries.map((e) => e.id))));
  for (const t of byTerm.keys()) touched.add(t);
  for (const d of docs) {
    stats.N -= 1;
    stats.totalLength -= d.terms.length;
  }
  const chunkStore = tx.objectStore('chunks');
  const queue = tx.objectStore('embedQueue');
  await Promise.all(chunks.flatMap((c) => [chunkStore.delete(c.id), queue.delete(c.id)]));
  await removeVectors(tx, chunks.map((c) => c.id));
}

/**
 * Runs `body` against `tx` and aborts the transaction if it throws. An exception thrown between
 * requests (not by a request) does not abort an IndexedDB transaction: without this, the requests
 * already made would commit and leave half a write behind.
 */
async function allOrNothing<T>(tx: WriteTx, body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (e) {
    tx.done.catch(() => undefined);
    try {
      tx.abort();
    } catch {
      // Already aborted by a failed request, or finished.
    }
    throw e;
  }
}

export async function writePage(db: DB, input: PageInput, tok: TokenizerOptions): Promise<WriteResult> {
  // Tokenize before the transaction opens: nothing but IndexedDB requests may be awaited inside it.
  const newDocs = input.chunks.map((c) => indexedTerms(input.title, c, tok));
  const tx = db.transaction([...WRITE_STORES], 'readwrite');
  return allOrNothing(tx, () => writePageIn(tx, input, newDocs, tok));
}

async function writePageIn(tx: WriteTx, input: PageInput, newDocs: string[][], tok: TokenizerOptions): Promise<WriteResult> {
  const touched = new Set<string>();
  const old = await tx.objectStore('pages').get(input.url);
  if (old && old.hash === input.hash) {
    const page = { ...old, lastVisit: Math.max(old.lastVisit, input.now), visitCount: old.visitCount + 1 };
    await tx.objectStore('pages').put(page);
    await tx.done;
    return { outcome: 'revisit', page, touchedTerms: touched, removedChunkIds: [], addedChunkIds: [] };
  }
  const stats = await readStats(tx);
  const oldChunks = old ? ((await Promise.all(old.chunkIds.map((id) => tx.objectStore('chunks').get(id)))).filter(Boolean) as ChunkRecord[]) : [];
  await removeChunks(tx, oldChunks, () => old?.title ?? '', tok, stats, touched);

  const ids: number[] = [];
  const records: ChunkRecord[] = input.chunks.map((c, i) => {
    const id = stats.nextChunkId++;
    ids.push(id);
    return { id, url: input.url, ord: c.ord, headingPath: c.headingPath, section: c.section, anchor: c.anchor, text: c.text, len: newDocs[i]!.length };
  });
  const byTerm = groupPostings(records.map((r, i) => ({ id: r.id, terms: newDocs[i]! })));
  await Promise.all([...byTerm].map(([term, entries]) => appendTermPostings(tx, term, entries)));
  for (const t of byTerm.keys()) touched.add(t);
  const chunkStore = tx.objectStore('chunks');
  const queue = tx.objectStore('embedQueue');
  await Promise.all(records.map((r) => chunkStore.put(r)));
  if (input.embedModel) await Promise.all(records.map((r) => queue.put({ id: r.id, model: input.embedModel! })));
  for (const d of newDocs) {
    stats.N += 1;
    stats.totalLength += d.length;
  }
  const page: PageRecord = {
    url: input.url,
    site: input.site,
    title: input.title,
    lang: input.lang,
    firstVisit: old ? Math.min(old.firstVisit, input.now) : input.now,
    lastVisit: old ? Math.max(old.lastVisit, input.now) : input.now,
    visitCount: (old?.visitCount ?? 0) + 1,
    hash: input.hash,
    chunkIds: ids,
    words: input.words,
  };
  await tx.objectStore('pages').put(page);
  await tx.objectStore('meta').put(stats, 'stats');
  await tx.done;
  return { outcome: old ? 'changed' : 'new', page, touchedTerms: touched, removedChunkIds: oldChunks.map((c) => c.id), addedChunkIds: ids };
}

export interface DeleteResult {
  pages: PageRecord[];
  touchedTerms: Set<string>;
  removedChunkIds: number[];
}

/** Deletes pages (and everything derived from them) in one transaction. */
export async function deletePages(db: DB, urls: readonly string[], tok: TokenizerOptions): Promise<DeleteResult> {
  const tx = db.transaction([...WRITE_STORES], 'readwrite');
  return allOrNothing(tx, () => deletePagesIn(tx, urls, tok));
}

async function deletePagesIn(tx: WriteTx, urls: readonly string[], tok: TokenizerOptions): Promise<DeleteResult> {
  const touched = new Set<string>();
  const stats = await readStats(tx);
  const pages = (await Promise.all(urls.map((u) => tx.objectStore('pages').get(u)))).filter(Boolean) as PageRecord[];
  const removed: number[] = [];
  for (const page of pages) {
    const chunks = (await Promise.all(page.chunkIds.map((id) => tx.objectStore('chunks').get(id)))).filter(Boolean) as ChunkRecord[];
    await removeChunks(tx, chunks, () => page.title, tok, stats, touched);
    removed.push(...chunks.map((c) => c.id));
    await tx.objectStore('pages').delete(page.url);
  }
  await tx.objectStore('meta').put(stats, 'stats');
  await tx.done;
  return { pages, touchedTerms: touched, removedChunkIds: removed };
}

/** Bumps the visit of an already stored page without touching its content. */
export async function recordVisit(db: DB, url: string, now: number): Promise<PageRecord | undefined> {
  const tx = db.transaction('pages', 'readwrite');
  const page = await tx.store.get(url);
  if (page) await tx.store.put({ ...page, lastVisit: Math.max(page.lastVisit, now), visitCount: page.visitCount + 1 });
  await tx.done;
  return page;
}
