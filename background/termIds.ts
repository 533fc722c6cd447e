/**
 * The term dictionary's cache: term -> term id, for the terms recently looked up (queries) or merged.
 * The dictionary itself is the `terms` store; its ids are assigned only by merges, the migration and
 * repair, and an entry is deleted only when a sweep leaves its term without postings (`forget`).
 */
import type { IDBPTransaction } from 'idb';
import type { RereadDB, StoreName } from './db.js';

const MAX_ENTRIES = 200_000;

export class TermIds {
  private readonly cache = new Map<string, number>();
  /** Bumped when entries are forgotten: a lookup that straddles it does not cache what it read. */
  private generation = 0;

  get(term: string): number | undefined {
    const id = this.cache.get(term);
    if (id !== undefined) {
      // Re-insert: Map order is the LRU order.
      this.cache.delete(term);
      this.cache.set(term, id);
    }
    return id;
  }

  set(term: string, id: number): void {
    this.cache.delete(term);
    this.cache.set(term, id);
    if (this.cache.size > MAX_ENTRIES) for (const t of this.cache.keys()) {
      this.cache.delete(t);
      if (this.cache.size <= MAX_ENTRIES * 0.9) break;
    }
  }

  forget(terms: Iterable<string>): void {
    this.generation++;
    for (const t of terms) this.cache.delete(t);
  }

  reset(): void {
    this.generation++;
    this.cache.clear();
  }

  get size(): number {
    return this.cache.size;
  }

  /**
   * The ids of these terms (absent: not in the dictionary), from the cache or the `terms` store inside
   * the caller's transaction.
   */
  async lookup(tx: IDBPTransaction<RereadDB, StoreName[], IDBTransactionMode>, terms: readonly string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    const missing: string[] = [];
    for (const t of terms) {
      const id = this.get(t);
      if (id !== undefined) out.set(t, id);
      else missing.push(t);
    }
    if (missing.length) {
      const gen = this.generation;
      const store = tx.objectStore('terms');
      const ids = await Promise.all(missing.map((t) => store.get(t)));
      missing.forEach((t, i) => {
        const id = ids[i];
        if (typeof id !== 'number') return;
        out.set(t, id);
        if (gen === this.generation) this.set(t, id);
      });
    }
    return out;
  }
}
