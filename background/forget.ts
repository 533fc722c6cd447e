/**
 * Forgetting: pages by URL, by site, by visit range, everything, and the retention policy. Every delete
 * removes a page and everything derived from it (sections, texts, postings, vectors, queue entries) in
 * one transaction (pageStore.deletePages), then brings the engine's caches in step.
 */
import { siteMatches } from '../src/url.js';
import { TOKENIZER } from '../src/indexing.js';
import type { Engine } from './engine.js';
import { deletePages, forgetCaches } from './pageStore.js';
import { EVICT_FRACTION } from './storageBudget.js';

export class Forget {
  constructor(private readonly engine: Engine) {}

  async urls(urls: readonly string[]): Promise<number> {
    if (!urls.length) return 0;
    return this.engine.exclusive(() => this.urlsLocked(urls));
  }

  /** Deletes with the write lock already held. */
  async urlsLocked(urls: readonly string[]): Promise<number> {
    if (!urls.length) return 0;
    const db = await this.engine.db();
    const res = await deletePages(db, urls, TOKENIZER);
    this.engine.lexical.invalidate(res.touchedTerms);
    for (const p of res.pages) this.engine.pages.remove(p.url);
    this.engine.dense?.onChunksRemoved(res.removedChunkIds);
    return res.pages.length;
  }

  async site(site: string): Promise<number> {
    const urls = [...(await this.engine.pages.all()).values()].filter((p) => siteMatches(p.site, site)).map((p) => p.url);
    return this.urls(urls);
  }

  async range(after?: number, before?: number): Promise<number> {
    const urls = [...(await this.engine.pages.all()).values()]
      .filter((p) => (after === undefined || p.lastVisit >= after) && (before === undefined || p.lastVisit < before))
      .map((p) => p.url);
    return this.urls(urls);
  }

  async all(): Promise<number> {
    return this.engine.exclusive(async () => {
      const db = await this.engine.db();
      const n = await db.count('pages');
      const tx = db.transaction(['pages', 'chunks', 'texts', 'postings', 'embedQueue', 'vectors', 'meta'], 'readwrite');
      await Promise.all([
        tx.objectStore('pages').clear(),
        tx.objectStore('chunks').clear(),
        tx.objectStore('texts').clear(),
        tx.objectStore('postings').clear(),
        tx.objectStore('embedQueue').clear(),
        tx.objectStore('vectors').clear(),
        // Keep counting chunk ids from where they were: ids are never reused (an embedding batch in
        // flight must not attach an old chunk's vector to a new chunk with the same id).
        tx.objectStore('meta').get('stats').then((st) => tx.objectStore('meta').put({ N: 0, totalLength: 0, nextChunkId: (st as { nextChunkId?: number } | undefined)?.nextChunkId ?? 1 }, 'stats')),
      ]);
      await tx.done;
      // The stats record was rewritten without the tail token, so the tail cache would be dropped on
      // the next write anyway; forget it (and cached text) now: nothing of the pages stays in memory.
      forgetCaches(db);
      this.engine.lexical.invalidate('all');
      this.engine.pages.reset();
      this.engine.dense?.onChunksRemoved([]);
      return n;
    });
  }

  /**
   * The retention policy: forget pages not visited for `retentionDays`, then, while the storage used
   * is over `maxStorageMb`, the least recently visited ones. Returns how many pages were forgotten.
   */
  async retention(now = Date.now(), usage?: () => Promise<number | undefined>): Promise<number> {
    const s = await this.engine.settings();
    return this.engine.exclusive(async () => {
      let forgotten = 0;
      if (s.retentionDays > 0) {
        const cutoff = now - s.retentionDays * 86_400_000;
        forgotten += await this.urlsLocked([...(await this.engine.pages.all()).values()].filter((p) => p.lastVisit < cutoff).map((p) => p.url));
      }
      if (s.maxStorageMb > 0 && usage) {
        // One pass, sized by the overshoot (at least EVICT_FRACTION): the usage estimate falls only
        // when the database compacts, so re-measuring after each round would forget too much.
        const used = await usage();
        const max = s.maxStorageMb * 1024 * 1024;
        if (used !== undefined && used > max) forgotten += await this.engine.budget.evictOldestLocked(Math.max(EVICT_FRACTION, 1 - max / used));
      }
      if (forgotten) this.engine.budget.warning = undefined;
      return forgotten;
    });
  }
}
