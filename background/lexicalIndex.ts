/**
 * Reads of the BM25 index: only the postings of the query's terms, from an in-memory cache that lives
 * as long as the worker and refills lazily from IndexedDB after a restart. Also the index's spellable
 * terms for typo correction (src/spelling.ts), read from the posting keys the first time a query has
 * a word the index does not know, then kept up to date by the writes' invalidations.
 */
import type { CorpusStats, PostingList } from '../src/bm25.js';
import { decodeBlocks, patchPostingList } from '../src/postings.js';
import { TermDictionary } from '../src/spelling.js';
import type { DB } from './db.js';
import { readStats, type PostingDelta } from './pageStore.js';

/** Entries kept in the cache before the least recently used terms are dropped (~12 bytes each). */
const CACHE_MAX_ENTRIES = 4_000_000;

export class LexicalReader {
  private readonly cache = new Map<string, PostingList>();
  private cached = 0;
  private stats: CorpusStats | null = null;
  /** Bumped by every write; a read that straddles a write does not fill the cache with stale data. */
  private generation = 0;
  private dictionary: TermDictionary | null = null;
  private dictionaryLoad: Promise<TermDictionary> | null = null;
  /** Terms written while the dictionary loads (its key scan may have passed them). */
  private dictionaryPending: string[] = [];
  private dictionaryGeneration = 0;

  constructor(private readonly db: () => Promise<DB>) {}

  /** Called after a write commits, with the terms whose postings changed. */
  invalidate(terms: Iterable<string> | 'all'): void {
    this.generation++;
    this.stats = null;
    if (terms === 'all') {
      this.cache.clear();
      this.cached = 0;
      this.dictionary = null;
      this.dictionaryLoad = null;
      this.dictionaryPending = [];
      this.dictionaryGeneration++;
      return;
    }
    for (const t of terms) {
      if (this.dictionary) this.dictionary.add(t);
      else if (this.dictionaryLoad) this.dictionaryPending.push(t);
      const hit = this.cache.get(t);
      if (hit) {
        this.cached -= hit.ids.length;
        this.cache.delete(t);
      }
    }
  }

  /**
   * Called after a page write commits, with exactly what it changed: cached posting lists and the
   * statistics follow the write instead of being dropped. Dropping them made every search after a
   * write read its terms from IndexedDB again (the most common terms, tens of thousands of postings,
   * after every page a backfill stored), each read waiting for the write transactions queued before it.
   */
  apply(delta: PostingDelta): void {
    this.generation++;
    if (delta.stats) this.stats = { N: delta.stats.N, totalLength: delta.stats.totalLength };
    const terms = new Set([...delta.removed.keys(), ...delta.added.keys()]);
    for (const t of terms) {
      if (this.dictionary) this.dictionary.add(t);
      else if (this.dictionaryLoad) this.dictionaryPending.push(t);
      const hit = this.cache.get(t);
      if (!hit) continue;
      this.cached -= hit.ids.length;
      const next = patchPostingList(hit, delta.removed.get(t), delta.added.get(t));
      if (next) {
        this.cache.set(t, next);
        this.cached += next.ids.length;
      } else this.cache.delete(t);
    }
  }

  async corpusStats(): Promise<CorpusStats> {
    if (this.stats) return this.stats;
    const gen = this.generation;
    const db = await this.db();
    const tx = db.transaction('meta');
    const s = await readStats(tx);
    const stats = { N: s.N, totalLength: s.totalLength };
    if (gen === this.generation) this.stats = stats;
    return stats;
  }

  async postings(terms: readonly string[]): Promise<Map<string, PostingList>> {
    const out = new Map<string, PostingList>();
    const missing: string[] = [];
    for (const t of terms) {
      const hit = this.cache.get(t);
      if (hit) {
        // Re-insert: Map order is our LRU order.
        this.cache.delete(t);
        this.cache.set(t, hit);
        out.set(t, hit);
      } else missing.push(t);
    }
    if (!missing.length) return out;
    const gen = this.generation;
    const db = await this.db();
    const tx = db.transaction('postings');
    const lists = await Promise.all(
      missing.map((t) => tx.store.getAll(IDBKeyRange.bound([t, 0], [t, Infinity]))),
    );
    missing.forEach((t, i) => {
      const list = decodeBlocks(lists[i]!.map((r) => ({ first: r.f, n: r.n, data: r.d })));
      out.set(t, list);
      if (gen === this.generation) this.remember(t, list);
    });
    return out;
  }

  /** Index terms within maxEdits of `term` (the dictionary is read from the posting keys on first use). */
  async similarTerms(term: string, maxEdits: number): Promise<{ term: string; distance: number }[]> {
    return (await this.terms()).near(term, maxEdits);
  }

  private terms(): Promise<TermDictionary> {
    if (this.dictionary) return Promise.resolve(this.dictionary);
    if (!this.dictionaryLoad) {
      const gen = ++this.dictionaryGeneration;
      const load: Promise<TermDictionary> = (async () => {
        const dict = new TermDictionary();
        const db = await this.db();
        // Posting keys are [term, first id]; read them in pages so no transaction holds them all.
        let from: IDBKeyRange | null = null;
        for (;;) {
          const keys = await db.getAllKeys('postings', from, 20_000);
          for (const k of keys) dict.add(k[0]);
          if (keys.length < 20_000) break;
          from = IDBKeyRange.lowerBound(keys[keys.length - 1]!, true);
        }
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

  private remember(term: string, list: PostingList): void {
    this.cache.set(term, list);
    this.cached += list.ids.length;
    for (const [t, l] of this.cache) {
      if (this.cached <= CACHE_MAX_ENTRIES) break;
      this.cache.delete(t);
      this.cached -= l.ids.length;
    }
  }
}
