/** Shared set-up for the storage tests: a fresh fake-indexeddb database per test, and readers of every store. */
import 'fake-indexeddb/auto';
import { openDB } from 'idb';
import { hashHex } from '../../src/hash.js';
import { blockFromValue, decodeBlock, decodeSegment } from '../../src/postings.js';
import { siteOf } from '../../src/url.js';
import { DB_VERSION, upgrade, type DB, type RereadDB, type StatsRecord, type StoreName } from '../../background/db.js';
import { DeadSet } from '../../background/delta.js';
import { Engine } from '../../background/engine.js';
import type { PageInput } from '../../background/pageStore.js';
import type { HistoryImport, HistorySource } from '../../background/dayone/historyImport.js';
import { chunkSteps, type Block, type Chunk } from '../../src/chunker.js';
import type { Pace } from '../../src/sections.js';
import { normalizeBlocks } from '../../src/validate.js';
import { pageSections } from '../../background/sections.js';

let counter = 0;

/**
 * A new, empty database. getDb() caches one connection per context whatever the name, so tests open
 * their own with the schema's upgrade function.
 */
export function freshDb(): Promise<DB> {
  return openDB<RereadDB>(`reread-test-${process.pid}-${++counter}`, DB_VERSION, { upgrade: (db, oldVersion, _v, tx) => upgrade(db, oldVersion, tx) });
}

/**
 * An engine over `db` whose index maintenance runs only when a test says so (`settle`), so a test
 * sees exactly the states it means to; `auto: true` keeps the product's scheduling.
 */
export function engineOn(db: DB, opts: { auto?: boolean } = {}): Engine {
  const engine = new Engine(() => Promise.resolve(db));
  engine.maintenance.auto = opts.auto ?? false;
  return engine;
}

/** Merges every pending segment and sweeps every tombstone (and finishes a migration). */
export async function settle(engine: Engine): Promise<void> {
  await engine.maintenance.run({ force: true });
}

/** Chunks as the chunker would make them, one per text. */
export function chunksOf(texts: readonly string[]): Chunk[] {
  return texts.map((text, ord) => ({ ord, headingPath: [`Section ${ord}`], section: `Section ${ord}`, anchor: { id: `s${ord}` }, text, words: text.split(/\s+/).filter(Boolean).length }));
}

export function pageInput(url: string, title: string, texts: readonly string[], now = 1_700_000_000_000, embedModel: string | null = null): PageInput {
  const chunks = chunksOf(texts);
  return {
    url,
    site: siteOf(url),
    title,
    lang: 'en',
    hash: hashHex(title + '\u0000' + texts.join('\u0000')),
    words: chunks.reduce((n, c) => n + c.words, 0),
    chunks,
    now,
    embedModel,
  };
}

export const STORES: StoreName[] = ['pages', 'sections', 'terms', 'postings', 'segments', 'tombstones', 'meta', 'embedQueue', 'vectors'];

export async function readAll(db: DB) {
  const tx = db.transaction(STORES);
  const both = <S extends StoreName>(s: S) => Promise.all([tx.objectStore(s).getAllKeys(), tx.objectStore(s).getAll()]);
  const [pages, sections, [termKeys, termIds], [postingKeys, postingValues], [segmentKeys, segments], [tombstoneKeys, tombstones], metaKeys, stats, queue, vectors] = await Promise.all([
    tx.objectStore('pages').getAll(),
    tx.objectStore('sections').getAll(),
    both('terms'),
    both('postings'),
    both('segments'),
    both('tombstones'),
    tx.objectStore('meta').getAllKeys(),
    tx.objectStore('meta').get('stats') as Promise<StatsRecord | undefined>,
    tx.objectStore('embedQueue').getAll(),
    tx.objectStore('vectors').getAll(),
  ]);
  await tx.done;
  const terms = termKeys.map((t, i) => ({ term: t, id: termIds[i]! }));
  const termOf = new Map(terms.map((t) => [t.id, t.term]));
  /** The main index's blocks, decoded, with their term. */
  const postings = postingKeys.map(([termId, first], i) => ({ termId, term: termOf.get(termId), first, entries: decodeBlock(blockFromValue(first, postingValues[i]!)) }));
  return { pages, sections, terms, postings, postingValues, segments: segments.map((s, i) => ({ seq: segmentKeys[i]!, ...s })), tombstones: tombstones.map((t, i) => ({ seq: tombstoneKeys[i]!, ...t })), metaKeys, stats, queue, vectors };
}

/** chunk id -> "url#ord", from the page records. */
export async function chunkNames(db: DB): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  for (const p of await db.getAll('pages')) p.chunkIds.forEach((id, ord) => out.set(id, `${p.url}#${ord}`));
  return out;
}

/**
 * The index as readers see it — main blocks and pending segments, forgotten ids dropped — with chunk ids
 * replaced by what they stand for (url and position), so an index built incrementally can be compared
 * with one built from scratch, whose ids differ, whatever was merged or swept.
 */
export async function logicalIndex(db: DB) {
  const all = await readAll(db);
  const name = await chunkNames(db);
  const dead = new DeadSet(all.tombstones.map((t) => ({ seq: t.seq, first: t.first, end: t.end })));
  const lenOf = new Map<number, number>();
  for (const p of all.pages) p.chunkIds.forEach((id, i) => lenOf.set(id, p.lens?.[i] ?? -1));
  const byTerm = new Map<string, Map<number, number>>();
  const add = (t: string, id: number, tf: number) => {
    if (dead.has(id)) return;
    let m = byTerm.get(t);
    if (!m) byTerm.set(t, (m = new Map()));
    m.set(id, tf);
  };
  for (const b of all.postings) for (const e of b.entries) add(b.term ?? `#${b.termId}`, e.id, e.tf);
  for (const s of all.segments) decodeSegment(s, s.first, (t, list) => list.forEach((e) => add(t, e.id, e.tf)));
  const terms: Record<string, string[]> = {};
  for (const [t, m] of byTerm) terms[t] = [...m].map(([id, tf]) => `${name.get(id) ?? `missing:${id}`} tf=${tf} len=${lenOf.get(id)}`).sort();
  const sections = await pageSections(db, all.pages);
  return {
    terms: Object.fromEntries(Object.entries(terms).sort(([a], [b]) => (a < b ? -1 : 1))),
    N: all.stats?.N ?? 0,
    totalLength: all.stats?.totalLength ?? 0,
    pages: all.pages.map((p) => ({ url: p.url, site: p.site, title: p.title, hash: p.hash, chunks: p.chunkIds.map((id) => name.get(id)), lens: p.lens })).sort((a, b) => a.url.localeCompare(b.url)),
    chunks: [...sections.values()].flatMap((ss) => (ss ?? []).map((c) => ({ name: name.get(c.id), text: c.text, section: c.section, headingPath: c.headingPath, anchor: c.anchor }))).sort((a, b) => a.name!.localeCompare(b.name!)),
    queue: all.queue.map((q) => `${name.get(q.id) ?? `missing:${q.id}`} ${q.model}`).sort(),
  };
}

/** Structural rules of the main index that the logical comparison cannot see. */
export async function postingStructureProblems(db: DB, blockSize: number): Promise<string[]> {
  const { postings, terms } = await readAll(db);
  const problems: string[] = [];
  const ids = new Set<number>();
  for (const t of terms) {
    if (ids.has(t.id)) problems.push(`term id ${t.id} used twice`);
    ids.add(t.id);
  }
  let prevTerm = -1;
  let prevMax = -1;
  for (let i = 0; i < postings.length; i++) {
    const b = postings[i]!;
    const next = postings[i + 1];
    const nextKey = next && next.termId === b.termId ? next.first : Infinity;
    if (b.termId !== prevTerm) {
      prevTerm = b.termId;
      prevMax = -1;
    }
    const label = `${b.term ?? `#${b.termId}`}/${b.first}`;
    if (b.term === undefined) problems.push(`${label}: term id not in the dictionary`);
    if (!b.entries.length) problems.push(`${label} empty`);
    if (b.entries.length > blockSize) problems.push(`${label} holds ${b.entries.length}`);
    for (const e of b.entries) {
      if (e.id < b.first) problems.push(`${label} holds smaller id ${e.id}`);
      if (e.id <= prevMax) problems.push(`${label}: id ${e.id} out of order`);
      if (e.id >= nextKey) problems.push(`${label}: id ${e.id} at or past the next block's key ${nextKey}`);
      prevMax = e.id;
    }
  }
  return problems;
}

/** A copy of a database in a fresh one (cheaper than indexing a fixture again for every test). */
export async function cloneDb(src: DB): Promise<DB> {
  const dst = await freshDb();
  const rtx = src.transaction(STORES);
  const data = await Promise.all(STORES.map(async (s) => ({ s, keys: await rtx.objectStore(s).getAllKeys(), values: await rtx.objectStore(s).getAll() })));
  await rtx.done;
  const tx = dst.transaction(STORES, 'readwrite');
  const puts: Promise<unknown>[] = [];
  for (const { s, keys, values } of data) {
    const store = tx.objectStore(s);
    const inline = store.keyPath !== null;
    values.forEach((v, i) => puts.push(inline ? store.put(v as never) : store.put(v as never, keys[i] as never)));
  }
  await Promise.all(puts);
  await tx.done;
  return dst;
}

export interface Item {
  url: string;
  title: string;
  lastVisitTime: number;
  visitCount: number;
}

/** The browser's history.search over a list: newest first, [startTime, endTime), maxResults. */
export function fakeHistory(items: Item[], calls: { n: number } = { n: 0 }): HistorySource {
  return {
    async search(q) {
      calls.n++;
      return items
        .filter((i) => i.lastVisitTime >= q.startTime && i.lastVisitTime < q.endTime)
        .sort((a, b) => b.lastVisitTime - a.lastVisitTime)
        .slice(0, q.maxResults);
    },
  };
}

/** An address in the browser's history with every visit time (the Chromium stand-in below). */
export interface ChromiumItem {
  url: string;
  title: string;
  visits: number[];
}

/**
 * The browser's history as Chromium answers it: an address is in a window when one of its visits is,
 * ordered by its latest visit in the window, newest first, but `lastVisitTime` is its last visit of all.
 * `maxResults` caps the answer, and addresses whose visits in the window tie keep their order in `items`.
 */
export function chromiumHistory(items: readonly ChromiumItem[], calls: { n: number } = { n: 0 }): HistorySource {
  const byUrl = new Map(items.map((i) => [i.url, i]));
  return {
    async search(q) {
      calls.n++;
      return items
        .map((i) => ({ i, inWindow: Math.max(-Infinity, ...i.visits.filter((v) => v >= q.startTime && v < q.endTime)) }))
        .filter((x) => x.inWindow > -Infinity)
        .sort((a, b) => b.inWindow - a.inWindow)
        .slice(0, q.maxResults)
        .map(({ i }) => ({ url: i.url, title: i.title, lastVisitTime: Math.max(...i.visits), visitCount: i.visits.length }));
    },
    async getVisits({ url }) {
      return (byUrl.get(url)?.visits ?? []).map((visitTime) => ({ visitTime }));
    },
  };
}

/**
 * The browser's history as Firefox answers it (ext-history.js over Places, checked in Firefox ESR 153): an
 * address is in a window when one of its visits is, the end included, but the answer is ordered by the
 * address's last visit of all, newest first, then cut at `maxResults`. An address visited again since
 * comes before one whose only visit is newer inside the window.
 */
export function firefoxHistory(items: readonly ChromiumItem[], calls: { n: number } = { n: 0 }): HistorySource {
  const byUrl = new Map(items.map((i) => [i.url, i]));
  return {
    async search(q) {
      calls.n++;
      return items
        .filter((i) => i.visits.some((v) => v >= q.startTime && v <= q.endTime))
        .map((i) => ({ url: i.url, title: i.title, lastVisitTime: Math.max(...i.visits), visitCount: i.visits.length }))
        .sort((a, b) => b.lastVisitTime - a.lastVisitTime)
        .slice(0, q.maxResults);
    },
    async getVisits({ url }) {
      return [...(byUrl.get(url)?.visits ?? [])].sort((a, b) => b - a).map((visitTime) => ({ visitTime }));
    },
  };
}

/** The history over `items`, whose `nth` read waits for `release()`; `held` resolves once that read has begun. */
export function heldHistory(items: Item[], nth: number): { source: HistorySource; held: Promise<void>; release: () => void } {
  const all = fakeHistory(items);
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let reached!: () => void;
  const held = new Promise<void>((r) => (reached = r));
  let calls = 0;
  const source: HistorySource = {
    async search(q) {
      if (++calls === nth) {
        reached();
        await gate;
      }
      return all.search(q);
    },
  };
  return { source, held, release };
}

/** "The next release": a chunker with 80-word windows, and its version (re-cut tests). */
export const NEXT_CHUNKER = '2.test';
export const nextCut = async (blocks: readonly Block[], pace: Pace) => {
  const steps = chunkSteps(normalizeBlocks(blocks).blocks, { maxWords: 80 });
  for (;;) {
    const r = steps.next();
    if (r.done) return { blocks: normalizeBlocks(blocks).blocks, sections: r.value.chunks };
    await pace.yieldToPage();
  }
};

/**
 * A history import whose worker stops for good after `writes` batch writes (the browser stopped it): the
 * next write never returns. Resolves when that write is reached.
 */
export function stopAfterWrites(importer: HistoryImport, writes: number): Promise<void> {
  type Write = (b: unknown[], ...rest: unknown[]) => Promise<unknown>;
  const target = importer as unknown as { write: Write };
  const inner = target.write.bind(importer);
  let n = 0;
  return new Promise<void>((stopped) => {
    target.write = async (b, ...rest) => {
      if (++n > writes) {
        stopped();
        return new Promise<never>(() => undefined); // never: the worker is gone
      }
      return inner(b, ...rest);
    };
  });
}
