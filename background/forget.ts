/**
 * Forgetting: pages by URL, by site, by visit range, everything, and the retention policy. A delete
 * removes a page, its sections and its queue entries and stores a tombstone for its chunk ids in one
 * transaction (pageStore.deletePages): from then on no reader sees its postings or vectors, which the
 * next sweep removes (indexMaintenance.ts). No stored text is needed to forget a page.
 */
import { siteMatches } from '../src/url.js';
import { hasLegacy, LEGACY_STORES, MIGRATION_KEY, type StoreName } from './db.js';
import type { Engine } from './engine.js';
import { MERGE_KEY, SWEEP_KEY } from './indexMaintenance.js';
import { deletePages, forgetCaches, readStats } from './pageStore.js';
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
    const res = await deletePages(db, urls);
    this.engine.applyDelete(res);
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
      const stores: StoreName[] = ['pages', 'sections', 'terms', 'postings', 'segments', 'tombstones', 'embedQueue', 'vectors', 'meta'];
      const legacy = hasLegacy(db);
      const tx = db.transaction(legacy ? [...stores, ...LEGACY_STORES] : stores, 'readwrite');
      const stats = await readStats(tx);
      await Promise.all([
        ...stores.filter((s) => s !== 'meta').map((s) => tx.objectStore(s).clear()),
        ...(legacy ? LEGACY_STORES.map((s) => tx.objectStore(s).clear()) : []),
        // Nothing is left to merge, sweep or migrate.
        ...[MERGE_KEY, SWEEP_KEY, MIGRATION_KEY].map((k) => tx.objectStore('meta').delete(k)),
        // Keep counting chunk ids (and segment keys) from where they were: ids are never reused (an
        // embedding batch in flight must not attach an old chunk's vector to a new chunk with the same id).
        tx.objectStore('meta').put({ N: 0, totalLength: 0, nextChunkId: stats.nextChunkId, nextSeq: stats.nextSeq }, 'stats'),
      ]);
      await tx.done;
      // Nothing of the pages stays in memory either.
      forgetCaches(db);
      this.engine.resetReaders();
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
