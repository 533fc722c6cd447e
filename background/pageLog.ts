/**
 * The page table's persisted form (issue 17: the first answer after a worker stop). Loading the table
 * with one getAll of `pages` costs a structured clone of every page record — tens of thousands at a
 * million sections — before the first query can look up a section's length. Instead:
 *
 * - the snapshot: every page's table fields in columns (typed arrays for numbers, string arrays for
 *   text), written by background maintenance in the same transaction that reads the pages and empties
 *   the log. Two records, so the first search waits only for the small one:
 *   - the core (meta SNAPSHOT_KEY): URLs, latest visits, chunk ids (as runs) and section lengths —
 *     what the norms, the owners and the check against the store need;
 *   - the columns (meta COLUMNS_KEY): sites, titles, the other visit fields, the rare fields — read in
 *     the same transaction, and turned into page objects only when something asks for a page.
 *   COLUMNS_KEY lies inside the log's key range on purpose: every path that drops the log (here, and
 *   in builds that knew only the one-record snapshot) drops it too, so no forgotten title stays.
 * - the log (meta keys LOG_PREFIX + url): every write of a page record puts its URL there in the write's
 *   own transaction (putPage, the only way code writes the store). A load reads the snapshot, then
 *   those pages' current records, in one read transaction. A delete (deletePage) drops the snapshot
 *   and the log instead: a forgotten page's URL and title must not stay in either.
 *
 * The loader (pageTable.ts) checks the result against the store (page count, live sections, total
 * length, latest visit) and reads every page instead when they disagree; a missing snapshot, a
 * migration under way or an unknown snapshot version do the same. A version-1 snapshot (one record,
 * every chunk id listed) still loads, and maintenance writes it again in the current form. Nothing
 * here is needed for correctness: deleting the snapshot and the log only makes the next load slower.
 */
import type { IDBPTransaction } from 'idb';
import type { PageRecord, RereadDB, StoreName } from './db.js';
import type { PageMeta } from './pageTable.js';

export const SNAPSHOT_KEY = 'pageTable';
export const SNAPSHOT_VERSION = 2;
export const LOG_PREFIX = 'pageLog:';
/** The snapshot's second record (no URL starts with '#': never a logged page). */
export const COLUMNS_KEY = `${LOG_PREFIX}#columns`;
/** Meta keys of the log (and COLUMNS_KEY): every string starting with LOG_PREFIX (';' follows ':'). */
export const LOG_RANGE = () => IDBKeyRange.bound(LOG_PREFIX, 'pageLog;', false, true);
/** The logged pages' URLs among keys of LOG_RANGE. */
export const loggedUrls = (keys: readonly IDBValidKey[]): string[] => keys.filter((k): k is string => typeof k === 'string' && k !== COLUMNS_KEY).map((k) => k.slice(LOG_PREFIX.length));
/** Pages written since the snapshot before maintenance writes it again (each costs a get at load), at least; an eighth of the table beyond. */
export const SNAPSHOT_LOG_MAX = 256;

/** The snapshot's core (meta SNAPSHOT_KEY): what the first search needs. */
export interface SnapshotCore {
  v: typeof SNAPSHOT_VERSION;
  /** Binds the two records: the columns carry the same number. */
  gen: number;
  urls: string[];
  lastVisit: Float64Array;
  /** Page i's sections are [idEnd[i-1]..idEnd[i]) in `lens`; its chunk ids first[i], first[i]+1, … unless it is an odd page. */
  idEnd: Uint32Array;
  first: Uint32Array;
  /** Section lengths (16 bits when every one fits). */
  lens: Uint16Array | Uint32Array;
  /** Pages whose ids are not one ascending run (a repair's leftovers), ascending, and their ids in that order. */
  oddPages: Uint32Array;
  oddIds: Uint32Array;
}

/** The snapshot's other columns (meta COLUMNS_KEY). */
export interface SnapshotColumns {
  v: typeof SNAPSHOT_VERSION;
  gen: number;
  sites: string[];
  titles: string[];
  firstVisit: Float64Array;
  visitCount: Float64Array;
  /** Page i's visits are visits[visitEnd[i-1]..visitEnd[i]), when hasVisits[i] (the field is optional). */
  visitEnd: Uint32Array;
  visits: Float64Array;
  hasVisits: Uint8Array;
  /** The rare fields, for the pages that have them. */
  extra: { i: number; kind?: PageRecord['kind']; fetchSkipped?: PageRecord['fetchSkipped'] }[];
}

/** The first form (one record, meta SNAPSHOT_KEY): still read, never written. */
export interface SnapshotV1 extends Omit<SnapshotColumns, 'v' | 'gen'> {
  v: 1;
  urls: string[];
  lastVisit: Float64Array;
  idEnd: Uint32Array;
  ids: Uint32Array;
  lens: Uint32Array;
}

/** The snapshot of these pages (every one with its lengths): the core and the columns. */
export function encodeSnapshot(pages: readonly PageRecord[], gen = Math.floor(Math.random() * 2 ** 32)): { core: SnapshotCore; columns: SnapshotColumns } {
  const n = pages.length;
  let ids = 0;
  let visits = 0;
  let maxLen = 0;
  let oddPages = 0;
  let oddIds = 0;
  for (const p of pages) {
    ids += p.chunkIds.length;
    visits += p.visits?.length ?? 0;
    for (const l of p.lens!) if (l > maxLen) maxLen = l;
    if (!isRun(p.chunkIds)) {
      oddPages++;
      oddIds += p.chunkIds.length;
    }
  }
  const core: SnapshotCore = {
    v: SNAPSHOT_VERSION,
    gen,
    urls: [],
    lastVisit: new Float64Array(n),
    idEnd: new Uint32Array(n),
    first: new Uint32Array(n),
    lens: maxLen < 65_536 ? new Uint16Array(ids) : new Uint32Array(ids),
    oddPages: new Uint32Array(oddPages),
    oddIds: new Uint32Array(oddIds),
  };
  const columns: SnapshotColumns = {
    v: SNAPSHOT_VERSION,
    gen,
    sites: [],
    titles: [],
    firstVisit: new Float64Array(n),
    visitCount: new Float64Array(n),
    visitEnd: new Uint32Array(n),
    visits: new Float64Array(visits),
    hasVisits: new Uint8Array(n),
    extra: [],
  };
  let at = 0;
  let v = 0;
  let odd = 0;
  let oddAt = 0;
  pages.forEach((p, i) => {
    core.urls.push(p.url);
    core.lastVisit[i] = p.lastVisit;
    core.first[i] = p.chunkIds[0] ?? 0;
    if (!isRun(p.chunkIds)) {
      core.oddPages[odd++] = i;
      core.oddIds.set(p.chunkIds, oddAt);
      oddAt += p.chunkIds.length;
    }
    core.lens.set(p.lens!, at);
    at += p.chunkIds.length;
    core.idEnd[i] = at;
    columns.sites.push(p.site);
    columns.titles.push(p.title);
    columns.firstVisit[i] = p.firstVisit;
    columns.visitCount[i] = p.visitCount;
    if (p.visits) {
      columns.hasVisits[i] = 1;
      columns.visits.set(p.visits, v);
      v += p.visits.length;
    }
    columns.visitEnd[i] = v;
    if (p.kind || p.fetchSkipped) columns.extra.push({ i, ...(p.kind ? { kind: p.kind } : {}), ...(p.fetchSkipped ? { fetchSkipped: p.fetchSkipped } : {}) });
  });
  return { core, columns };
}

/** Whether ids are one ascending run (a page's ids as one write assigns them). */
function isRun(ids: readonly number[]): boolean {
  for (let i = 1; i < ids.length; i++) if (ids[i] !== ids[0]! + i) return false;
  return true;
}

/** A version-1 snapshot in the current form (its ids as runs where they are). */
export function fromV1(s: SnapshotV1): { core: SnapshotCore; columns: SnapshotColumns } {
  const n = s.urls.length;
  const first = new Uint32Array(n);
  const odd: number[] = [];
  const oddIds: number[] = [];
  let at = 0;
  for (let i = 0; i < n; i++) {
    const end = s.idEnd[i]!;
    first[i] = end > at ? s.ids[at]! : 0;
    for (let j = at + 1; j < end; j++)
      if (s.ids[j] !== s.ids[at]! + (j - at)) {
        odd.push(i);
        for (let k = at; k < end; k++) oddIds.push(s.ids[k]!);
        break;
      }
    at = end;
  }
  return {
    core: { v: SNAPSHOT_VERSION, gen: 0, urls: s.urls, lastVisit: s.lastVisit, idEnd: s.idEnd, first, lens: s.lens, oddPages: Uint32Array.from(odd), oddIds: Uint32Array.from(oddIds) },
    columns: { v: SNAPSHOT_VERSION, gen: 0, sites: s.sites, titles: s.titles, firstVisit: s.firstVisit, visitCount: s.visitCount, visitEnd: s.visitEnd, visits: s.visits, hasVisits: s.hasVisits, extra: s.extra },
  };
}

/** Page i's chunk ids, from the core. */
export function pageIds(c: SnapshotCore, i: number): number[] {
  const start = i ? c.idEnd[i - 1]! : 0;
  const n = c.idEnd[i]! - start;
  const out = new Array<number>(n);
  const k = oddIndex(c, i);
  if (k < 0) for (let j = 0; j < n; j++) out[j] = c.first[i]! + j;
  else {
    const from = oddStarts(c)[k]!;
    for (let j = 0; j < n; j++) out[j] = c.oddIds[from + j]!;
  }
  return out;
}

/** Where page i is in oddPages (-1: its ids are a run). */
function oddIndex(c: SnapshotCore, i: number): number {
  const a = c.oddPages;
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < i) lo = mid + 1;
    else hi = mid;
  }
  return lo < a.length && a[lo] === i ? lo : -1;
}

const oddStartsOf = new WeakMap<SnapshotCore, Uint32Array>();
/** Where each odd page's ids start in oddIds. */
function oddStarts(c: SnapshotCore): Uint32Array {
  let out = oddStartsOf.get(c);
  if (!out) {
    const starts = new Uint32Array(c.oddPages.length);
    let at = 0;
    c.oddPages.forEach((p, k) => {
      starts[k] = at;
      at += c.idEnd[p]! - (p ? c.idEnd[p - 1]! : 0);
    });
    oddStartsOf.set(c, (out = starts));
  }
  return out;
}

/**
 * Every section of the core, page by page: `run(page, first, from, to)` for a page whose ids are one
 * run (first, first+1, … with lengths lens[from..to)), `odd(page, ids, from)` for another (its ids,
 * lengths from lens[from]). The loader's pass over a million sections, without an object per page.
 */
export function forEachPageIds(c: SnapshotCore, run: (page: number, first: number, from: number, to: number) => void, odd: (page: number, ids: Uint32Array, from: number) => void): void {
  let at = 0;
  let k = 0;
  let oddAt = 0;
  const n = c.urls.length;
  for (let i = 0; i < n; i++) {
    const end = c.idEnd[i]!;
    if (k < c.oddPages.length && c.oddPages[k] === i) {
      odd(i, c.oddIds.subarray(oddAt, oddAt + end - at), at);
      oddAt += end - at;
      k++;
    } else run(i, c.first[i]!, at, end);
    at = end;
  }
}

/** Every section of the core in page order: `each(page, id, len)` (tests; the loader takes forEachPageIds). */
export function forEachSection(c: SnapshotCore, each: (page: number, id: number, len: number) => void): void {
  forEachPageIds(
    c,
    (i, first, from, to) => {
      for (let j = from; j < to; j++) each(i, first + j - from, c.lens[j]!);
    },
    (i, ids, from) => ids.forEach((id, j) => each(i, id, c.lens[from + j]!)),
  );
}

/** Page i of the snapshot as the table holds it. `extra` is the columns' rare fields by page. */
export function pageMeta(c: SnapshotCore, s: SnapshotColumns, extra: ReadonlyMap<number, SnapshotColumns['extra'][number]>, i: number): PageMeta {
  const m: PageMeta = {
    url: c.urls[i]!,
    site: s.sites[i]!,
    title: s.titles[i]!,
    lastVisit: c.lastVisit[i]!,
    firstVisit: s.firstVisit[i]!,
    visitCount: s.visitCount[i]!,
    chunkIds: pageIds(c, i),
  };
  if (s.hasVisits[i]) m.visits = toArray(s.visits, i ? s.visitEnd[i - 1]! : 0, s.visitEnd[i]!);
  const e = extra.get(i);
  if (e?.kind) m.kind = e.kind;
  if (e?.fetchSkipped) m.fetchSkipped = e.fetchSkipped;
  return m;
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
  // LOG_RANGE holds COLUMNS_KEY too.
  return Promise.all([tx.objectStore('meta').delete(SNAPSHOT_KEY), tx.objectStore('meta').delete(LOG_RANGE())]);
}

/** `a[from..to)` as a plain array (Array.from over a subarray view costs several times this loop). */
function toArray(a: Uint32Array | Float64Array, from: number, to: number): number[] {
  const out = new Array<number>(to - from);
  for (let i = from; i < to; i++) out[i - from] = a[i]!;
  return out;
}
