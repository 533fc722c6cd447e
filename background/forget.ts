/**
 * Forgetting: pages by URL, by site, by visit range, everything, and the retention policy. A delete
 * removes a page, its sections and its queue entries and stores a tombstone for its chunk ids in one
 * transaction (pageStore.deletePages): from then on no reader sees its postings or vectors, which the
 * next sweep removes (indexMaintenance.ts). No stored text is needed to forget a page.
 *
 * What the user asks to forget is first a mark (issue 16): the pages' URLs are written to `meta`
 * (MARKS_KEY) before the request is answered and hidden from every read of the page table at once (no
 * search, count, site list or export shows them), and the pages are purged when the undo window closes
 * (a timer, an alarm that wakes a stopped worker, and every maintenance pass and worker start). A worker
 * stopped inside the window reads the marks back before it answers anything: the pages stay hidden and
 * can still be restored, and are purged once the window is over. A page captured again while marked is
 * purged first and stored anew: the visit came after the forget.
 */
import { daysAgoStart, inScope, UNDO_MS, visitedIn, visitInScope } from '../src/forget.js';
import type { ForgetPreview, ForgetScope, PendingForget, RetentionPreview } from '../src/protocol.js';
import { ProtocolError } from '../src/protocol.js';
import { siteMatches } from '../src/url.js';
import { FILED_HANDOVERS_KEY, hasLegacy, LEGACY_STORES, MIGRATION_KEY, PDF_NOTES_KEY, type StoreName } from './db.js';
import type { Engine } from './engine.js';
import { MERGE_KEY, SWEEP_KEY } from './indexMaintenance.js';
import type { PageMeta } from './pageTable.js';
import { deletePages, forgetCaches, readStats } from './pageStore.js';
import { dropPageSnapshot } from './pageLog.js';
import { EVICT_FRACTION } from './storageBudget.js';

export const MARKS_KEY = 'forgetMarks';
/**
 * How long a purged forget still refuses captures made before it. A PDF is read for seconds (its pages
 * are capped), a capture waits in the outbox until the worker runs again; longer than this, a capture of
 * a visit is not plausibly still on its way.
 */
export const LATE_MS = 30 * 60_000;

/** A forget whose pages are gone, kept a while (in memory) so that a capture made before it, arriving late, is refused. */
interface LateForget {
  at: number;
  until: number;
  scope?: ForgetScope;
  urls: string[];
}

/** A pending forget as stored: the URLs it covers, so a restart hides and purges exactly these. */
export interface MarkRecord extends PendingForget {
  urls: string[];
}

function span(pages: readonly PageMeta[]): Pick<ForgetPreview, 'firstVisit' | 'lastVisit'> {
  if (!pages.length) return {};
  return { firstVisit: Math.min(...pages.map((p) => p.firstVisit)), lastVisit: Math.max(...pages.map((p) => p.lastVisit)) };
}

/** A one-page forget names its page by title. */
function titleOf(scope: ForgetScope, pages: readonly PageMeta[]): { title?: string } {
  return scope.kind === 'page' && pages[0]?.title ? { title: pages[0].title } : {};
}

/** A new forget's id (the tabs it covers are told it first: main.ts). */
export function newMarkId(now = Date.now()): string {
  return `${now.toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

/**
 * The notes on these PDFs go with them (Options lists each note's address and title): read and written
 * in one transaction, so a note PdfCapture adds meanwhile is not lost.
 */
export async function dropPdfNotes(db: Awaited<ReturnType<Engine['db']>>, drop: (n: { url: string; at: number }) => boolean): Promise<void> {
  const tx = db.transaction('meta', 'readwrite');
  const notes = (await tx.store.get(PDF_NOTES_KEY)) as { url: string; at: number }[] | undefined;
  if (Array.isArray(notes) && notes.some(drop)) await tx.store.put(notes.filter((n) => !drop(n)), PDF_NOTES_KEY);
  await tx.done;
}

export class Forget {
  private marks: MarkRecord[] | null = null;
  /**
   * Forgets already purged (or history deletions), for LATE_MS: a visit read before one of them whose
   * capture arrives after the purge (a PDF still being read) is refused as it would have been inside the
   * undo window. In memory only: nothing of a final forget is stored (no site or address), and what could
   * arrive late does not outlive the worker (a read in flight stops with it; the outbox's captures of the
   * forgotten pages were purged with the forget).
   */
  private late: LateForget[] = [];
  private loadingMarks: Promise<MarkRecord[]> | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  /** Set by the worker: wake it for the purge even if it is stopped by then (chrome.alarms). */
  onPurgeDue: ((when: number) => void) | null = null;
  /** The undo window (tests shorten it). */
  undoMs = UNDO_MS;

  constructor(private readonly engine: Engine) {}

  /** Reads the marks once per worker life and hides their pages. Everything that reads pages awaits it. */
  ready(): Promise<MarkRecord[]> {
    if (this.marks) return Promise.resolve(this.marks);
    this.loadingMarks ??= (async () => {
      try {
        const stored = ((await (await this.engine.db()).get('meta', MARKS_KEY)) as MarkRecord[] | undefined) ?? [];
        this.marks = stored;
        for (const m of stored) this.engine.pages.hide(m.urls);
        this.schedule();
        return stored;
      } finally {
        this.loadingMarks = null;
      }
    })();
    return this.loadingMarks;
  }

  private async saveMarks(): Promise<void> {
    await (await this.engine.db()).put('meta', this.marks ?? [], MARKS_KEY);
  }

  /** Keeps these forgets (now purged) refusing late captures for LATE_MS; expired ones are dropped. */
  private addLate(entries: readonly LateForget[], now: number): void {
    this.late = [...this.late.filter((l) => l.until > now), ...entries.filter((e) => e.urls.length || e.scope)];
  }

  /**
   * Pages deleted from the browser's history (the follower deletes them at once, with no undo): a capture
   * of a visit made before the deletion that arrives after it is refused, as a forget's would be.
   */
  async deletedFromHistory(urls: readonly string[] | 'all', now = Date.now()): Promise<void> {
    if (!urls.length) return;
    this.forgets++;
    await this.ready();
    const entry: LateForget = urls === 'all' ? { at: now, until: now + LATE_MS, scope: { kind: 'all' }, urls: [] } : { at: now, until: now + LATE_MS, urls: [...urls] };
    this.addLate([entry], now);
  }

  private pagesIn(scope: ForgetScope, table: ReadonlyMap<string, PageMeta>): PageMeta[] {
    // One page is looked up, not found by a walk over every page (the popup asks on every opening).
    if (scope.kind === 'page') {
      const page = table.get(scope.url);
      return page ? [page] : [];
    }
    return [...table.values()].filter((p) => inScope(p, scope));
  }

  /** Counts what a forget would cover (already-marked pages are not counted again). */
  async preview(scope: ForgetScope): Promise<ForgetPreview> {
    await this.ready();
    const pages = this.pagesIn(scope, await this.engine.pages.all());
    return { pages: pages.length, sites: new Set(pages.map((p) => p.site)).size, ...span(pages), ...titleOf(scope, pages) };
  }

  /** Counts forgets marked and history deletions (a PDF load seen before one is no longer "already read"). */
  forgets = 0;

  /** Marks the scope's pages forgotten: hidden now, purged when the undo window closes. */
  async mark(scope: ForgetScope, now = Date.now(), id = newMarkId(now)): Promise<PendingForget> {
    this.forgets++;
    await this.ready();
    return this.engine.exclusive(async () => {
      const pages = this.pagesIn(scope, await this.engine.pages.all());
      // Pages an earlier forget still hides are this one's too (not counted again): undoing that one
      // leaves them forgotten, as this one asked.
      const hiddenToo = (await this.engine.pages.hiddenPages()).filter((p) => inScope(p, scope)).map((p) => p.url);
      const urls = [...new Set([...pages.map((p) => p.url), ...hiddenToo])];
      const mark: MarkRecord = { id, scope, pages: pages.length, ...titleOf(scope, pages), at: now, undoUntil: now + this.undoMs, urls };
      this.marks = [...(this.marks ?? []), mark];
      // Durable before anything is hidden or answered: a worker stopped now reads it back.
      await this.saveMarks();
      this.engine.pages.hide(urls);
      this.schedule();
      const { urls: _urls, ...pending } = mark;
      return pending;
    });
  }

  /** The pages (URLs) a forget would cover now (already-marked pages are not among them). */
  async urlsIn(scope: ForgetScope): Promise<string[]> {
    await this.ready();
    return this.pagesIn(scope, await this.engine.pages.all()).map((p) => p.url);
  }

  /** The pages (URLs) a pending mark covers (none once it is purged or undone). */
  markedUrls(id: string): string[] {
    return [...((this.marks ?? []).find((m) => m.id === id)?.urls ?? [])];
  }

  /** Restores a mark's pages if it has not been purged yet: the URLs restored. */
  async undo(id: string): Promise<{ urls: string[] }> {
    await this.ready();
    const restored = await this.engine.exclusive(async () => {
      const mark = (this.marks ?? []).find((m) => m.id === id);
      if (!mark) throw new ProtocolError('bad-request', 'That forget can no longer be undone: its pages are gone.');
      this.marks = (this.marks ?? []).filter((m) => m !== mark);
      // A URL in another pending mark stays hidden.
      const still = new Set((this.marks ?? []).flatMap((m) => m.urls));
      const restored = mark.urls.filter((u) => !still.has(u));
      // The restored pages' sections are queued for embedding in the same write as the marks: the drain
      // took a hidden page's sections off the queue, and a stop between two writes left a restored page
      // searchable by its words and never embedded. (Those embedded already are dropped from the queue
      // by the drain, not embedded twice.)
      const model = this.engine.dense?.queueModel() ?? null;
      const restoring = new Set(restored);
      const ids = model ? (await this.engine.pages.hiddenPages()).filter((p) => restoring.has(p.url)).flatMap((p) => p.chunkIds) : [];
      const tx = (await this.engine.db()).transaction(['meta', 'embedQueue'], 'readwrite');
      await Promise.all([tx.objectStore('meta').put(this.marks ?? [], MARKS_KEY), ...ids.map((id) => tx.objectStore('embedQueue').put({ id, model: model! }))]);
      await tx.done;
      this.engine.pages.unhide(restored);
      // Only pages still stored (one an earlier forget covered too may have been purged by it since).
      const stored = await this.engine.pages.all();
      return { urls: restored.filter((u) => stored.has(u)), queued: ids.length > 0 };
    });
    if (restored.queued) this.engine.dense?.onChunksAdded();
    return { urls: restored.urls };
  }

  /** Marks whose undo window is still open, newest last. */
  async pending(now = Date.now()): Promise<PendingForget[]> {
    await this.ready();
    return (this.marks ?? []).filter((m) => m.undoUntil > now).map(({ urls: _urls, ...p }) => p);
  }

  /** Purges every mark whose window has closed (all of them with `force`). Returns pages purged. */
  async purgeDue(now = Date.now(), force = false): Promise<number> {
    await this.ready();
    return this.engine.exclusive(async () => {
      const due = (this.marks ?? []).filter((m) => force || m.undoUntil <= now);
      if (!due.length) return 0;
      let purged = 0;
      const urls = [...new Set(due.flatMap((m) => m.urls))];
      const all = await this.engine.pages.all(); // visible pages only
      const everything = due.some((m) => m.scope.kind === 'all') && all.size === 0 && (this.marks ?? []).length === due.length;
      if (everything) purged = await this.allLocked();
      else purged = await this.urlsLocked(urls);
      // A PDF that could not be read has a note and no page: a site's or a range's forget takes its note too.
      const scopes = due.map((m) => m.scope).filter((s) => s.kind === 'site' || s.kind === 'range');
      if (scopes.length) await dropPdfNotes(await this.engine.db(), (n) => scopes.some((s) => visitInScope(n.url, n.at, s)));
      // Only now, after the pages are gone: a stop before this line purges them again (idempotent).
      // A later forget that covered these pages too no longer lists them: they are gone, so its undo has
      // nothing of them to restore, and a new visit of one of them (which no forget covers) must not be
      // hidden or purged by it.
      const gone = new Set(urls);
      this.marks = (this.marks ?? []).filter((m) => !due.includes(m)).map((m) => (m.urls.some((u) => gone.has(u)) ? { ...m, urls: m.urls.filter((u) => !gone.has(u)) } : m));
      this.addLate(due.map((m) => ({ at: m.at, until: now + LATE_MS, scope: m.scope, urls: m.scope.kind === 'page' || m.scope.kind === 'range' ? m.urls : [] })), now);
      await this.saveMarks();
      this.engine.pages.unhide(urls);
      this.schedule();
      return purged;
    });
  }

  /**
   * Called by capture with the write lock held, before a page is stored: a marked page visited again is
   * purged now (its old visits were forgotten; the new one is not) and leaves its mark. A capture made
   * before the mark (`at`: one that waited for the lock, or was handed over through the outbox) is of a
   * visit that was forgotten: it is not stored (false), and the mark stays as it was.
   */
  async releaseLocked(url: string, at: number): Promise<boolean> {
    await this.ready();
    // By the mark's pages, or by its scope: a page not stored yet when the forget came (its site's, or
    // everything) was read before it too.
    if ((this.marks ?? []).some((m) => m.at > at && (m.urls.includes(url) || visitInScope(url, at, m.scope)))) return false;
    const now = Date.now();
    if (this.late.some((l) => l.until > now && l.at >= at && (l.urls.includes(url) || (!!l.scope && visitInScope(url, at, l.scope))))) return false;
    if (!this.engine.pages.isHidden(url)) return true;
    await this.urlsLocked([url]);
    this.marks = (this.marks ?? []).map((m) => (m.urls.includes(url) ? { ...m, urls: m.urls.filter((u) => u !== url) } : m));
    await this.saveMarks();
    this.engine.pages.unhide([url]);
    return true;
  }

  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const next = Math.min(...(this.marks ?? []).map((m) => m.undoUntil));
    if (!Number.isFinite(next)) return;
    this.onPurgeDue?.(next);
    this.timer = setTimeout(() => void this.purgeDue().catch((e: unknown) => console.warn('reread: purge', e)), Math.max(0, next - Date.now()) + 250);
  }

  /** What the retention settings would forget now, counted the way `retention` forgets. */
  async previewRetention(retentionDays: number, maxStorageMb: number, now = Date.now()): Promise<RetentionPreview> {
    const pages = [...(await this.engine.pages.all()).values()];
    const cutoff = retentionDays > 0 ? daysAgoStart(retentionDays, now) : undefined;
    const byAge = cutoff === undefined ? 0 : pages.filter((p) => p.lastVisit < cutoff).length;
    let byStorage = 0;
    if (maxStorageMb > 0) {
      const used = (await this.engine.storageEstimate?.())?.usage;
      const max = maxStorageMb * 1024 * 1024;
      const left = pages.length - byAge;
      if (used !== undefined && used > max && left > 0) byStorage = Math.min(left, Math.max(1, Math.ceil(left * Math.max(EVICT_FRACTION, 1 - max / used))));
    }
    return { pages: byAge + byStorage, byAge, byStorage, ...(cutoff !== undefined ? { cutoff } : {}) };
  }

  async urls(urls: readonly string[]): Promise<number> {
    if (!urls.length) return 0;
    return this.engine.exclusive(() => this.urlsLocked(urls));
  }

  /** Deletes with the write lock already held. */
  async urlsLocked(urls: readonly string[]): Promise<number> {
    if (!urls.length) return 0;
    const db = await this.engine.db();
    // The pages' PDF notes go in the same transaction (pageStore.ts deletePages).
    const res = await deletePages(db, urls);
    this.engine.applyDelete(res);
    // A page not merged yet goes with its segment now (the sweep would leave it until the merge).
    if (res.pages.length) await this.engine.maintenance.purgeSegmentsLocked();
    return res.pages.length;
  }

  async site(site: string): Promise<number> {
    const urls = [...(await this.engine.pages.all()).values()].filter((p) => siteMatches(p.site, site)).map((p) => p.url);
    return this.urls(urls);
  }

  /** Pages with any visit in [after, before) (src/forget.ts visitedIn). */
  async range(after?: number, before?: number): Promise<number> {
    const urls = [...(await this.engine.pages.all()).values()].filter((p) => visitedIn(p, after ?? -Infinity, before ?? Infinity)).map((p) => p.url);
    return this.urls(urls);
  }

  async all(): Promise<number> {
    return this.engine.exclusive(() => this.allLocked());
  }

  private async allLocked(): Promise<number> {
    {
      const db = await this.engine.db();
      const n = await db.count('pages');
      const stores: StoreName[] = ['pages', 'sections', 'terms', 'postings', 'segments', 'tombstones', 'embedQueue', 'vectors', 'meta'];
      const legacy = hasLegacy(db);
      const tx = db.transaction(legacy ? [...stores, ...LEGACY_STORES] : stores, 'readwrite');
      const stats = await readStats(tx);
      await Promise.all([
        ...stores.filter((s) => s !== 'meta').map((s) => tx.objectStore(s).clear()),
        ...(legacy ? LEGACY_STORES.map((s) => tx.objectStore(s).clear()) : []),
        // Nothing is left to merge, sweep or migrate; no note names a PDF that was read; no hand-over filed is left to know.
        ...[MERGE_KEY, SWEEP_KEY, MIGRATION_KEY, PDF_NOTES_KEY, FILED_HANDOVERS_KEY].map((k) => tx.objectStore('meta').delete(k)),
        dropPageSnapshot(tx),
        // Keep counting chunk ids (and segment keys) from where they were: ids are never reused (an
        // embedding batch in flight must not attach an old chunk's vector to a new chunk with the same id).
        tx.objectStore('meta').put({ N: 0, totalLength: 0, nextChunkId: stats.nextChunkId, nextSeq: stats.nextSeq }, 'stats'),
      ]);
      await tx.done;
      // Nothing of the pages stays in memory either.
      forgetCaches(db);
      this.engine.resetReaders();
      return n;
    }
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
        // Not visited since the start of the local day `retentionDays` days ago (as previewRetention counts).
        const cutoff = daysAgoStart(s.retentionDays, now);
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
