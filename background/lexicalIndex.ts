/**
 * Reads of the BM25 index: only the postings of the query's terms — the main index's blocks (by term id,
 * from the term dictionary), plus the pending segments' postings (delta.ts), minus forgotten ids, with
 * each section's length filled in from the norms (pageTable.ts). The main part is cached in memory for
 * the worker's life and refills lazily from IndexedDB after a restart.
 *
 * A capture or a delete does not touch the main index, so it leaves the cache valid (new postings come
 * from the delta, forgotten ids are filtered out). A merge's end patches the cached lists of its terms
 * with exactly the postings it moved from its segments into the main index (`merged`): dropping them
 * made the first search after every merge read its most common terms from IndexedDB again, each read
 * waiting for the write transactions queued before it (a backfill stores page after page). Only a
 * repair and forgetting everything drop the cache.
 *
 * Also the index's spellable terms for typo correction (src/spelling.ts): read from the term dictionary
 * (and a migrating database's old posting keys) the first time a query has a word the index does not
 * know, then kept up to date from merges' invalidations and the pending segments' terms.
 */
import type { CorpusStats, PostingList } from '../src/bm25.js';
import { blockFromValue, decodeBlocks, emptyList, type LengthOf } from '../src/postings.js';
import { TermDictionary, type NearTerm } from '../src/spelling.js';
import type { UnspacedTerms } from '../src/recut.js';
import type { DB } from './db.js';
import type { Delta, DeltaSnapshot, PendingSegment } from './delta.js';
import { legacyActive, legacyPostings } from './legacy.js';
import { readStats } from './pageStore.js';
import type { PageTable } from './pageTable.js';
import type { TermIds } from './termIds.js';
import { traced } from './bootTrace.js';

/** Entries kept in the cache before the least recently used terms are dropped (~12 bytes each). */
const CACHE_MAX_ENTRIES = 4_000_000;

interface Cached {
  /** main ∪ legacy, without the ids dead at `deadGeneration`. */
  list: PostingList;
  deadGeneration: number;
}

/** Two ascending lists as one, an id in both taken once (the entries for an id are the same). */
export function unionLists(a: PostingList, b: PostingList): PostingList {
  if (!a.ids.length) return b;
  if (!b.ids.length) return a;
  if (a.ids[a.ids.length - 1]! < b.ids[0]!) return concat(a, b);
  const out = emptyList(a.ids.length + b.ids.length);
  let i = 0;
  let j = 0;
  let n = 0;
  const take = (l: PostingList, k: number) => {
    out.ids[n] = l.ids[k]!;
    out.tfs[n] = l.tfs[k]!;
    out.lens[n] = l.lens[k]!;
    n++;
  };
  while (i < a.ids.length || j < b.ids.length) {
    if (j >= b.ids.length || (i < a.ids.length && a.ids[i]! < b.ids[j]!)) take(a, i++);
    else if (i >= a.ids.length || b.ids[j]! < a.ids[i]!) take(b, j++);
    else {
      take(a, i++);
      j++;
    }
  }
  return { ids: out.ids.subarray(0, n), tfs: out.tfs.subarray(0, n), lens: out.lens.subarray(0, n) };
}

function concat(a: PostingList, b: PostingList): PostingList {
  const out = emptyList(a.ids.length + b.ids.length);
  out.ids.set(a.ids);
  out.ids.set(b.ids, a.ids.length);
  out.tfs.set(a.tfs);
  out.tfs.set(b.tfs, a.tfs.length);
  out.lens.set(a.lens);
  out.lens.set(b.lens, a.lens.length);
  return out;
}

/** A term's postings in the pending segments (oldest first, so ids ascend), lengths from the norms. */
export function deltaList(term: string, segments: readonly PendingSegment[], lenOf: LengthOf): PostingList | null {
  let n = 0;
  for (const s of segments) n += s.terms.get(term)?.ids.length ?? 0;
  if (!n) return null;
  const out = emptyList(n);
  let k = 0;
  for (const s of segments) {
    const l = s.terms.get(term);
    if (!l) continue;
    for (let i = 0; i < l.ids.length; i++) {
      out.ids[k] = l.ids[i]!;
      out.tfs[k] = l.tfs[i]!;
      out.lens[k] = lenOf(l.ids[i]!);
      k++;
    }
  }
  return out;
}

const EMPTY = emptyList(0);

export class LexicalReader {
  private readonly cache = new Map<string, Cached>();
  private cached = 0;
  private stats: CorpusStats | null = null;
  /** Bumped by every invalidation and merge; a read that straddles one does not fill the cache. */
  private generation = 0;
  /** The same for the statistics (every write and delete, every invalidation). */
  private statsGeneration = 0;
  private dictionary: TermDictionary | null = null;
  private dictionaryLoad: Promise<TermDictionary> | null = null;
  /** Terms merged while the dictionary loads (its key scan may have passed them). */
  private dictionaryPending: string[] = [];
  private dictionaryGeneration = 0;
  /** Pending segments whose terms the dictionary holds (by seq). */
  private readonly dictionarySegments = new Set<number>();

  constructor(
    private readonly db: () => Promise<DB>,
    private readonly delta: Delta,
    private readonly pages: PageTable,
    private readonly termIds: TermIds,
  ) {}

  /** The main index changed for these terms (a merge's end), or entirely (repair, forget everything). */
  invalidate(terms: Iterable<string> | 'all'): void {
    this.generation++;
    this.statsGeneration++;
    this.stats = null;
    if (terms === 'all') {
      this.cache.clear();
      this.cached = 0;
      this.dictionary = null;
      this.dictionaryLoad = null;
      this.dictionaryPending = [];
      this.dictionaryGeneration++;
      this.dictionarySegments.clear();
      return;
    }
    for (const t of terms) {
      if (this.dictionary) this.dictionary.add(t);
      else if (this.dictionaryLoad) this.dictionaryPending.push(t);
      const hit = this.cache.get(t);
      if (hit) {
        this.cached -= hit.list.ids.length;
        this.cache.delete(t);
      }
    }
  }

  /**
   * A merge committed: `segments`' postings of `terms` are in the main index now (and are about to leave
   * the delta). Cached lists of those terms take them in, live ones only, lengths from the norms — what
   * a fresh read of the main index would give — so the cache stays warm. Synchronous: called between
   * the commit and the delta's drop, with no search able to run in between.
   */
  merged(terms: readonly string[], segments: readonly PendingSegment[], lenOf: LengthOf): void {
    this.generation++; // a read in flight may have read the blocks before the commit: it fills nothing
    const dead = this.delta.dead;
    for (const t of terms) {
      if (this.dictionary) this.dictionary.add(t);
      else if (this.dictionaryLoad) this.dictionaryPending.push(t);
      const hit = this.cache.get(t);
      if (!hit) continue;
      const d = deltaList(t, segments, lenOf);
      if (!d) continue;
      const list = unionLists(hit.list, dead.filter(d));
      this.cached += list.ids.length - hit.list.ids.length;
      hit.list = list;
    }
  }

  /**
   * N or the total length changed (every capture and delete): `stats` as the write committed them, or
   * null to read them again.
   */
  statsChanged(stats: CorpusStats | null = null): void {
    this.statsGeneration++;
    this.stats = stats ? { N: stats.N, totalLength: stats.totalLength } : null;
  }

  async corpusStats(): Promise<CorpusStats> {
    if (this.stats) return this.stats;
    const gen = this.statsGeneration;
    const db = await this.db();
    const tx = db.transaction('meta');
    const s = await traced('corpus stats read', readStats(tx));
    const stats = { N: s.N, totalLength: s.totalLength };
    if (gen === this.statsGeneration) this.stats = stats;
    return stats;
  }

  async postings(terms: readonly string[]): Promise<Map<string, PostingList>> {
    const [, norms] = await traced('postings: delta + norms', Promise.all([this.delta.ready(), this.pages.norms()]));
    // The delta as of now: a segment a merge drops later is in the main index before it is dropped.
    const snap = this.delta.snapshot();
    const main = await traced('postings: main index read', this.mainLists([...new Set(terms)], snap, norms.lookup));
    const out = new Map<string, PostingList>();
    for (const t of terms) {
      const m = main.get(t) ?? EMPTY;
      const d = deltaList(t, snap.segments, norms.lookup);
      out.set(t, d ? unionLists(m, snap.dead.filter(d)) : m);
    }
    return out;
  }

  private async mainLists(terms: string[], snap: DeltaSnapshot, lenOf: LengthOf): Promise<Map<string, PostingList>> {
    const out = new Map<string, PostingList>();
    const missing: string[] = [];
    for (const t of terms) {
      const hit = this.cache.get(t);
      if (!hit) {
        missing.push(t);
        continue;
      }
      // Re-insert: Map order is our LRU order.
      this.cache.delete(t);
      this.cache.set(t, hit);
      if (hit.deadGeneration !== snap.deadGeneration) {
        // Ids were forgotten since: filter again (dead ids stay dead: they are never reused).
        const list = snap.dead.filter(hit.list);
        this.cached += list.ids.length - hit.list.ids.length;
        hit.list = list;
        hit.deadGeneration = snap.deadGeneration;
      }
      out.set(t, hit.list);
    }
    if (!missing.length) return out;
    const gen = this.generation;
    const db = await this.db();
    const legacy = legacyActive(db);
    const tx = db.transaction(legacy ? ['terms', 'postings', 'postingsV2'] : ['terms', 'postings']);
    const ids = await this.termIds.lookup(tx, missing);
    const read = await Promise.all(
      missing.map(async (t) => {
        const id = ids.get(t);
        const [values, keys, old] = await Promise.all([
          id === undefined ? [] : tx.objectStore('postings').getAll(IDBKeyRange.bound([id, 0], [id, Infinity])),
          id === undefined ? [] : tx.objectStore('postings').getAllKeys(IDBKeyRange.bound([id, 0], [id, Infinity])),
          legacy ? legacyPostings(tx, t) : EMPTY,
        ]);
        // A malformed block is skipped (verifyIndex reports it; repair rebuilds it).
        const blocks = values.flatMap((v, i) => {
          try {
            return [blockFromValue(keys[i]![1], v)];
          } catch {
            return [];
          }
        });
        const list = decodeBlocks(blocks, lenOf);
        return unionLists(old, list);
      }),
    );
    missing.forEach((t, i) => {
      const list = snap.dead.filter(read[i]!);
      out.set(t, list);
      if (gen === this.generation) this.remember(t, list, snap.deadGeneration);
    });
    return out;
  }

  /** Index terms within maxEdits of `term` (the dictionary is read from the stored terms on first use). */
  async similarTerms(term: string, maxEdits: number): Promise<NearTerm[]> {
    return (await this.currentTerms()).near(term, maxEdits);
  }

  /** The index's terms of scripts without spaces (src/recut.ts), from the same dictionary. */
  async unspacedTerms(): Promise<UnspacedTerms> {
    return (await this.currentTerms()).unspaced;
  }

  private async currentTerms(): Promise<TermDictionary> {
    const [dict] = await traced('term dictionary', Promise.all([this.terms(), this.delta.ready()]));
    // Terms of captures not merged yet are only in the pending segments.
    for (const seg of this.delta.pending()) {
      if (this.dictionarySegments.has(seg.seq)) continue;
      for (const t of seg.terms.keys()) dict.add(t);
      this.dictionarySegments.add(seg.seq);
    }
    return dict;
  }

  private terms(): Promise<TermDictionary> {
    if (this.dictionary) return Promise.resolve(this.dictionary);
    if (!this.dictionaryLoad) {
      const gen = ++this.dictionaryGeneration;
      const load: Promise<TermDictionary> = (async () => {
        const dict = new TermDictionary();
        const db = await this.db();
        // The term dictionary's keys, in pages so no transaction holds them all; a migrating database's
        // old posting keys ([term, first id]) too.
        const scan = async (store: 'terms' | 'postingsV2', term: (k: never) => string) => {
          let from: IDBKeyRange | null = null;
          for (;;) {
            const keys = (await db.getAllKeys(store, from, 20_000)) as unknown[];
            for (const k of keys) dict.add(term(k as never));
            if (keys.length < 20_000) break;
            from = IDBKeyRange.lowerBound(keys[keys.length - 1], true);
          }
        };
        await scan('terms', (k: string) => k);
        if (legacyActive(db)) await scan('postingsV2', (k: [string, number]) => k[0]);
        if (this.dictionaryGeneration !== gen) return dict; // invalidated meanwhile: serve it, keep nothing
        for (const t of this.dictionaryPending) dict.add(t);
        this.dictionaryPending = [];
        this.dictionary = dict;
        this.dictionaryLoad = null;
        return dict;
      })();
      this.dictionaryLoad = load;
      load.catch(() => {
        if (this.dictionaryGeneration === gen) this.dictionaryLoad = null;
      });
    }
    return this.dictionaryLoad!;
  }

  private remember(term: string, list: PostingList, deadGeneration: number): void {
    const old = this.cache.get(term);
    if (old) this.cached -= old.list.ids.length;
    this.cache.set(term, { list, deadGeneration });
    this.cached += list.ids.length;
    for (const [t, l] of this.cache) {
      if (this.cached <= CACHE_MAX_ENTRIES) break;
      this.cache.delete(t);
      this.cached -= l.list.ids.length;
    }
  }

  /** Entries held in the cache (for memory reports). */
  get cachedEntries(): number {
    return this.cached;
  }
}
