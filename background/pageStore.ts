/**
 * Writes and deletes pages: chunks, BM25 postings, statistics and the embedding queue change together
 * in one IndexedDB transaction, or not at all. Work is proportional to the page, not to the index.
 */
import type { IDBPTransaction } from 'idb';
import type { Chunk } from '../src/chunker.js';
import type { TokenizerOptions } from '../src/tokenizer.js';
import { indexSection, type IndexedSection } from '../src/indexing.js';
import { appendToBlock, BLOCK_SIZE, removeFromBlock, type EncodedBlock, type PostingEntry } from '../src/postings.js';
import type { CaptureOutcome } from '../src/protocol.js';
import { addVisit } from '../src/forget.js';
import { EMPTY_STATS, type ChunkRecord, type DB, type PageRecord, type RereadDB, type StatsRecord } from './db.js';
import { removeVectors } from './vectorStore.js';
import { forgetAllTexts, forgetTexts, packTexts, withTexts } from './sectionTexts.js';

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

type WriteTx = IDBPTransaction<RereadDB, ('pages' | 'chunks' | 'texts' | 'postings' | 'meta' | 'embedQueue' | 'vectors')[], 'readwrite'>;

export const WRITE_STORES = ['pages', 'chunks', 'texts', 'postings', 'meta', 'embedQueue', 'vectors'] as const;

export async function readStats(tx: { objectStore(name: 'meta'): { get(key: string): Promise<unknown> } }): Promise<StatsRecord> {
  const s = (await tx.objectStore('meta').get('stats')) as StatsRecord | undefined;
  return s ? { ...s } : { ...EMPTY_STATS };
}

/** Term -> entries for a set of chunks (in ascending id order), each list sorted by chunk id. */
export function groupPostings(docs: readonly { id: number; doc: IndexedSection }[]): Map<string, PostingEntry[]> {
  const byTerm = new Map<string, PostingEntry[]>();
  for (const d of docs) {
    const len = d.doc.len;
    for (const [term, tf] of d.doc.tfs) {
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

/**
 * Each term's last posting block as stored, kept in memory so that appending a page's postings is puts
 * only (a cursor read per term per page was half the write time in Chromium). Valid only while the
 * stored stats carry this cache's token: a write that aborted, a repair, delete-all or a writer in
 * another context leaves the token out or different, and the cache starts over (reading tails again).
 * null = the term has no block.
 */
interface TailCache {
  token: string;
  tails: Map<string, EncodedBlock | null>;
  bytes: number;
}
const TAIL_CACHE_MAX_BYTES = 16_000_000;
const tailCaches = new WeakMap<DB, TailCache>();

function newToken(): string {
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
}

function tailCacheFor(db: DB, stats: StatsRecord): TailCache {
  let c = tailCaches.get(db);
  if (!c || stats.tail !== c.token) {
    c = { token: newToken(), tails: new Map(), bytes: 0 };
    tailCaches.set(db, c);
  }
  return c;
}

function forgetTails(db: DB): void {
  tailCaches.delete(db);
}

/** Drops every in-memory copy of stored text and terms (after "forget everything"). */
export function forgetCaches(db: DB): void {
  forgetTails(db);
  forgetAllTexts(db);
}

function setTail(c: TailCache, term: string, block: EncodedBlock | null): void {
  const old = c.tails.get(term);
  if (old) c.bytes -= old.data.byteLength + term.length * 2 + 32;
  c.tails.delete(term); // re-insert: Map order is the LRU order
  c.tails.set(term, block);
  if (block) c.bytes += block.data.byteLength + term.length * 2 + 32;
  for (const [t, b] of c.tails) {
    if (c.bytes <= TAIL_CACHE_MAX_BYTES) break;
    c.tails.delete(t);
    if (b) c.bytes -= b.data.byteLength + t.length * 2 + 32;
  }
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

async function appendTermPostings(tx: WriteTx, tails: TailCache, term: string, entries: PostingEntry[]): Promise<void> {
  const store = tx.objectStore('postings');
  let last = tails.tails.get(term);
  if (last === undefined) {
    const cursor = await store.openCursor(IDBKeyRange.bound([term, 0], [term, Infinity]), 'prev');
    last = cursor ? toBlock(cursor.value) : null;
  }
  const blocks = appendToBlock(last && last.n < BLOCK_SIZE ? last : undefined, entries);
  setTail(tails, term, blocks[blocks.length - 1]!);
  await Promise.all(blocks.map((b) => store.put({ t: term, f: b.first, n: b.n, d: b.data })));
}

/** A stored page as it was read before its write transaction, with what removing it takes. */
interface OldPage {
  page: PageRecord;
  chunks: ChunkRecord[];
  docs: { id: number; doc: IndexedSection }[];
}

/** The page was changed by someone else between the read and the write: read again and retry. */
class StalePage extends Error {}

/**
 * Reads pages and the terms of their chunks before the write transaction opens: chunk text has to be
 * decompressed, which cannot happen inside a transaction. The transaction checks nothing changed.
 */
async function readOldPages(db: DB, urls: readonly string[], tok: TokenizerOptions): Promise<Map<string, OldPage>> {
  const tx = db.transaction(['pages', 'chunks']);
  const pages = (await Promise.all(urls.map((u) => tx.objectStore('pages').get(u)))).filter((p): p is PageRecord => !!p);
  const chunks = await Promise.all(pages.map(async (p) => (await Promise.all(p.chunkIds.map((id) => tx.objectStore('chunks').get(id)))).filter((c): c is ChunkRecord => !!c)));
  await tx.done;
  const out = new Map<string, OldPage>();
  await Promise.all(
    pages.map(async (page, i) => {
      const cs = await withTexts(db, chunks[i]!);
      out.set(page.url, { page, chunks: chunks[i]!, docs: cs.map((c) => ({ id: c.id, doc: indexSection(page.title, c, tok) })) });
    }),
  );
  return out;
}

function samePage(a: PageRecord | undefined, b: PageRecord | undefined): boolean {
  return a === b || (!!a && !!b && a.hash === b.hash && a.title === b.title && a.chunkIds.join() === b.chunkIds.join());
}

async function removeChunks(tx: WriteTx, old: OldPage, stats: StatsRecord, touched: Set<string>, tails: TailCache): Promise<void> {
  await tx.objectStore('texts').delete(old.page.url);
  if (!old.chunks.length) return;
  const byTerm = groupPostings(old.docs);
  for (const t of byTerm.keys()) tails.tails.delete(t); // their blocks change here; re-read on append
  await Promise.all([...byTerm].map(([term, entries]) => removeTermPostings(tx, term, entries.map((e) => e.id))));
  for (const t of byTerm.keys()) touched.add(t);
  for (const d of old.docs) {
    stats.N -= 1;
    stats.totalLength -= d.doc.len;
  }
  const chunkStore = tx.objectStore('chunks');
  const queue = tx.objectStore('embedQueue');
  await Promise.all(old.chunks.flatMap((c) => [chunkStore.delete(c.id), queue.delete(c.id)]));
  await removeVectors(tx, old.chunks.map((c) => c.id));
}

/**
 * Runs `body` against `tx` and aborts the transaction if it throws. An exception thrown between
 * requests (not by a request) does not abort an IndexedDB transaction: without this, the requests
 * already made would commit and leave half a write behind. The posting-tail cache may hold blocks of
 * the aborted write, so it is dropped.
 */
async function allOrNothing<T>(db: DB, tx: WriteTx, body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (e) {
    forgetTails(db);
    tx.done.catch(() => undefined);
    try {
      tx.abort();
    } catch {
      // Already aborted by a failed request, or finished.
    }
    throw e;
  }
}

/** Runs a read-then-write attempt again when the page changed in between (never, with the engine's lock). */
async function retryStale<T>(attempt: () => Promise<T>): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await attempt();
    } catch (e) {
      if (!(e instanceof StalePage) || i >= 4) throw e;
    }
  }
}

export async function writePage(db: DB, input: PageInput, tok: TokenizerOptions): Promise<WriteResult> {
  // Tokenize and compress before the transaction opens: nothing but IndexedDB requests may be awaited inside it.
  const newDocs = input.chunks.map((c) => indexSection(input.title, c, tok));
  const z = input.chunks.length ? await packTexts(input.chunks.map((c) => c.text)) : null;
  return retryStale(async () => {
    const current = await db.get('pages', input.url);
    // A revisit with unchanged content needs nothing of the old chunks.
    const old = current && current.hash !== input.hash ? (await readOldPages(db, [input.url], tok)).get(input.url) : undefined;
    const tx = db.transaction([...WRITE_STORES], 'readwrite');
    const result = await allOrNothing(db, tx, () => writePageIn(db, tx, input, newDocs, z, current, old));
    if (result.removedChunkIds.length) forgetTexts(db, result.removedChunkIds);
    return result;
  });
}

async function writePageIn(db: DB, tx: WriteTx, input: PageInput, newDocs: IndexedSection[], z: Uint8Array | null, readBefore: PageRecord | undefined, old: OldPage | undefined): Promise<WriteResult> {
  const touched = new Set<string>();
  const cur = await tx.objectStore('pages').get(input.url);
  if (!samePage(cur, readBefore) || (cur && cur.hash !== input.hash && !samePage(cur, old?.page))) throw new StalePage();
  if (cur && cur.hash === input.hash) {
    const page = { ...cur, lastVisit: Math.max(cur.lastVisit, input.now), visitCount: cur.visitCount + 1, visits: addVisit(cur.visits, input.now) };
    await tx.objectStore('pages').put(page);
    await tx.done;
    return { outcome: 'revisit', page, touchedTerms: touched, removedChunkIds: [], addedChunkIds: [] };
  }
  const stats = await readStats(tx);
  const tails = tailCacheFor(db, stats);
  if (old) await removeChunks(tx, old, stats, touched, tails);

  const ids: number[] = [];
  const records: ChunkRecord[] = input.chunks.map((c, i) => {
    const id = stats.nextChunkId++;
    ids.push(id);
    return { id, url: input.url, ord: c.ord, headingPath: c.headingPath, section: c.section, anchor: c.anchor, ...(c.parts ? { parts: c.parts } : {}), len: newDocs[i]!.len };
  });
  const byTerm = groupPostings(records.map((r, i) => ({ id: r.id, doc: newDocs[i]! })));
  const puts: Promise<unknown>[] = [...byTerm].map(([term, entries]) => appendTermPostings(tx, tails, term, entries));
  for (const t of byTerm.keys()) touched.add(t);
  const chunkStore = tx.objectStore('chunks');
  const queue = tx.objectStore('embedQueue');
  for (const r of records) puts.push(chunkStore.put(r));
  if (z) puts.push(tx.objectStore('texts').put({ url: input.url, ids, z }));
  if (input.embedModel) for (const r of records) puts.push(queue.put({ id: r.id, model: input.embedModel }));
  await Promise.all(puts);
  for (const d of newDocs) {
    stats.N += 1;
    stats.totalLength += d.len;
  }
  const page: PageRecord = {
    url: input.url,
    site: input.site,
    title: input.title,
    lang: input.lang,
    firstVisit: cur ? Math.min(cur.firstVisit, input.now) : input.now,
    lastVisit: cur ? Math.max(cur.lastVisit, input.now) : input.now,
    visitCount: (cur?.visitCount ?? 0) + 1,
    visits: addVisit(cur?.visits, input.now),
    hash: input.hash,
    chunkIds: ids,
    words: input.words,
  };
  await tx.objectStore('pages').put(page);
  await tx.objectStore('meta').put({ ...stats, tail: tails.token }, 'stats');
  await tx.done;
  return { outcome: cur ? 'changed' : 'new', page, touchedTerms: touched, removedChunkIds: old?.chunks.map((c) => c.id) ?? [], addedChunkIds: ids };
}

export interface DeleteResult {
  pages: PageRecord[];
  touchedTerms: Set<string>;
  removedChunkIds: number[];
}

/** Deletes pages (and everything derived from them) in one transaction. */
export async function deletePages(db: DB, urlList: readonly string[], tok: TokenizerOptions): Promise<DeleteResult> {
  const urls = [...new Set(urlList)];
  return retryStale(async () => {
    const old = await readOldPages(db, urls, tok);
    const tx = db.transaction([...WRITE_STORES], 'readwrite');
    const result = await allOrNothing(db, tx, () => deletePagesIn(db, tx, urls, old));
    forgetTexts(db, result.removedChunkIds);
    return result;
  });
}

async function deletePagesIn(db: DB, tx: WriteTx, urls: readonly string[], old: Map<string, OldPage>): Promise<DeleteResult> {
  const touched = new Set<string>();
  const stats = await readStats(tx);
  const tails = tailCacheFor(db, stats);
  const pages = (await Promise.all(urls.map((u) => tx.objectStore('pages').get(u)))).filter(Boolean) as PageRecord[];
  if (pages.length !== old.size || !pages.every((p) => samePage(p, old.get(p.url)?.page))) throw new StalePage();
  const removed: number[] = [];
  for (const page of pages) {
    const o = old.get(page.url)!;
    await removeChunks(tx, o, stats, touched, tails);
    removed.push(...o.chunks.map((c) => c.id));
    await tx.objectStore('pages').delete(page.url);
  }
  await tx.objectStore('meta').put({ ...stats, tail: tails.token }, 'stats');
  await tx.done;
  return { pages, touchedTerms: touched, removedChunkIds: removed };
}

/** Bumps the visit of an already stored page without touching its content. */
export async function recordVisit(db: DB, url: string, now: number): Promise<PageRecord | undefined> {
  const tx = db.transaction('pages', 'readwrite');
  const page = await tx.store.get(url);
  if (page) await tx.store.put({ ...page, lastVisit: Math.max(page.lastVisit, now), visitCount: page.visitCount + 1, visits: addVisit(page.visits, now) });
  await tx.done;
  return page;
}
