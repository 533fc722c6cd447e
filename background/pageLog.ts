/**
 * The page table's persisted form (issue 17: the first answer after a worker stop). Loading the table
 * with one getAll of `pages` costs a structured clone of every page record — tens of thousands at a
 * million sections — before the first query can look up a section's length. Instead:
 *
 * - the snapshot (meta SNAPSHOT_KEY): every page's table fields in a handful of columns (typed arrays
 *   for numbers, chunk ids and section lengths; string arrays for URLs, sites, titles), written by
 *   background maintenance in the same transaction that reads the pages and empties the log;
 * - the log (meta keys LOG_PREFIX + url): every write of a page record puts its URL there in the write's
 *   own transaction (putPage, the only way code writes the store). A load reads the snapshot, then
 *   those pages' current records, in one read transaction. A delete (deletePage) drops the snapshot
 *   and the log instead: a forgotten page's URL and title must not stay in either.
 *
 * The loader (pageTable.ts) checks the result against the store (page count, live sections, total
 * length, latest visit) and reads every page instead when they disagree; a missing snapshot, a
 * migration under way or an unknown snapshot version do the same. Nothing here is needed for
 * correctness: deleting the snapshot and the log only makes the next load slower.
 */
import type { IDBPTransaction } from 'idb';
import type { PageRecord, RereadDB, StoreName } from './db.js';
import type { PageMeta } from './pageTable.js';

export const SNAPSHOT_KEY = 'pageTable';
export const SNAPSHOT_VERSION = 1;
export const LOG_PREFIX = 'pageLog:';
/** Meta keys of the log: every string starting with LOG_PREFIX (';' follows ':'). */
export const LOG_RANGE = () => IDBKeyRange.bound(LOG_PREFIX, 'pageLog;', false, true);
/** Pages written since the snapshot before maintenance writes it again (each costs a get at load), at least; an eighth of the table beyond. */
export const SNAPSHOT_LOG_MAX = 256;

export interface PageTableSnapshot {
  v: number;
  urls: string[];
  sites: string[];
  titles: string[];
  firstVisit: Float64Array;
  lastVisit: Float64Array;
  visitCount: Float64Array;
  /** Page i's chunk ids and section lengths are ids/lens[idEnd[i-1]..idEnd[i]). */
  idEnd: Uint32Array;
  ids: Uint32Array;
  lens: Uint32Array;
  /** Page i's visits are visits[visitEnd[i-1]..visitEnd[i]), when hasVisits[i] (the field is optional). */
  visitEnd: Uint32Array;
  visits: Float64Array;
  hasVisits: Uint8Array;
  /** The rare fields, for the pages that have them. */
  extra: { i: number; kind?: PageRecord['kind']; fetchSkipped?: PageRecord['fetchSkipped'] }[];
}

/** The snapshot of these pages (every one with its lengths). */
export function encodeSnapshot(pages: readonly PageRecord[]): PageTableSnapshot {
  const n = pages.length;
  let ids = 0;
  let visits = 0;
  for (const p of pages) {
    ids += p.chunkIds.length;
    visits += p.visits?.length ?? 0;
  }
  const s: PageTableSnapshot = {
    v: SNAPSHOT_VERSION,
    urls: [],
    sites: [],
    titles: [],
    firstVisit: new Float64Array(n),
    lastVisit: new Float64Array(n),
    visitCount: new Float64Array(n),
    idEnd: new Uint32Array(n),
    ids: new Uint32Array(ids),
    lens: new Uint32Array(ids),
    visitEnd: new Uint32Array(n),
    visits: new Float64Array(visits),
    hasVisits: new Uint8Array(n),
    extra: [],
  };
  let at = 0;
  let v = 0;
  pages.forEach((p, i) => {
    s.urls.push(p.url);
    s.sites.push(p.site);
    s.titles.push(p.title);
    s.firstVisit[i] = p.firstVisit;
    s.lastVisit[i] = p.lastVisit;
    s.visitCount[i] = p.visitCount;
    s.ids.set(p.chunkIds, at);
    s.lens.set(p.lens!, at);
    at += p.chunkIds.length;
    s.idEnd[i] = at;
    if (p.visits) {
      s.hasVisits[i] = 1;
      s.visits.set(p.visits, v);
      v += p.visits.length;
    }
    s.visitEnd[i] = v;
    if (p.kind || p.fetchSkipped) s.extra.push({ i, ...(p.kind ? { kind: p.kind } : {}), ...(p.fetchSkipped ? { fetchSkipped: p.fetchSkipped } : {}) });
  });
  return s;
}

/** Each page of the snapshot as the table holds it, with its section lengths. */
export function decodeSnapshot(s: PageTableSnapshot, each: (m: PageMeta, lens: Uint32Array) => void): void {
  const extra = new Map(s.extra.map((e) => [e.i, e]));
  let at = 0;
  let v = 0;
  for (let i = 0; i < s.urls.length; i++) {
    const end = s.idEnd[i]!;
    const vEnd = s.visitEnd[i]!;
    const m: PageMeta = {
      url: s.urls[i]!,
      site: s.sites[i]!,
      title: s.titles[i]!,
      lastVisit: s.lastVisit[i]!,
      firstVisit: s.firstVisit[i]!,
      visitCount: s.visitCount[i]!,
      chunkIds: toArray(s.ids, at, end),
    };
    if (s.hasVisits[i]) m.visits = toArray(s.visits, v, vEnd);
    const e = extra.get(i);
    if (e?.kind) m.kind = e.kind;
    if (e?.fetchSkipped) m.fetchSkipped = e.fetchSkipped;
    each(m, s.lens.subarray(at, end));
    at = end;
    v = vEnd;
  }
}

/** A read-write transaction over at least `pages` and `meta`. */
export type PagesTx = IDBPTransaction<RereadDB, ArrayLike<StoreName>, 'readwrite'>;

/** Stores a page record and logs its URL (the only way to write the pages store). */
export function putPage(tx: PagesTx, page: PageRecord): Promise<unknown> {
  return Promise.all([tx.objectStore('pages').put(page), tx.objectStore('meta').put(1, LOG_PREFIX + page.url)]);
}

/**
 * Deletes a page record, and with it the snapshot and the log: nothing of a forgotten page may stay
 * behind (its URL and title are in the snapshot, its URL in the log). Forgetting is rare; the next
 * maintenance writes the snapshot again, and loads read every page meanwhile.
 */
export function deletePage(tx: PagesTx, url: string): Promise<unknown> {
  return Promise.all([tx.objectStore('pages').delete(url), dropPageSnapshot(tx)]);
}

/** The pages store was cleared or rebuilt: no snapshot, no log (the next load reads every page). */
export function dropPageSnapshot(tx: PagesTx): Promise<unknown> {
  return Promise.all([tx.objectStore('meta').delete(SNAPSHOT_KEY), tx.objectStore('meta').delete(LOG_RANGE())]);
}

/** `a[from..to)` as a plain array (Array.from over a subarray view costs several times this loop). */
function toArray(a: Uint32Array | Float64Array, from: number, to: number): number[] {
  const out = new Array<number>(to - from);
  for (let i = from; i < to; i++) out[i - from] = a[i]!;
  return out;
}
