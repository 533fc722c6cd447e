/**
 * Writes and deletes pages: chunks, BM25 postings, statistics and the embedding queue change together
 * in one IndexedDB transaction, or not at all. Work is proportional to the page, not to the index.
 */
import type { IDBPTransaction } from 'idb';
import type { Block, Chunk } from '../src/chunker.js';
import type { TokenizerOptions } from '../src/tokenizer.js';
import { indexSection, type IndexedSection } from '../src/indexing.js';
import { appendToBlock, BLOCK_SIZE, removeFromBlock, type EncodedBlock, type PostingEntry } from '../src/postings.js';
import type { CaptureOutcome } from '../src/protocol.js';
import type { PageKind } from '../src/pageKind.js';
import type { TitleEntry } from '../src/historyEntries.js';
import { addVisit } from '../src/forget.js';
import { EMPTY_STATS, type ChunkRecord, type DB, type PageRecord, type RereadDB, type StatsRecord } from './db.js';
import { removeVectors } from './vectorStore.js';
import { forgetAllTexts, forgetTexts, packBlocks, packTexts, withTexts } from './sectionTexts.js';

export interface PageInput {
  url: string;
  site: string;
  title: string;
  lang: string;
  hash: string;
  words: number;
  chunks: readonly Chunk[];
  /** The blocks the chunks were cut from and the chunker that cut them: kept, compressed, to cut again. */
  blocks?: readonly Block[];
  chunker?: string;
  /** Visit time (epoch ms). */
  now: number;
  /** A re-cut of the stored page (background/recut.ts): its visits are left as they are. */
  recut?: boolean;
  /** Model to queue the new chunks for; null when the dense lane is off. */
  embedModel: string | null;
  /** How the page was got (src/pageKind.ts); absent: read in a tab. Replaces the stored page's kind. */
  kind?: PageKind;
  /** Not a visit (the backfill reading an imported entry): the stored visit dates and count stay. */
  notAVisit?: boolean;
  pdf?: PageRecord['pdf'];
}

export interface WriteResult {
  outcome: CaptureOutcome;
  page: PageRecord;
  /** Terms whose postings changed (the caller's caches drop them). */
  touchedTerms: Set<string>;
  removedChunkIds: number[];
  addedChunkIds: number[];
  /** What changed in the postings, exactly: the lexical cache follows it instead of reading the terms again. */
  delta: PostingDelta;
}

/**
 * A committed write's change to the postings: per term, the chunk ids taken out and the entries
 * appended (ids above every id the term had), and the corpus statistics after it.
 */
export interface PostingDelta {
  removed: Map<string, number[]>;
  added: Map<string, PostingEntry[]>;
  /** Null: unchanged (a revisit). */
  stats: { N: number; totalLength: number } | null;
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

async function removeChunks(tx: WriteTx, old: OldPage, stats: StatsRecord, touched: Set<string>, tails: TailCache, removed: Map<string, number[]>): Promise<void> {
  await tx.objectStore('texts').delete(old.page.url);
  if (!old.chunks.length) return;
  const byTerm = groupPostings(old.docs);
  for (const t of byTerm.keys()) tails.tails.delete(t); // their blocks change here; re-read on append
  await Promise.all([...byTerm].map(([term, entries]) => removeTermPostings(tx, term, entries.map((e) => e.id))));
  for (const [t, entries] of byTerm) {
    touched.add(t);
    const ids = removed.get(t);
    if (ids) ids.push(...entries.map((e) => e.id));
    else removed.set(t, entries.map((e) => e.id));
  }
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
  const b = z && input.blocks ? await packBlocks(input.blocks) : null;
  return retryStale(async () => {
    const current = await db.get('pages', input.url);
    // A revisit with unchanged content needs nothing of the old chunks.
    // (A re-cut rewrites the sections even when their texts, and so the hash, are the same: anchors may differ.)
    const rewrite = (p: PageRecord | undefined) => !!p && (p.hash !== input.hash || !!input.recut);
    const old = rewrite(current) ? (await readOldPages(db, [input.url], tok)).get(input.url) : undefined;
    const tx = db.transaction([...WRITE_STORES], 'readwrite');
    const result = await allOrNothing(db, tx, () => writePageIn(db, tx, input, newDocs, z, b, current, old, rewrite));
    if (result.removedChunkIds.length) forgetTexts(db, result.removedChunkIds);
    return result;
  });
}

async function writePageIn(
  db: DB,
  tx: WriteTx,
  input: PageInput,
  newDocs: IndexedSection[],
  z: Uint8Array | null,
  b: Uint8Array | null,
  readBefore: PageRecord | undefined,
  old: OldPage | undefined,
  rewrite: (p: PageRecord | undefined) => boolean,
): Promise<WriteResult> {
  const touched = new Set<string>();
  const cur = await tx.objectStore('pages').get(input.url);
  if (!samePage(cur, readBefore) || (rewrite(cur) && !samePage(cur, old?.page))) throw new StalePage();
  // A re-cut keeps the page as it was (its kind, PDF facts, visits): only its sections change.
  const kindOf = (c: PageRecord | undefined): PageInput => (input.recut && c ? { ...input, kind: c.kind, pdf: c.pdf } : input);
  if (cur && !rewrite(cur)) {
    const page = withKind(input.notAVisit || input.recut ? { ...cur } : { ...cur, lastVisit: Math.max(cur.lastVisit, input.now), visitCount: cur.visitCount + 1, visits: addVisit(cur.visits, input.now) }, kindOf(cur));
    await tx.objectStore('pages').put(page);
    if (b) {
      // A page stored before its blocks were kept gets them now (its cut is of an unknown chunker: the
      // next chunker change re-cuts it).
      const texts = await tx.objectStore('texts').get(input.url);
      if (texts && !texts.b && texts.ids.join() === cur.chunkIds.join()) await tx.objectStore('texts').put({ ...texts, b, cv: '' });
    }
    await tx.done;
    return { outcome: 'revisit', page, touchedTerms: touched, removedChunkIds: [], addedChunkIds: [], delta: { removed: new Map(), added: new Map(), stats: null } };
  }
  const stats = await readStats(tx);
  const tails = tailCacheFor(db, stats);
  const removed = new Map<string, number[]>();
  if (old) await removeChunks(tx, old, stats, touched, tails, removed);

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
  if (z) puts.push(tx.objectStore('texts').put({ url: input.url, ids, z, ...(b ? { b, cv: input.chunker ?? '' } : {}) }));
  if (input.embedModel) for (const r of records) puts.push(queue.put({ id: r.id, model: input.embedModel }));
  await Promise.all(puts);
  for (const d of newDocs) {
    stats.N += 1;
    stats.totalLength += d.len;
  }
  const keep = (input.notAVisit || input.recut) && cur;
  const page: PageRecord = withKind(
    {
      url: input.url,
      site: input.site,
      title: input.title,
      lang: input.lang,
      firstVisit: keep ? cur.firstVisit : cur ? Math.min(cur.firstVisit, input.now) : input.now,
      lastVisit: keep ? cur.lastVisit : cur ? Math.max(cur.lastVisit, input.now) : input.now,
      visitCount: keep ? cur.visitCount : (cur?.visitCount ?? 0) + 1,
      ...(keep ? (cur.visits ? { visits: cur.visits } : {}) : { visits: addVisit(cur?.visits, input.now) }),
      hash: input.hash,
      chunkIds: ids,
      words: input.words,
    },
    kindOf(cur),
  );
  await tx.objectStore('pages').put(page);
  await tx.objectStore('meta').put({ ...stats, tail: tails.token }, 'stats');
  await tx.done;
  const delta = { removed, added: byTerm, stats: { N: stats.N, totalLength: stats.totalLength } };
  return { outcome: cur ? 'changed' : 'new', page, touchedTerms: touched, removedChunkIds: old?.chunks.map((c) => c.id) ?? [], addedChunkIds: ids, delta };
}

/** The page record carries the input's kind (and PDF facts); a page read in a tab carries none. */
function withKind(page: PageRecord, input: PageInput): PageRecord {
  const { kind: _k, fetchSkipped: _f, pdf: _p, ...rest } = page;
  return { ...rest, ...(input.kind ? { kind: input.kind } : {}), ...(input.pdf ? { pdf: input.pdf } : {}) };
}

/** Where the history import's batches spend their time (for the benchmark). */
export const titleWriteLog = { batches: 0, entries: 0, newTerms: 0, prepareMs: 0, txMs: 0 };

/**
 * Bytes as deflate-raw "stored" blocks (no compression): a valid stream any inflater reads, made
 * synchronously (RFC 1951 3.2.4: a header bit for the last block, type 00, then LEN and its complement).
 */
export function storedDeflate(bytes: Uint8Array): Uint8Array {
  const blocks = Math.max(1, Math.ceil(bytes.length / 65_535));
  const out = new Uint8Array(bytes.length + blocks * 5);
  let o = 0;
  for (let b = 0; b < blocks; b++) {
    const part = bytes.subarray(b * 65_535, Math.min(bytes.length, (b + 1) * 65_535));
    out[o++] = b === blocks - 1 ? 1 : 0;
    out[o++] = part.length & 255;
    out[o++] = part.length >> 8;
    out[o++] = ~part.length & 255;
    out[o++] = (~part.length >> 8) & 255;
    out.set(part, o);
    o += part.length;
  }
  return out;
}

/** A title-only entry (src/historyEntries.ts) with its content hash: one section of URL words, the title folded in as for every section. */
export type TitlePageInput = TitleEntry & { hash: string };

/**
 * Stores many title-only entries in one transaction (the history import: 50,000 entries one
 * transaction each would take minutes). Only URLs with no stored page are written; a page read in a
 * tab or an entry imported before is never touched, so running a batch twice stores nothing twice.
 * Returns what was written, for the caller's caches.
 */
export async function writeTitlePages(db: DB, inputs: readonly TitlePageInput[], tok: TokenizerOptions, embedModel: string | null): Promise<{ pages: PageRecord[]; touchedTerms: Set<string>; addedChunkIds: number[]; delta: PostingDelta }> {
  const t0 = performance.now();
  const unique = [...new Map(inputs.map((i) => [i.url, i])).values()];
  const present = await (async () => {
    const tx = db.transaction('pages');
    const keys = await Promise.all(unique.map((i) => tx.store.getKey(i.url)));
    await tx.done;
    return new Set(keys.filter((k): k is string => k !== undefined));
  })();
  const fresh = unique.filter((i) => !present.has(i.url));
  const touched = new Set<string>();
  if (!fresh.length) return { pages: [], touchedTerms: touched, addedChunkIds: [], delta: { removed: new Map(), added: new Map(), stats: null } };
  // Before the transaction: tokenizing and compressing cannot be awaited inside it.
  const chunks = fresh.map((i): Chunk => ({ ord: 0, headingPath: [], section: '', anchor: {}, text: i.text, words: i.text.split(/\s+/).filter(Boolean).length }));
  const docs = fresh.map((i, k) => indexSection(i.title, chunks[k]!, tok));
  // A few hundred bytes of URL words gain nothing from compression, and a CompressionStream per entry
  // was most of a batch's time: stored deflate blocks (the same format, read by unpackTexts as usual).
  const packed = fresh.map((i) => storedDeflate(new TextEncoder().encode(JSON.stringify([i.text]))));
  titleWriteLog.prepareMs += performance.now() - t0;
  const tx = db.transaction([...WRITE_STORES], 'readwrite');
  const t1 = performance.now();
  return allOrNothing(db, tx, async () => {
    // Stored between the check and now (the caller holds the write lock, so only by another context): skip those.
    const again = await Promise.all(fresh.map((i) => tx.objectStore('pages').getKey(i.url)));
    const stats = await readStats(tx);
    const tails = tailCacheFor(db, stats);
    const pages: PageRecord[] = [];
    const records: { id: number; doc: IndexedSection }[] = [];
    const puts: Promise<unknown>[] = [];
    fresh.forEach((i, k) => {
      if (again[k] !== undefined) return;
      const id = stats.nextChunkId++;
      const chunk = chunks[k]!;
      records.push({ id, doc: docs[k]! });
      puts.push(tx.objectStore('chunks').put({ id, url: i.url, ord: 0, headingPath: [], section: '', anchor: {}, len: docs[k]!.len }));
      puts.push(tx.objectStore('texts').put({ url: i.url, ids: [id], z: packed[k]! }));
      if (embedModel) puts.push(tx.objectStore('embedQueue').put({ id, model: embedModel }));
      const page: PageRecord = { url: i.url, site: i.site, title: i.title, lang: '', firstVisit: i.lastVisit, lastVisit: i.lastVisit, visitCount: i.visitCount, hash: i.hash, chunkIds: [id], words: chunk.words, kind: 'title' };
      pages.push(page);
      puts.push(tx.objectStore('pages').put(page));
      stats.N += 1;
      stats.totalLength += docs[k]!.len;
    });
    const byTerm = groupPostings(records);
    let newTerms = 0;
    for (const term of byTerm.keys()) if (!tails.tails.has(term)) newTerms++;
    for (const [term, entries] of byTerm) {
      puts.push(appendTermPostings(tx, tails, term, entries));
      touched.add(term);
    }
    await Promise.all(puts);
    await tx.objectStore('meta').put({ ...stats, tail: tails.token }, 'stats');
    await tx.done;
    titleWriteLog.txMs += performance.now() - t1;
    titleWriteLog.batches++;
    titleWriteLog.entries += pages.length;
    titleWriteLog.newTerms += newTerms;
    return { pages, touchedTerms: touched, addedChunkIds: records.map((r) => r.id), delta: { removed: new Map(), added: byTerm, stats: { N: stats.N, totalLength: stats.totalLength } } };
  });
}

/** Notes on a title-only entry that the backfill tried and left title-only (so it is not fetched again). */
export async function markFetchSkipped(db: DB, url: string, reason: string, at: number): Promise<PageRecord | undefined> {
  const tx = db.transaction('pages', 'readwrite');
  const page = await tx.store.get(url);
  const next = page && page.kind === 'title' ? { ...page, fetchSkipped: { at, reason } } : undefined;
  if (next) await tx.store.put(next);
  await tx.done;
  return next;
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
    await removeChunks(tx, o, stats, touched, tails, new Map());
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
