/**
 * Reads of the BM25 index: only the postings of the query's terms, from an in-memory cache that lives
 * as long as the worker and refills lazily from IndexedDB after a restart.
 */
import type { CorpusStats, PostingList } from '../src/bm25.js';
import { decodeBlocks } from '../src/postings.js';
import type { DB } from './db.js';
import { readStats } from './pageStore.js';

/** Entries kept in the cache before the least recently used terms are dropped (~12 bytes each). */
const CACHE_MAX_ENTRIES = 4_000_000;

export class LexicalReader {
  private readonly cache = new Map<string, PostingList>();
  private cached = 0;
  private stats: CorpusStats | null = null;
  /** Bumped by every write; a read that straddles a write does not fill the cache with stale data. */
  private generation = 0;

  constructor(private readonly db: () => Promise<DB>) {}

  /** Called after a write commits, with the terms whose postings changed. */
  invalidate(terms: Iterable<string> | 'all'): void {
    this.generation++;
    this.stats = null;
    if (terms === 'all') {
      this.cache.clear();
      this.cached = 0;
      return;
    }
    for (const t of terms) {
      const hit = this.cache.get(t);
      if (hit) {
        this.cached -= hit.ids.length;
        this.cache.delete(t);
      }
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
