/**
 * Writes and deletes pages. A write stores, in one IndexedDB transaction, the page record, its sections
 * (one deflated record), one segment holding its postings (terms as strings), its embedding queue
 * entries and the corpus statistics — a handful of records whatever the size of the index, so a
 * capture costs the same at a million sections as at a thousand. A batch of pages (an import, a history
 * backfill) is one transaction and one segment.
 *
 * A delete (and the old version of a rewritten page) stores a tombstone — the range of the page's chunk
 * ids — and deletes the page, its sections and its queue entries: no text is read to find its postings,
 * so a page whose text record is missing or unreadable is forgotten like any other, and the write is
 * tiny, so it commits even when the storage is nearly full. Postings and vectors of forgotten ids go at
 * the next sweep (indexMaintenance.ts); readers ignore them meanwhile (delta.ts).
 */
import type { IDBPTransaction } from 'idb';
import type { Block, Chunk } from '../src/chunker.js';
import type { TokenizerOptions } from '../src/tokenizer.js';
import { indexSection } from '../src/indexing.js';
import { encodeSegment, type PostingEntry } from '../src/postings.js';
import type { CaptureOutcome } from '../src/protocol.js';
import type { PageKind } from '../src/pageKind.js';
import type { TitleEntry } from '../src/historyEntries.js';
import { addVisit } from '../src/forget.js';
import { EMPTY_STATS, FILED_HANDOVERS_KEY, PDF_NOTES_KEY, type DB, type FiledHandOver, type PageRecord, type RereadDB, type SectionsRecord, type StatsRecord, type StoreName } from './db.js';
import { OUTBOX_MAX_AGE_MS } from '../src/outbox.js';
import type { DeadRange, DeltaList, PendingSegment } from './delta.js';
import { legacyActive, legacyLens, removeLegacyPage } from './legacy.js';
import { forgetAllSections, forgetPage, keepsBlocks, packBlocks, packPage, packSections, sectionsJson } from './sections.js';
import { deletePage, putPage } from './pageLog.js';

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
  /** A re-cut of the stored page (background/recut.ts): its visits, kind and PDF facts are left as they are. */
  recut?: boolean;
  /** Model to queue the new chunks for; null when the dense lane is off. */
  embedModel: string | null;
  /** How the page was got (src/pageKind.ts); absent: read in a tab. Replaces the stored page's kind. */
  kind?: PageKind;
  /** Not a visit (the backfill reading an imported entry): the stored visit dates and count stay. */
  notAVisit?: boolean;
  pdf?: PageRecord['pdf'];
  /** The outbox hand-over this capture came in (an opaque id): recorded in the page's transaction (`handOverFiled`). */
  handOver?: string;
  /** The page view this is a capture of (CapturePayload.capture): one among the page's `captures` is no new visit. */
  capture?: string;
}

/**
 * Page views remembered per page (PageRecord.captures). A view is delivered again within seconds (a
 * retry) or minutes (the outbox); a few are kept for two tabs of one page read at once.
 */
const MAX_VIEWS = 4;

/** Whether the input is a capture of a page view already counted as a visit of the stored page. */
const seenView = (cur: PageRecord | undefined, input: PageInput): boolean => !!input.capture && !!cur?.captures?.includes(input.capture);

/** The page's views after this write: a new view counted is added, the oldest go. */
function withView(page: PageRecord, input: PageInput, counted: boolean): PageRecord {
  if (!counted || !input.capture) return page;
  return { ...page, captures: [...(page.captures ?? []).filter((c) => c !== input.capture), input.capture].slice(-MAX_VIEWS) };
}

/** N and the total section length, as the stats record holds them. */
export interface CorpusTotals {
  N: number;
  totalLength: number;
}

export interface WriteResult {
  outcome: CaptureOutcome;
  page: PageRecord;
  removedChunkIds: number[];
  addedChunkIds: number[];
}

export interface BatchResult {
  pages: WriteResult[];
  /**
   * The corpus statistics as the write committed them (null: the write stored nothing). The lexical
   * reader takes them as they are: reading them again would wait for every write transaction queued
   * before the read (a backfill stores page after page).
   */
  stats: CorpusTotals | null;
  /** The segment the batch stored (null when nothing new was indexed): the delta adds it. */
  segment: PendingSegment | null;
  /** Tombstones stored for rewritten pages' old ids. */
  dead: DeadRange[];
}

export type WriteTx = IDBPTransaction<RereadDB, StoreName[], 'readwrite'>;

const CORE_STORES: StoreName[] = ['pages', 'sections', 'segments', 'tombstones', 'meta', 'embedQueue'];

/** The stores a page write or delete touches (the legacy ones too while a schema-2 database migrates). */
export function writeStores(db: DB): StoreName[] {
  return legacyActive(db) ? [...CORE_STORES, 'chunks', 'texts'] : CORE_STORES;
}

export async function readStats(tx: { objectStore(name: 'meta'): { get(key: string): Promise<unknown> } }): Promise<StatsRecord> {
  const s = (await tx.objectStore('meta').get('stats')) as StatsRecord | undefined;
  return { ...EMPTY_STATS, ...s };
}

/** What the index stores of one section: each term's tf code (src/indexing.ts tfCode), and the section's body length. */
export interface SectionPostings {
  len: number;
  tfs: Map<string, number>;
}

/**
 * A section's postings, from what src/indexing.ts says is indexed: the one place the write path, the
 * history import, verifyIndex and the benchmarks' bulk loader turn a section into postings.
 */
export function sectionPostings(title: string, chunk: { text: string; headingPath: readonly string[] }, tok: TokenizerOptions): SectionPostings {
  return indexSection(title, chunk, tok);
}

/** Term -> entries for a set of sections, each list sorted by chunk id. */
export function groupPostings(docs: readonly ({ id: number } & SectionPostings)[]): Map<string, PostingEntry[]> {
  const byTerm = new Map<string, PostingEntry[]>();
  for (const d of docs) {
    for (const [term, tf] of d.tfs) {
      let list = byTerm.get(term);
      if (!list) byTerm.set(term, (list = []));
      list.push({ id: d.id, tf, len: d.len });
    }
  }
  return byTerm;
}

/** Splits ids into ranges of consecutive ids (a page's ids are one range unless a repair dropped some). */
export function idRanges(ids: readonly number[]): { first: number; end: number }[] {
  const sorted = [...ids].sort((a, b) => a - b);
  const out: { first: number; end: number }[] = [];
  for (const id of sorted) {
    const last = out[out.length - 1];
    if (last && id === last.end) last.end++;
    else if (!last || id >= last.end) out.push({ first: id, end: id + 1 });
  }
  return out;
}

/** Drops every in-memory copy of stored text (after "forget everything"). */
export function forgetCaches(db: DB): void {
  forgetAllSections(db);
}

/**
 * Runs `body` against `tx` and aborts the transaction if it throws. An exception thrown between
 * requests (not by a request) does not abort an IndexedDB transaction: without this, the requests
 * already made would commit and leave half a write behind.
 */
export async function allOrNothing<T>(tx: { abort(): void; done: Promise<void> }, body: () => Promise<T>, pending: readonly Promise<unknown>[] = []): Promise<T> {
  try {
    return await body();
  } catch (e) {
    tx.done.catch(() => undefined);
    // Requests made before the failure reject as the transaction aborts: nobody waits for them now.
    for (const p of pending) p.catch(() => undefined);
    try {
      tx.abort();
    } catch {
      // Already aborted by a failed request, or finished.
    }
    throw e;
  }
}

/** The page was changed by someone else between the read and the write: read again and retry. */
class StalePage extends Error {}

async function retryStale<T>(attempt: () => Promise<T>): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await attempt();
    } catch (e) {
      if (!(e instanceof StalePage) || i >= 4) throw e;
    }
  }
}

const samePage = (a: PageRecord | undefined, b: PageRecord | undefined): boolean =>
  a === b || (!!a && !!b && a.hash === b.hash && a.title === b.title && a.chunkIds.join() === b.chunkIds.join() && !!a.lens === !!b.lens);

/** What a page's old version takes with it: tombstones for its ids, its queue entries, its sections. */
async function retire(tx: WriteTx, db: DB, old: PageRecord, stats: StatsRecord, dead: DeadRange[], puts: Promise<unknown>[] = []): Promise<void> {
  const lens = old.lens ?? (legacyActive(db) ? await legacyLens(tx, old) : []);
  stats.N -= old.chunkIds.length;
  stats.totalLength -= lens.reduce((a, b) => a + b, 0);
  const start = puts.length;
  for (const r of idRanges(old.chunkIds)) {
    const seq = stats.nextSeq!++;
    const at = Date.now();
    puts.push(tx.objectStore('tombstones').put({ first: r.first, end: r.end, at }, seq));
    puts.push(tx.objectStore('embedQueue').delete(IDBKeyRange.bound(r.first, r.end - 1)));
    dead.push({ seq, first: r.first, end: r.end, at });
  }
  puts.push(tx.objectStore('sections').delete(old.url));
  if (legacyActive(db)) puts.push(removeLegacyPage(tx, old));
  await Promise.all(puts.slice(start));
}

interface Prepared {
  input: PageInput;
  /** Each chunk's postings. */
  docs: SectionPostings[];
  lens: number[];
  /** The page's sections record's `z`: format 2 (its blocks in the same stream) when the input has blocks, else format 1. */
  z: Uint8Array;
  /** Whether `z` keeps the page's blocks. */
  kept: boolean;
}

const keeps = (rec: SectionsRecord | undefined): boolean => !!rec && keepsBlocks(rec);

/**
 * Whether the input rewrites the stored page's sections: new content, or a re-cut (same texts, anchors may
 * differ). Not content read before the stored page was last visited (a capture filed late from the outbox,
 * an older export imported): that visit is recorded, the newer text stays. A title-only entry's last visit
 * is the browser history's, not a read of the page: any content replaces it.
 */
const rewrites = (stored: PageRecord | undefined, input: PageInput): boolean =>
  !stored || !!input.recut || (stored.hash !== input.hash && (stored.kind === 'title' || input.now >= stored.lastVisit || stored.lastVisit > Date.now() + FUTURE_SLACK_MS));

/** A stored visit dated further ahead than this (a clock set wrong when it was made) does not make newer text look older. */
const FUTURE_SLACK_MS = 86_400_000;

export async function writePage(db: DB, input: PageInput, tok: TokenizerOptions): Promise<WriteResult & { batch: BatchResult }> {
  const batch = await writePages(db, [input], tok);
  return { ...batch.pages[0]!, batch };
}

/**
 * Stores pages (new, changed, or revisited unchanged) in one transaction: the same URL twice in one batch
 * is refused. Tokenizing and compressing happen before the transaction opens (nothing but IndexedDB
 * requests may be awaited inside it).
 */
export async function writePages(db: DB, inputs: readonly PageInput[], tok: TokenizerOptions): Promise<BatchResult> {
  if (new Set(inputs.map((i) => i.url)).size !== inputs.length) throw new Error('a batch names the same page twice');
  return retryStale(async () => {
    // Which pages have new content (a revisit with the same hash needs no tokenizing or compressing), and
    // which revisited pages were stored before their blocks were kept (they get them now).
    const rtx = db.transaction(['pages', 'sections']);
    const before = await Promise.all(inputs.map((i) => rtx.objectStore('pages').get(i.url)));
    const lacksBlocks = await Promise.all(
      // (Only a revisit of the same text: blocks of an older read are not the stored sections' blocks.)
      inputs.map(async (input, i) => !!input.blocks && !!before[i] && !rewrites(before[i], input) && before[i]!.hash === input.hash && before[i]!.chunkIds.length > 0 && !keeps(await rtx.objectStore('sections').get(input.url))),
    );
    await rtx.done;
    const prepared = new Map<string, Prepared>();
    const revisitBlocks = new Map<string, Uint8Array>();
    await Promise.all(
      inputs.map(async (input, i) => {
        if (lacksBlocks[i]) revisitBlocks.set(input.url, await packBlocks(input.blocks!));
        if (!rewrites(before[i], input)) return;
        const docs = input.chunks.map((c) => sectionPostings(input.title, c, tok));
        const kept = !!input.blocks && input.chunks.length > 0;
        const z = kept ? await packPage(input.chunks, input.blocks!) : await packSections(input.chunks);
        prepared.set(input.url, { input, docs, lens: docs.map((d) => d.len), z, kept });
      }),
    );
    // The batch's postings, ids relative to its first new id (pages get consecutive ids in input order).
    const docs: ({ id: number } & SectionPostings)[] = [];
    for (const input of inputs) for (const d of prepared.get(input.url)?.docs ?? []) docs.push({ id: docs.length, ...d });
    const byTerm = groupPostings(docs);
    const encoded = docs.length ? encodeSegment(byTerm, 0) : null;

    const tx = db.transaction(writeStores(db), 'readwrite');
    const puts: Promise<unknown>[] = [];
    const result = await allOrNothing(tx, async () => {
      const stats = await readStats(tx);
      const current = await Promise.all(inputs.map((i) => tx.objectStore('pages').get(i.url)));
      if (current.some((c, i) => !samePage(c, before[i]))) throw new StalePage();
      const base = stats.nextChunkId;
      const pages: WriteResult[] = [];
      const dead: DeadRange[] = [];
      for (const [i, input] of inputs.entries()) {
        const cur = current[i];
        const prep = prepared.get(input.url);
        // A re-cut keeps the page as it was (its kind, PDF facts, visits): only its sections change.
        const kindOf: PageInput = input.recut && cur ? { ...input, kind: cur.kind, pdf: cur.pdf } : input;
        // A capture of a page view counted already (sent again, or filed from the outbox too): the same visit.
        const again = seenView(cur, input);
        if (!prep) {
          const counts = !input.notAVisit && !input.recut && !again;
          const page = withView(withKind(counts ? { ...cur!, lastVisit: Math.max(cur!.lastVisit, input.now), visitCount: cur!.visitCount + 1, visits: addVisit(cur!.visits, input.now) } : { ...cur! }, kindOf), input, counts);
          puts.push(putPage(tx, page));
          const b = revisitBlocks.get(input.url);
          if (b) {
            // Its cut is of an unknown chunker (cv ''): the next chunker change re-cuts it.
            const rec = await tx.objectStore('sections').get(input.url);
            // (A format-1 record whose texts are written out: `b` beside them, format 1 still.)
            if (rec && !keepsBlocks(rec)) puts.push(tx.objectStore('sections').put({ ...rec, b, cv: '' }));
          }
          pages.push({ outcome: 'revisit', page, removedChunkIds: [], addedChunkIds: [] });
          continue;
        }
        if (cur) await retire(tx, db, cur, stats, dead, puts);
        const ids = prep.docs.map(() => stats.nextChunkId++);
        const keep = (input.notAVisit || input.recut || again) && cur;
        const page: PageRecord = withView(withKind(
          {
            // Fields other features keep on a page carry over a rewrite.
            ...cur,
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
            lens: prep.lens,
          },
          kindOf,
        ), input, !keep && !input.notAVisit && !input.recut);
        puts.push(putPage(tx, page));
        if (ids.length) puts.push(tx.objectStore('sections').put({ url: input.url, z: prep.z, ...(prep.kept ? { cv: input.chunker ?? '' } : {}) }));
        if (input.embedModel) for (const id of ids) puts.push(tx.objectStore('embedQueue').put({ id, model: input.embedModel }));
        stats.N += ids.length;
        stats.totalLength += prep.lens.reduce((a, b) => a + b, 0);
        pages.push({ outcome: cur ? 'changed' : 'new', page, removedChunkIds: cur?.chunkIds ?? [], addedChunkIds: ids });
      }
      let segment: PendingSegment | null = null;
      if (encoded && stats.nextChunkId > base) {
        const seq = stats.nextSeq!++;
        puts.push(tx.objectStore('segments').put({ first: base, end: stats.nextChunkId, t: encoded.t, d: encoded.d }, seq));
        const terms = new Map<string, DeltaList>();
        let entries = 0;
        for (const [t, list] of byTerm) {
          terms.set(t, { ids: list.map((e) => e.id + base), tfs: list.map((e) => e.tf) });
          entries += list.length;
        }
        segment = { seq, first: base, end: stats.nextChunkId, terms, entries };
      }
      puts.push(tx.objectStore('meta').put(stats, 'stats'));
      const handOvers = inputs.flatMap((i) => (i.handOver ? [i.handOver] : []));
      if (handOvers.length) {
        // Kept for as long as the outbox keeps an entry; the oldest go as new ones come.
        const at = Date.now();
        const filed = (((await tx.objectStore('meta').get(FILED_HANDOVERS_KEY)) as FiledHandOver[] | undefined) ?? []).filter((f) => f.at > at - OUTBOX_MAX_AGE_MS && f.at <= at);
        puts.push(tx.objectStore('meta').put([...filed, ...handOvers.map((id) => ({ id, at }))], FILED_HANDOVERS_KEY));
      }
      await Promise.all(puts);
      await tx.done;
      return { pages, segment, dead, stats: { N: stats.N, totalLength: stats.totalLength } };
    }, puts);
    for (const p of result.pages) if (p.outcome !== 'revisit') forgetPage(db, p.page.url);
    return result;
  });
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
 * Stores many title-only entries in one transaction and one segment (the history import: 50,000 entries
 * one transaction each would take minutes). Only URLs with no stored page are written; a page read in a
 * tab or an entry imported before is never touched, so running a batch twice stores nothing twice.
 * Returns the batch for the engine's readers (Engine.applyWrite).
 */
export async function writeTitlePages(
  db: DB,
  inputs: readonly TitlePageInput[],
  tok: TokenizerOptions,
  embedModel: string | null,
  /**
   * Runs in the batch's transaction once its pages are put, with how many were stored: what must commit
   * with them or not at all (the import's count). Throwing aborts the batch.
   */
  alongside?: (tx: WriteTx, stored: number) => Promise<void>,
): Promise<BatchResult> {
  const t0 = performance.now();
  // One entry a page: history lists an address with and without its tracking parameters apart, which
  // are one page here. Its newest visit is kept, and its visits are counted together.
  const byUrl = new Map<string, TitlePageInput>();
  for (const i of inputs) {
    const seen = byUrl.get(i.url);
    byUrl.set(i.url, !seen ? i : { ...(i.lastVisit > seen.lastVisit ? i : seen), visitCount: seen.visitCount + i.visitCount });
  }
  const unique = [...byUrl.values()];
  const present = await (async () => {
    const tx = db.transaction('pages');
    const keys = await Promise.all(unique.map((i) => tx.store.getKey(i.url)));
    await tx.done;
    return new Set(keys.filter((k): k is string => k !== undefined));
  })();
  const fresh = unique.filter((i) => !present.has(i.url));
  const empty: BatchResult = { pages: [], segment: null, dead: [], stats: null };
  if (!fresh.length) return empty;
  // Before the transaction: tokenizing and compressing cannot be awaited inside it.
  const chunks = fresh.map((i): Chunk => ({ ord: 0, headingPath: [], section: '', anchor: {}, text: i.text, words: i.text.split(/\s+/).filter(Boolean).length }));
  const docs = fresh.map((i, k) => sectionPostings(i.title, chunks[k]!, tok));
  // A few hundred bytes of URL words gain nothing from compression, and a CompressionStream per entry
  // was most of a batch's time: stored deflate blocks (the same format, read by unpackSections as usual).
  const packed = fresh.map((_i, k) => storedDeflate(new TextEncoder().encode(sectionsJson([chunks[k]!]))));
  titleWriteLog.prepareMs += performance.now() - t0;
  const tx = db.transaction(writeStores(db), 'readwrite');
  const t1 = performance.now();
  const puts: Promise<unknown>[] = [];
  const result = await allOrNothing(
    tx,
    async () => {
      // Stored between the check and now (the caller holds the write lock, so only by another context): skip those.
      const again = await Promise.all(fresh.map((i) => tx.objectStore('pages').getKey(i.url)));
      const stats = await readStats(tx);
      const base = stats.nextChunkId;
      const pages: WriteResult[] = [];
      const records: ({ id: number } & SectionPostings)[] = [];
      fresh.forEach((i, k) => {
        if (again[k] !== undefined) return;
        const id = stats.nextChunkId++;
        records.push({ id, ...docs[k]! });
        puts.push(tx.objectStore('sections').put({ url: i.url, z: packed[k]! }));
        if (embedModel) puts.push(tx.objectStore('embedQueue').put({ id, model: embedModel }));
        const page: PageRecord = { url: i.url, site: i.site, title: i.title, lang: '', firstVisit: i.lastVisit, lastVisit: i.lastVisit, visitCount: i.visitCount, hash: i.hash, chunkIds: [id], words: chunks[k]!.words, lens: [docs[k]!.len], kind: 'title' };
        pages.push({ outcome: 'new', page, removedChunkIds: [], addedChunkIds: [id] });
        puts.push(putPage(tx, page));
        stats.N += 1;
        stats.totalLength += docs[k]!.len;
      });
      let segment: PendingSegment | null = null;
      if (records.length) {
        const byTerm = groupPostings(records);
        const seq = stats.nextSeq!++;
        const encoded = encodeSegment(byTerm, base);
        puts.push(tx.objectStore('segments').put({ first: base, end: stats.nextChunkId, t: encoded.t, d: encoded.d }, seq));
        const terms = new Map<string, DeltaList>();
        let entries = 0;
        for (const [t, list] of byTerm) {
          terms.set(t, { ids: list.map((e) => e.id), tfs: list.map((e) => e.tf) });
          entries += list.length;
        }
        segment = { seq, first: base, end: stats.nextChunkId, terms, entries };
        titleWriteLog.newTerms += byTerm.size;
      }
      await alongside?.(tx, pages.length);
      puts.push(tx.objectStore('meta').put(stats, 'stats'));
      await Promise.all(puts);
      await tx.done;
      return { pages, segment, dead: [], stats: { N: stats.N, totalLength: stats.totalLength } };
    },
    puts,
  );
  titleWriteLog.txMs += performance.now() - t1;
  titleWriteLog.batches++;
  titleWriteLog.entries += result.pages.length;
  return result;
}

/**
 * Whether this outbox hand-over was filed already. The drain removes an entry from the outbox after its
 * page's transaction commits (the two cannot be one): a worker stopped in between files it again at the
 * next start, and that is the visit already stored, not another one.
 */
export async function handOverFiled(db: DB, id: string): Promise<boolean> {
  const filed = (await db.get('meta', FILED_HANDOVERS_KEY)) as FiledHandOver[] | undefined;
  return !!filed?.some((f) => f.id === id);
}

/** Notes on a title-only entry that the backfill tried and left title-only (so it is not fetched again). */
export async function markFetchSkipped(db: DB, url: string, reason: string, at: number): Promise<PageRecord | undefined> {
  const tx = db.transaction(['pages', 'meta'], 'readwrite');
  const page = await tx.objectStore('pages').get(url);
  const next = page && page.kind === 'title' ? { ...page, fetchSkipped: { at, reason } } : undefined;
  if (next) await putPage(tx, next);
  await tx.done;
  return next;
}

export interface DeleteResult {
  pages: PageRecord[];
  /** As in BatchResult. */
  stats: CorpusTotals | null;
  removedChunkIds: number[];
  dead: DeadRange[];
}

/** Deletes pages (and everything derived from them, by tombstone) in one transaction. */
export async function deletePages(db: DB, urlList: readonly string[]): Promise<DeleteResult> {
  const urls = [...new Set(urlList)];
  const tx = db.transaction(writeStores(db), 'readwrite');
  const puts: Promise<unknown>[] = [];
  const result = await allOrNothing(tx, async () => {
    const stats = await readStats(tx);
    const pages = (await Promise.all(urls.map((u) => tx.objectStore('pages').get(u)))).filter((p): p is PageRecord => !!p);
    const dead: DeadRange[] = [];
    const removed: number[] = [];
    for (const page of pages) {
      await retire(tx, db, page, stats, dead, puts);
      removed.push(...page.chunkIds);
      await deletePage(tx, page.url);
    }
    if (pages.length) await tx.objectStore('meta').put(stats, 'stats');
    // The notes Options shows on these PDFs go in the same transaction: a stop between two would leave a
    // forgotten PDF's address and title listed, with nothing to retry it (a forget with no undo window).
    const notes = (await tx.objectStore('meta').get(PDF_NOTES_KEY)) as { url: string }[] | undefined;
    if (Array.isArray(notes) && notes.some((n) => urls.includes(n.url))) {
      const gone = new Set(urls);
      await tx.objectStore('meta').put(notes.filter((n) => !gone.has(n.url)), PDF_NOTES_KEY);
    }
    await tx.done;
    return { pages, removedChunkIds: removed, dead, stats: pages.length ? { N: stats.N, totalLength: stats.totalLength } : null };
  }, puts);
  for (const p of result.pages) forgetPage(db, p.url);
  return result;
}

/** Bumps the visit of an already stored page without touching its content. */
export async function recordVisit(db: DB, url: string, now: number): Promise<PageRecord | undefined> {
  const tx = db.transaction(['pages', 'meta'], 'readwrite');
  const page = await tx.objectStore('pages').get(url);
  if (page) await putPage(tx, { ...page, lastVisit: Math.max(page.lastVisit, now), visitCount: page.visitCount + 1, visits: addVisit(page.visits, now) });
  await tx.done;
  return page;
}
