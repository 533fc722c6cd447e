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
import {
  COLUMNS_KEY,
  encodeSnapshot,
  forEachPageIds,
  fromV1,
  LOG_RANGE,
  loggedUrls,
  pageIds,
  pageMeta,
  SNAPSHOT_KEY,
  SNAPSHOT_LOG_MAX,
  SNAPSHOT_VERSION,
  type SnapshotColumns,
  type SnapshotCore,
  type SnapshotV1,
} from './pageLog.js';
import { legacyActive } from './legacy.js';
import { readStats } from './pageStore.js';
import { mark, traced } from './bootTrace.js';

/** How long after a load from the snapshot its page count is checked, ms: after the first searches' reads. */
export const COUNT_DELAY_MS = 1500;

export type PageMeta = Pick<PageRecord, 'url' | 'site' | 'title' | 'lastVisit' | 'firstVisit' | 'visitCount' | 'chunkIds' | 'visits' | 'kind' | 'fetchSkipped'>;

/**
 * Pages of the snapshot not yet turned into page objects: slot i (< core's page count) with
 * pending[i] = 1 is built from the columns when something first asks for it. The first search needs
 * only a handful (its results' pages); filters, counts and lists build the rest.
 */
interface Lazy {
  core: SnapshotCore;
  cols: SnapshotColumns | null;
  extra: Map<number, SnapshotColumns['extra'][number]> | null;
  pending: Uint8Array;
  left: number;
}

interface Loaded {
  norms: IdTable;
  /** chunk id -> slot + 1 of its page in `slots`. */
  owner: IdTable;
  /** Built pages by slot (undefined: free, or a snapshot page not built yet: see `lazy`). */
  slots: (PageMeta | undefined)[];
  /** Every page's slot, in the order pages came in (a Map's). */
  slotOf: Map<string, number>;
  free: number[];
  lazy: Lazy | null;
  /** Resolves when every page can be built (the snapshot's columns are in). */
  complete: Promise<void>;
  view: PagesView;
}

export class PageTable {
  private loaded: Loaded | null = null;
  /** The last load found the snapshot out of date (or in an older form): maintenance writes it again. */
  private staleSnapshot = false;
  /** No snapshot can be written in this worker's life (pages without lengths). */
  private snapshotBlocked = false;
  /** How the last load read the table, and how many logged pages it read beyond the snapshot (tests, benchmarks). */
  lastLoad: { from: 'snapshot' | 'full'; logged: number; version?: number } | null = null;
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

  /** Moves with every change to the table (a page stored, re-cut, forgotten, hidden): for a reader that spans one. */
  get changes(): number {
    return this.version;
  }

  /** A table loaded from the snapshot whose page count is still to be checked against the store. */
  private countPending: Loaded | null = null;
  private countTimer: ReturnType<typeof setTimeout> | undefined;
  /** The last snapshot disagreed with the store's page count: loads read every page until it is written again. */
  private distrusted = false;

  /**
   * `snapshot: false` reads every page at each load (a store that is only a getAll, as the eval's);
   * `countDelayMs`: how long after a load from the snapshot its page count is checked (COUNT_DELAY_MS).
   */
  constructor(
    private readonly db: () => Promise<DB>,
    private readonly opts: { snapshot?: boolean; countDelayMs?: number } = {},
  ) {}

  /**
   * Checks the table loaded from the snapshot against the store's page count, now (the load schedules
   * it COUNT_DELAY_MS later). The other checks at load (live sections, total length, latest visit)
   * catch every page written or deleted past the log that has a section or a newer visit; this one the
   * rest: a page without sections, which no search can return, so the table may hold it for that
   * while. On a disagreement the table is dropped, and loads read every page until maintenance wrote
   * the snapshot again. A write that commits during the count makes it count again.
   */
  async checkCount(): Promise<void> {
    const t = this.countPending;
    clearTimeout(this.countTimer);
    this.countPending = null;
    if (!t) return;
    let disagreed = 0;
    for (let tries = 0; tries < 4 && disagreed < 2; tries++) {
      const version = this.version;
      const count = await (await this.db()).count('pages').catch(() => null);
      if (this.loaded !== t || count === null) return;
      if (version !== this.version) continue;
      if (count === t.slotOf.size) return;
      disagreed++;
    }
    if (disagreed < 2) return;
    console.warn(`reread: page table snapshot out of date (${t.slotOf.size} pages, the store holds another number); reading every page`);
    this.distrusted = true;
    this.staleSnapshot = true;
    this.onStale?.();
    this.reset();
  }

  /**
   * The table with its norms and owners (what a query's postings need); pages of the snapshot may not
   * be buildable yet: whatever hands out pages awaits `complete` (full()).
   */
  private async load(): Promise<Loaded> {
    if (this.loaded) return this.loaded;
    const epoch = this.epoch;
    this.loading ??= traced('page table load', (async () => {
      try {
        const db = await this.db();
        let t = this.opts.snapshot === false || this.distrusted ? null : await traced('page table snapshot', this.fromSnapshot(db));
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
          if (this.lastLoad?.from === 'snapshot') {
            clearTimeout(this.countTimer);
            this.countPending = t;
            this.countTimer = setTimeout(() => void this.checkCount(), this.opts.countDelayMs ?? COUNT_DELAY_MS);
          }
        }
        mark(`page table built: ${t.slotOf.size} pages`);
        return t;
      } finally {
        // On failure too: a rejected load kept here would fail every later filter until a reset.
        if (epoch === this.epoch) this.loading = null;
      }
    })());
    return this.loading;
  }

  /** The table with every page buildable. */
  private async full(): Promise<Loaded> {
    const t = await this.load();
    await t.complete;
    return t;
  }

  /**
   * The table from the snapshot plus the pages written since (their log), in one read transaction;
   * null when there is no snapshot, a migration is under way, or the result disagrees with the store
   * (page count, live sections, total length, latest visit): then the caller reads every page. It
   * returns once the core record is read and checked; the columns come after (Lazy).
   */
  private async fromSnapshot(db: DB): Promise<Loaded | null> {
    if (legacyActive(db)) return null;
    const tx = db.transaction(['meta', 'pages']);
    const metaStore = tx.objectStore('meta');
    const pages = tx.objectStore('pages');
    // The log's keys first: the logged pages' reads go out before the core's answer is in (a
    // transaction answers its requests in order, so they come right after it).
    const logRead = metaStore.getAllKeys(LOG_RANGE());
    const coreRead = metaStore.get(SNAPSHOT_KEY) as Promise<SnapshotCore | SnapshotV1 | undefined>;
    const currentRead = logRead.then((keys) => Promise.all(loggedUrls(keys).sort().map((u) => pages.get(u).then((p) => [u, p] as const))));
    currentRead.catch(() => undefined);
    // The page count is not among these: counting the store walks every record (70-250 ms at 50,000
    // pages in Chromium, the whole critical path of the first search), so it is checked after the
    // first searches (checkCount).
    const checks = Promise.all([readStats(tx), pages.index('lastVisit').openKeyCursor(null, 'prev').then((c) => (c ? (c.key as number) : null))]);
    checks.catch(() => undefined);
    // The columns in a transaction of their own, started once the core is in and checked: read beside
    // it, they delayed it (one backend, one worker thread). (A snapshot written between the two shows
    // as another `gen`: the pages are then read from the store.)
    const columnsRead = () => db.transaction('meta').store.get(COLUMNS_KEY) as Promise<SnapshotColumns | undefined>;
    const [logKeys, stored] = await Promise.all([logRead, coreRead]);
    mark('page table snapshot read');
    if (!stored || (stored.v !== SNAPSHOT_VERSION && stored.v !== 1)) return null;
    if (stored.v === SNAPSHOT_VERSION && !logKeys.includes(COLUMNS_KEY)) {
      // Never written so (both records go in one transaction): read every page, write both again.
      this.staleSnapshot = true;
      this.onStale?.();
      return null;
    }
    let core: SnapshotCore;
    let columns: () => Promise<SnapshotColumns | null>;
    if (stored.v === 1) {
      // The first form: everything in the one record. Loaded as it is; maintenance writes the current form.
      const both = fromV1(stored);
      core = both.core;
      columns = () => Promise.resolve(both.columns);
      this.staleSnapshot = true;
      this.onStale?.();
    } else {
      core = stored;
      const gen = stored.gen;
      columns = () =>
        columnsRead().then(
          (c) => (c && c.v === SNAPSHOT_VERSION && c.gen === gen && c.sites.length === core.urls.length ? c : null),
          () => null,
        );
    }
    const t = emptyTable();
    const n = core.urls.length;
    // The lengths go to the norms; what stays is what builds a page (its ids).
    const lazy: Lazy = { core: { ...core, lens: new Uint16Array(0) }, cols: null, extra: null, pending: new Uint8Array(n).fill(1), left: n };
    t.lazy = lazy;
    for (let i = 0; i < n; i++) {
      t.slotOf.set(core.urls[i]!, i);
      t.slots.push(undefined);
    }
    const { norms, owner } = t;
    const lens = core.lens;
    let N = lens.length;
    let total = 0;
    for (let j = 0; j < lens.length; j++) total += lens[j]!;
    forEachPageIds(
      core,
      (page, first, from, to) => {
        norms.setRun(first, lens, from, to);
        owner.setRun(first, page + 1, from, to);
      },
      (page, ids, from) =>
        ids.forEach((id, j) => {
          norms.set(id, lens[from + j]!);
          owner.set(id, page + 1);
        }),
    );
    mark('page table core built');
    const [loggedPages, [stats, latest]] = await Promise.all([currentRead, checks]);
    mark('page table checks read');
    const logged = loggedPages.map(([u]) => u);
    const current = loggedPages.map(([, p]) => p);
    for (const url of logged) {
      const slot = t.slotOf.get(url);
      if (slot === undefined) continue;
      for (const id of pageIds(core, slot)) total -= norms.get(id);
      N -= core.idEnd[slot]! - (slot ? core.idEnd[slot - 1]! : 0);
      remove(t, url);
    }
    for (const p of current)
      if (p) {
        add(t, meta(p), p.lens);
        N += p.chunkIds.length;
        for (const l of p.lens ?? []) total += l;
      }
    // What the store says must be what the table holds: a writer that bypassed the log (an older
    // build, a bug) shows in one of these, and the full read takes over.
    let last: number | null = null;
    for (let i = 0; i < n; i++) if (lazy.pending[i] && (last === null || core.lastVisit[i]! > last)) last = core.lastVisit[i]!;
    for (const p of current) if (p && (last === null || p.lastVisit > last)) last = p.lastVisit;
    const stale = N !== stats.N || total !== stats.totalLength || last !== latest;
    if (stale) {
      console.warn(`reread: page table snapshot out of date (N ${N} vs ${stats.N}, length ${total} vs ${stats.totalLength}, latest visit ${last} vs ${latest}); reading every page`);
      this.staleSnapshot = true;
      this.onStale?.();
      return null;
    }
    t.complete = traced(
      'page table columns',
      columns().then(async (cols) => {
        if (cols) {
          lazy.cols = cols;
          lazy.extra = new Map(cols.extra.map((e) => [e.i, e]));
          return;
        }
        // The columns are missing or belong to another core (never written so): the pages still to
        // build are read from the store, and the snapshot is written again.
        console.warn('reread: page table snapshot columns unreadable; reading the pages');
        this.staleSnapshot = true;
        this.onStale?.();
        await buildFromStore(t, await db.getAll('pages'));
      }),
    );
    this.lastLoad = { from: 'snapshot', logged: logged.length, version: stored.v };
    return t;
  }

  /** Whether background maintenance should write the snapshot now (`force`: whenever pages were written since). */
  async snapshotWanted(db: DB, force = false): Promise<boolean> {
    if (legacyActive(db) || this.snapshotBlocked) return false;
    if (this.staleSnapshot) return true;
    const tx = db.transaction(['meta', 'pages']);
    const meta = tx.objectStore('meta');
    const [snap, columns, inRange, pages] = await Promise.all([meta.getKey(SNAPSHOT_KEY), meta.getKey(COLUMNS_KEY), meta.count(LOG_RANGE()), tx.objectStore('pages').count()]);
    const logged = inRange - (columns === undefined ? 0 : 1);
    if (snap === undefined) return pages > 0 || logged > 0;
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
      const { core, columns } = encodeSnapshot(all);
      const meta = tx.objectStore('meta');
      // The log's range holds the columns' key: emptied first, then both records put (requests run in order).
      await Promise.all([meta.delete(LOG_RANGE()), meta.put(core, SNAPSHOT_KEY), meta.put(columns, COLUMNS_KEY)]);
      await tx.done;
      this.staleSnapshot = false;
      this.distrusted = false;
    } catch (e) {
      // Storage full, most likely: the snapshot only makes loads faster; not again in this worker's life.
      this.snapshotBlocked = true;
      console.warn('reread: page table snapshot not written', e);
    }
  }

  /** Every visible page by URL (pages of the snapshot are built as they are read from it). */
  async all(): Promise<ReadonlyMap<string, PageMeta>> {
    const all = (await this.full()).view;
    if (!this.hidden.size) return all;
    return this.visible(all).pages;
  }

  /** The pages not hidden (call with the loaded table's pages, synchronously after the load). */
  private visible(all: ReadonlyMap<string, PageMeta>): { pages: Map<string, PageMeta>; ids: Set<number> | null } {
    if (this.visibleCache?.version !== this.version) {
      const pages = new Map(all);
      for (const url of this.hidden) pages.delete(url);
      this.visibleCache = { version: this.version, pages, ids: null };
    }
    return this.visibleCache;
  }

  async get(url: string): Promise<PageMeta | undefined> {
    return this.hidden.has(url) ? undefined : (await this.full()).view.get(url);
  }

  /** Section lengths by chunk id (0 for an id no page owns). Loads the table first (not its page objects). */
  async norms(): Promise<IdTable> {
    return (await this.load()).norms;
  }

  /**
   * The (visible) page owning a chunk id — its URL and chunk ids, the whole page when it can be built —
   * a function over the loaded table. Does not wait for the snapshot's columns: the first search reads
   * its sections with the core alone.
   */
  async owners(): Promise<(id: number) => Pick<PageMeta, 'url' | 'chunkIds'> | undefined> {
    const t = await this.load();
    return (id) => {
      const slot = t.owner.get(id);
      const p = slot ? ownerAt(t, slot - 1) : undefined;
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
    const all = (await this.full()).view;
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
    clearTimeout(this.countTimer);
    this.countPending = null;
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

  /** Snapshot pages not built into page objects yet (tests, benchmarks). */
  get unbuiltPages(): number {
    return this.loaded?.lazy?.left ?? 0;
  }

  /** Allowed chunk ids for the query's filters, or null when nothing is filtered. */
  async allowedChunks(q: ParsedQuery, excludeUrl?: string): Promise<ReadonlySet<number> | null> {
    const filtered = q.sites.length || q.excludeSites.length || q.after !== undefined || q.before !== undefined || excludeUrl || this.hidden.size;
    if (!filtered) return null;
    const t = await this.full();
    if (!(q.sites.length || q.excludeSites.length || q.after !== undefined || q.before !== undefined || excludeUrl)) {
      // Only the hidden pages are filtered out (an undo window is open): built once per change.
      const view = this.visible(t.view);
      if (!view.ids) {
        view.ids = new Set<number>();
        for (const p of view.pages.values()) for (const id of p.chunkIds) view.ids.add(id);
      }
      return view.ids;
    }
    const allowed = new Set<number>();
    const lazy = t.lazy;
    // A snapshot page not built yet is filtered on its columns (building every page costs more than the filter).
    for (const [url, slot] of t.slotOf) {
      const p = t.slots[slot];
      const unbuilt = !p && lazy?.cols && lazy.pending[slot];
      if (!p && !unbuilt) continue;
      const site = p ? p.site : lazy!.cols!.sites[slot]!;
      const lastVisit = p ? p.lastVisit : lazy!.core.lastVisit[slot]!;
      if (this.hidden.has(url)) continue;
      if (q.sites.length && !q.sites.some((s) => siteMatches(site, s))) continue;
      if (q.excludeSites.some((s) => siteMatches(site, s))) continue;
      if (q.after !== undefined && lastVisit < q.after) continue;
      if (q.before !== undefined && lastVisit >= q.before) continue;
      if (excludeUrl && url === excludeUrl) continue;
      for (const id of p ? p.chunkIds : pageIds(lazy!.core, slot)) allowed.add(id);
    }
    return allowed;
  }
}

/**
 * The table's pages as a read-only map over its slots: a snapshot page becomes an object the first
 * time it is read (and stays one). Iterates in the order pages came in, as a Map would.
 */
class PagesView implements ReadonlyMap<string, PageMeta> {
  constructor(private readonly t: Loaded) {}
  get size(): number {
    return this.t.slotOf.size;
  }
  has(url: string): boolean {
    return this.t.slotOf.has(url);
  }
  get(url: string): PageMeta | undefined {
    const slot = this.t.slotOf.get(url);
    return slot === undefined ? undefined : pageAt(this.t, slot);
  }
  *entries(): MapIterator<[string, PageMeta]> {
    for (const [url, slot] of this.t.slotOf) {
      const p = pageAt(this.t, slot);
      if (p) yield [url, p];
    }
  }
  *values(): MapIterator<PageMeta> {
    for (const slot of this.t.slotOf.values()) {
      const p = pageAt(this.t, slot);
      if (p) yield p;
    }
  }
  keys(): MapIterator<string> {
    return this.t.slotOf.keys();
  }
  forEach(f: (value: PageMeta, key: string, map: ReadonlyMap<string, PageMeta>) => void, thisArg?: unknown): void {
    for (const [url, p] of this.entries()) f.call(thisArg, p, url, this);
  }
  [Symbol.iterator](): MapIterator<[string, PageMeta]> {
    return this.entries();
  }
}

/** The page in a slot, built from the snapshot's columns if it is not yet (they must be in: `complete`). */
function pageAt(t: Loaded, slot: number): PageMeta | undefined {
  const p = t.slots[slot];
  if (p) return p;
  const lazy = t.lazy;
  if (!lazy?.cols || !lazy.pending[slot]) return undefined;
  const m = pageMeta(lazy.core, lazy.cols, lazy.extra!, slot);
  t.slots[slot] = m;
  built(t, lazy, slot);
  return m;
}

/** The page in a slot, or while the snapshot's columns are not in, its URL and chunk ids from the core. */
function ownerAt(t: Loaded, slot: number): Pick<PageMeta, 'url' | 'chunkIds'> | undefined {
  const p = pageAt(t, slot);
  if (p) return p;
  const lazy = t.lazy;
  if (!lazy?.pending[slot]) return undefined;
  return { url: lazy.core.urls[slot]!, chunkIds: pageIds(lazy.core, slot) };
}

/** A snapshot slot no longer waits to be built; the last one lets the snapshot's columns go. */
function built(t: Loaded, lazy: Lazy, slot: number): void {
  lazy.pending[slot] = 0;
  if (--lazy.left === 0 && t.lazy === lazy) t.lazy = null;
}

/** Builds every page still waiting from its stored record (the snapshot's columns could not be used). */
async function buildFromStore(t: Loaded, records: readonly PageRecord[]): Promise<void> {
  const lazy = t.lazy;
  if (!lazy) return;
  const byUrl = new Map(records.map((r) => [r.url, r]));
  for (let slot = 0; slot < lazy.pending.length; slot++) {
    if (!lazy.pending[slot]) continue;
    const url = lazy.core.urls[slot]!;
    const r = byUrl.get(url);
    // Gone from the store meanwhile (its delete reached the table, or will): nothing to build.
    if (r) t.slots[slot] = meta(r);
    else {
      t.slotOf.delete(url);
      t.free.push(slot);
    }
    built(t, lazy, slot);
  }
}

function meta(p: PageRecord): PageMeta {
  const m: PageMeta = { url: p.url, site: p.site, title: p.title, lastVisit: p.lastVisit, firstVisit: p.firstVisit, visitCount: p.visitCount, chunkIds: p.chunkIds, ...(p.visits ? { visits: p.visits } : {}) };
  if (p.kind) m.kind = p.kind;
  if (p.fetchSkipped) m.fetchSkipped = p.fetchSkipped;
  return m;
}

function emptyTable(): Loaded {
  const t = { norms: new IdTable(), owner: new IdTable(), slots: [], slotOf: new Map(), free: [], lazy: null, complete: Promise.resolve() } as Omit<Loaded, 'view'> as Loaded;
  t.view = new PagesView(t);
  return t;
}

function add(t: Loaded, m: PageMeta, lens: ArrayLike<number> | undefined): void {
  const slot = t.free.pop() ?? t.slots.length;
  t.slots[slot] = m;
  t.slotOf.set(m.url, slot);
  t.owner.setAll(m.chunkIds, slot + 1);
  if (lens) t.norms.setAll(m.chunkIds, lens);
}

function remove(t: Loaded, url: string): void {
  const slot = t.slotOf.get(url);
  if (slot === undefined) return;
  const p = t.slots[slot];
  const lazy = t.lazy;
  const ids = p ? p.chunkIds : lazy?.pending[slot] ? pageIds(lazy.core, slot) : [];
  if (!p && lazy?.pending[slot]) built(t, lazy, slot);
  t.slotOf.delete(url);
  t.slots[slot] = undefined;
  t.free.push(slot);
  t.owner.clear(ids);
  t.norms.clear(ids);
}
