/**
 * A resident table of page metadata (site, visit dates, chunk ids), loaded once per worker life with a
 * single getAll. Filters (site, date range, excluded page) resolve against it into a set of allowed
 * chunk ids before either lane scores anything.
 */
import type { ParsedQuery } from '../src/query.js';
import { siteMatches } from '../src/url.js';
import type { DB, PageRecord } from './db.js';

export type PageMeta = Pick<PageRecord, 'url' | 'site' | 'title' | 'lastVisit' | 'firstVisit' | 'visitCount' | 'chunkIds' | 'visits' | 'kind' | 'fetchSkipped'>;

export class PageTable {
  private pages: Map<string, PageMeta> | null = null;
  private loading: Promise<Map<string, PageMeta>> | null = null;
  /**
   * Pages marked forgotten whose undo window is open (background/forget.ts): absent from every read
   * here, so no search, filter, count or site list shows them, while their records stay until purged.
   */
  private hidden = new Set<string>();

  constructor(private readonly db: () => Promise<DB>) {}

  private async load(): Promise<Map<string, PageMeta>> {
    if (this.pages) return this.pages;
    this.loading ??= (async () => {
      try {
        const db = await this.db();
        const all = await db.getAll('pages');
        const map = new Map<string, PageMeta>();
        for (const p of all) map.set(p.url, meta(p));
        this.pages = map;
        return map;
      } finally {
        // On failure too: a rejected load kept here would fail every later filter until a reset.
        this.loading = null;
      }
    })();
    return this.loading;
  }

  async all(): Promise<Map<string, PageMeta>> {
    const all = await this.load();
    if (!this.hidden.size) return all;
    const visible = new Map(all);
    for (const url of this.hidden) visible.delete(url);
    return visible;
  }

  async get(url: string): Promise<PageMeta | undefined> {
    return this.hidden.has(url) ? undefined : (await this.load()).get(url);
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
    const all = await this.load();
    return [...this.hidden].map((u) => all.get(u)).filter((p): p is PageMeta => !!p);
  }
  isHidden(url: string): boolean {
    return this.hidden.has(url);
  }

  /** Keeps the table in step after a write commits (no-op until loaded: the next load reads it). */
  put(p: PageRecord): void {
    this.pages?.set(p.url, meta(p));
  }

  remove(url: string): void {
    this.pages?.delete(url);
  }

  reset(): void {
    this.pages = null;
    this.loading = null;
  }

  /** Allowed chunk ids for the query's filters, or null when nothing is filtered. */
  async allowedChunks(q: ParsedQuery, excludeUrl?: string): Promise<Set<number> | null> {
    const filtered = q.sites.length || q.excludeSites.length || q.after !== undefined || q.before !== undefined || excludeUrl || this.hidden.size;
    if (!filtered) return null;
    const allowed = new Set<number>();
    for (const p of (await this.all()).values()) {
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
