/**
 * A resident table of page metadata (site, visit dates, chunk ids), loaded once per worker life with a
 * single getAll. Filters (site, date range, excluded page) resolve against it into a set of allowed
 * chunk ids before either lane scores anything. It also holds, by chunk id, each section's length (the
 * norms the posting decoder fills BM25's document lengths from) and the page that owns it (so a result's
 * section is read from its page's record without a record per section).
 */
import type { ParsedQuery } from '../src/query.js';
import { siteMatches } from '../src/url.js';
import { IdTable } from '../src/idTable.js';
import type { DB, PageRecord } from './db.js';
import { decodeSnapshot, encodeSnapshot, LOG_PREFIX, LOG_RANGE, SNAPSHOT_KEY, SNAPSHOT_LOG_MAX, SNAPSHOT_VERSION, type PageTableSnapshot } from './pageLog.js';
import { legacyActive } from './legacy.js';
import { readStats } from './pageStore.js';
import { mark, traced } from './bootTrace.js';

export type PageMeta = Pick<PageRecord, 'url' | 'site' | 'title' | 'lastVisit' | 'firstVisit' | 'visitCount' | 'chunkIds' | 'visits' | 'kind' | 'fetchSkipped'>;

interface Loaded {
  pages: Map<string, PageMeta>;
  norms: IdTable;
  /** chunk id -> slot + 1 of its page in `slots`. */
  owner: IdTable;
  slots: (PageMeta | undefined)[];
  slotOf: Map<string, number>;
  free: number[];
}

export class PageTable {
  private loaded: Loaded | null = null;
  /** The last load found the snapshot out of date: maintenance writes it again. */
  private staleSnapshot = false;
  /** No snapshot can be written in this worker's life (pages without lengths). */
  private snapshotBlocked = false;
  /** How the last load read the table, and how many logged pages it read beyond the snapshot (tests, benchmarks). */
  lastLoad: { from: 'snapshot' | 'full'; logged: number } | null = null;
  /** Called when a load found the snapshot out of date (the engine schedules maintenance). */
  onStale: (() => void) | null = null;
  private loading: Promise<Loaded> | null = null;
  /**
   * Writes committed while a load reads the store (it may have read before them), applied on top of
   * what it read; a write it did see is applied again, which changes nothing.
   */
  private early: ((t: Loaded) => void)[] = [];
  /** Bumped by reset(): a load started before it keeps nothing. */
  private epoch = 0;
  /**
   * Pages marked forgotten whose undo window is open (background/forget.ts): absent from every read
   * here, so no search, filter, count or site list shows them, while their records stay until purged.
   */
  private hidden = new Set<string>();
  /** Bumped by every change to the table or to `hidden`: what the views below were built from. */
  private version = 0;
  /**
   * While a forget's undo window is open (pages hidden), what every search would otherwise rebuild per
   * keystroke: the visible pages and their section ids (a million ids at 1M sections). Rebuilt only
   * when `version` moved.
   */
  private visibleCache: { version: number; pages: Map<string, PageMeta>; ids: Set<number> | null } | null = null;

  /** `snapshot: false` reads every page at each load (a store that is only a getAll, as the eval's). */
  constructor(
    private readonly db: () => Promise<DB>,
    private readonly opts: { snapshot?: boolean } = {},
  ) {}

  private async load(): Promise<Loaded> {
    if (this.loaded) return this.loaded;
    const epoch = this.epoch;
    this.loading ??= traced('page table load', (async () => {
      try {
        const db = await this.db();
        let t = this.opts.snapshot === false ? null : await traced('page table snapshot', this.fromSnapshot(db));
        if (t) mark('page table from the snapshot');
        else {
          mark('page table full read');
          this.lastLoad = { from: 'full', logged: 0 };
          t = emptyTable();
          const all = await traced('page table getAll', db.getAll('pages'));
          for (const p of all) add(t, meta(p), p.lens);
        }
        for (const f of this.early.splice(0)) f(t);
        if (epoch === this.epoch) {
          this.loaded = t;
          this.version++;
        }
        mark(`page table built: ${t.pages.size} pages`);
        return t;
      } finally {
        // On failure too: a rejected load kept here would fail every later filter until a reset.
        if (epoch === this.epoch) this.loading = null;
      }
    })());
    return this.loading;
  }

  /**
   * The table from the snapshot plus the pages written since (their log), in one read transaction;
   * null when there is no snapshot, a migration is under way, or the result disagrees with the store
   * (page count, live sections, total length, latest visit): then the caller reads every page.
   */
  private async fromSnapshot(db: DB): Promise<Loaded | null> {
    if (legacyActive(db)) return null;
    const tx = db.transaction(['meta', 'pages']);
    const metaStore = tx.objectStore('meta');
    const pages = tx.objectStore('pages');
    const [snap, logKeys, count, stats, latest] = await Promise.all([
      metaStore.get(SNAPSHOT_KEY) as Promise<PageTableSnapshot | undefined>,
      metaStore.getAllKeys(LOG_RANGE()),
      pages.count(),
      readStats(tx),
      pages.index('lastVisit').openKeyCursor(null, 'prev').then((c) => (c ? (c.key as number) : null)),
    ]);
    if (!snap || snap.v !== SNAPSHOT_VERSION) return null;
    const logged = (logKeys as string[]).map((k) => k.slice(LOG_PREFIX.length)).sort();
    const current = await Promise.all(logged.map((u) => pages.get(u)));
    const t = emptyTable();
    const skip = new Set(logged);
    decodeSnapshot(snap, (m, lens) => {
      if (!skip.has(m.url)) add(t, m, lens);
    });
    for (const p of current) if (p) add(t, meta(p), p.lens);
    // What the store says must be what the table holds: a writer that bypassed the log (an older
    // build, a bug) shows in one of these, and the full read takes over.
    let N = 0;
    let total = 0;
    let last: number | null = null;
    for (const m of t.pages.values()) {
      N += m.chunkIds.length;
      for (const id of m.chunkIds) total += t.norms.get(id);
      if (last === null || m.lastVisit > last) last = m.lastVisit;
    }
    const stale = t.pages.size !== count || N !== stats.N || total !== stats.totalLength || last !== latest;
    if (stale) {
      console.warn(`reread: page table snapshot out of date (${t.pages.size} pages vs ${count}, N ${N} vs ${stats.N}, length ${total} vs ${stats.totalLength}); reading every page`);
      this.staleSnapshot = true;
      this.onStale?.();
      return null;
    }
    this.lastLoad = { from: 'snapshot', logged: logged.length };
    return t;
  }

  /** Whether background maintenance should write the snapshot now (`force`: whenever pages were written since). */
  async snapshotWanted(db: DB, force = false): Promise<boolean> {
    if (legacyActive(db) || this.snapshotBlocked) return false;
    if (this.staleSnapshot) return true;
    const tx = db.transaction(['meta', 'pages']);
    const [has, logged, pages] = await Promise.all([tx.objectStore('meta').getKey(SNAPSHOT_KEY), tx.objectStore('meta').count(LOG_RANGE()), tx.objectStore('pages').count()]);
    if (has === undefined) return pages > 0 || logged > 0;
    // In proportion to the table beyond the minimum: a history import of 50,000 entries rewrites it a few
    // dozen times, not once per SNAPSHOT_LOG_MAX pages.
    return logged >= (force ? 1 : Math.max(SNAPSHOT_LOG_MAX, Math.ceil(pages / 8)));
  }

  /**
   * Writes the snapshot of every page and empties the log, in one transaction (a stop before it commits
   * leaves the old snapshot and its log, which still load right).
   */
  async writeSnapshot(db: DB): Promise<void> {
    try {
      const tx = db.transaction(['pages', 'meta'], 'readwrite');
      const all = await tx.objectStore('pages').getAll();
      if (all.some((p) => !p.lens || p.lens.length !== p.chunkIds.length)) {
        // A page without its lengths (a migration's leftovers): the full read stays the way in.
        this.snapshotBlocked = true;
        tx.abort();
        await tx.done.catch(() => undefined);
        return;
      }
      await Promise.all([tx.objectStore('meta').put(encodeSnapshot(all), SNAPSHOT_KEY), tx.objectStore('meta').delete(LOG_RANGE())]);
      await tx.done;
      this.staleSnapshot = false;
    } catch (e) {
      // Storage full, most likely: the snapshot only makes loads faster; not again in this worker's life.
      this.snapshotBlocked = true;
      console.warn('reread: page table snapshot not written', e);
    }
  }

  async all(): Promise<Map<string, PageMeta>> {
    const all = (await this.load()).pages;
    if (!this.hidden.size) return all;
    return this.visible(all).pages;
  }

  /** The pages not hidden (call with the loaded table's pages, synchronously after the load). */
  private visible(all: Map<string, PageMeta>): { pages: Map<string, PageMeta>; ids: Set<number> | null } {
    if (this.visibleCache?.version !== this.version) {
      const pages = new Map(all);
      for (const url of this.hidden) pages.delete(url);
      this.visibleCache = { version: this.version, pages, ids: null };
    }
    return this.visibleCache;
  }

  async get(url: string): Promise<PageMeta | undefined> {
    return this.hidden.has(url) ? undefined : (await this.load()).pages.get(url);
  }

  /** Section lengths by chunk id (0 for an id no page owns). Loads the table first. */
  async norms(): Promise<IdTable> {
    return (await this.load()).norms;
  }

  /** The (visible) page owning a chunk id; a function over the loaded table. */
  async owners(): Promise<(id: number) => PageMeta | undefined> {
    const t = await this.load();
    return (id) => {
      const slot = t.owner.get(id);
      const p = slot ? t.slots[slot - 1] : undefined;
      return p && !this.hidden.has(p.url) ? p : undefined;
    };
  }

  /** Marks pages as forgotten-pending-purge (or restores them). */
  hide(urls: Iterable<string>): void {
    for (const u of urls) this.hidden.add(u);
    this.version++;
  }
  unhide(urls: Iterable<string>): void {
    for (const u of urls) this.hidden.delete(u);
    this.version++;
  }
  /** The stored pages that are hidden. */
  async hiddenPages(): Promise<PageMeta[]> {
    if (!this.hidden.size) return [];
    const all = (await this.load()).pages;
    return [...this.hidden].map((u) => all.get(u)).filter((p): p is PageMeta => !!p);
  }
  isHidden(url: string): boolean {
    return this.hidden.has(url);
  }

  /** Keeps the table in step after a write commits (no-op until loaded: the next load reads it). */
  put(p: PageRecord): void {
    this.version++;
    const f = (t: Loaded) => {
      remove(t, p.url);
      add(t, meta(p), p.lens);
    };
    if (this.loaded) f(this.loaded);
    else if (this.loading) this.early.push(f);
  }

  remove(url: string): void {
    this.version++;
    if (this.loaded) remove(this.loaded, url);
    else if (this.loading) this.early.push((t) => remove(t, url));
  }

  reset(): void {
    this.epoch++;
    this.version++;
    this.loaded = null;
    this.loading = null;
    this.early = [];
  }

  /** Bytes of the id tables (for memory reports). */
  get idTableBytes(): number {
    return this.loaded ? this.loaded.norms.bytes + this.loaded.owner.bytes : 0;
  }

  /** Allowed chunk ids for the query's filters, or null when nothing is filtered. */
  async allowedChunks(q: ParsedQuery, excludeUrl?: string): Promise<ReadonlySet<number> | null> {
    const filtered = q.sites.length || q.excludeSites.length || q.after !== undefined || q.before !== undefined || excludeUrl || this.hidden.size;
    if (!filtered) return null;
    const table = (await this.load()).pages;
    if (!(q.sites.length || q.excludeSites.length || q.after !== undefined || q.before !== undefined || excludeUrl)) {
      // Only the hidden pages are filtered out (an undo window is open): built once per change.
      const view = this.visible(table);
      if (!view.ids) {
        view.ids = new Set<number>();
        for (const p of view.pages.values()) for (const id of p.chunkIds) view.ids.add(id);
      }
      return view.ids;
    }
    const allowed = new Set<number>();
    for (const p of table.values()) {
      if (this.hidden.has(p.url)) continue;
      if (q.sites.length && !q.sites.some((s) => siteMatches(p.site, s))) continue;
      if (q.excludeSites.some((s) => siteMatches(p.site, s))) continue;
      if (q.after !== undefined && p.lastVisit < q.after) continue;
      if (q.before !== undefined && p.lastVisit >= q.before) continue;
      if (excludeUrl && p.url === excludeUrl) continue;
      for (const id of p.chunkIds) allowed.add(id);
    }
    return allowed;
  }
}

function meta(p: PageRecord): PageMeta {
  const m: PageMeta = { url: p.url, site: p.site, title: p.title, lastVisit: p.lastVisit, firstVisit: p.firstVisit, visitCount: p.visitCount, chunkIds: p.chunkIds, ...(p.visits ? { visits: p.visits } : {}) };
  if (p.kind) m.kind = p.kind;
  if (p.fetchSkipped) m.fetchSkipped = p.fetchSkipped;
  return m;
}

function emptyTable(): Loaded {
  return { pages: new Map(), norms: new IdTable(), owner: new IdTable(), slots: [], slotOf: new Map(), free: [] };
}

function add(t: Loaded, m: PageMeta, lens: ArrayLike<number> | undefined): void {
  t.pages.set(m.url, m);
  const slot = t.free.pop() ?? t.slots.length;
  t.slots[slot] = m;
  t.slotOf.set(m.url, slot);
  t.owner.setAll(m.chunkIds, slot + 1);
  if (lens) t.norms.setAll(m.chunkIds, lens);
}

function remove(t: Loaded, url: string): void {
  const old = t.pages.get(url);
  if (!old) return;
  t.pages.delete(url);
  const slot = t.slotOf.get(url)!;
  t.slotOf.delete(url);
  t.slots[slot] = undefined;
  t.free.push(slot);
  t.owner.clear(old.chunkIds);
  t.norms.clear(old.chunkIds);
}
