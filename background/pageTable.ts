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
  private loading: Promise<Loaded> | null = null;
  /**
   * Pages marked forgotten whose undo window is open (background/forget.ts): absent from every read
   * here, so no search, filter, count or site list shows them, while their records stay until purged.
   */
  private hidden = new Set<string>();

  constructor(private readonly db: () => Promise<DB>) {}

  private async load(): Promise<Loaded> {
    if (this.loaded) return this.loaded;
    this.loading ??= traced('page table load', (async () => {
      try {
        const db = await this.db();
        const all = await traced('page table getAll', db.getAll('pages'));
        const t: Loaded = { pages: new Map(), norms: new IdTable(), owner: new IdTable(), slots: [], slotOf: new Map(), free: [] };
        for (const p of all) add(t, p);
        this.loaded = t;
        mark(`page table built: ${all.length} pages`);
        return t;
      } finally {
        // On failure too: a rejected load kept here would fail every later filter until a reset.
        this.loading = null;
      }
    })());
    return this.loading;
  }

  async all(): Promise<Map<string, PageMeta>> {
    const all = (await this.load()).pages;
    if (!this.hidden.size) return all;
    const visible = new Map(all);
    for (const url of this.hidden) visible.delete(url);
    return visible;
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
  }
  unhide(urls: Iterable<string>): void {
    for (const u of urls) this.hidden.delete(u);
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
    if (!this.loaded) return;
    remove(this.loaded, p.url);
    add(this.loaded, p);
  }

  remove(url: string): void {
    if (this.loaded) remove(this.loaded, url);
  }

  reset(): void {
    this.loaded = null;
    this.loading = null;
  }

  /** Bytes of the id tables (for memory reports). */
  get idTableBytes(): number {
    return this.loaded ? this.loaded.norms.bytes + this.loaded.owner.bytes : 0;
  }

  /** Allowed chunk ids for the query's filters, or null when nothing is filtered. */
  async allowedChunks(q: ParsedQuery, excludeUrl?: string): Promise<Set<number> | null> {
    const filtered = q.sites.length || q.excludeSites.length || q.after !== undefined || q.before !== undefined || excludeUrl || this.hidden.size;
    if (!filtered) return null;
    const allowed = new Set<number>();
    for (const p of (await this.load()).pages.values()) {
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

function add(t: Loaded, p: PageRecord): void {
  const m = meta(p);
  t.pages.set(p.url, m);
  const slot = t.free.pop() ?? t.slots.length;
  t.slots[slot] = m;
  t.slotOf.set(p.url, slot);
  t.owner.setAll(p.chunkIds, slot + 1);
  if (p.lens) t.norms.setAll(p.chunkIds, p.lens);
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
