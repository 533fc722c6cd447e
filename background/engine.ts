/**
 * The engine: the worker's state and the one write lock, with each question answered in its own file —
 * capture (capture.ts), search (search.ts over src/search.ts), forgetting and retention (forget.ts), the
 * storage limit (storageBudget.ts). No chrome.* here (the router in main.ts does the browser glue), so
 * the whole engine runs in Node against fake-indexeddb in the storage tests.
 */
import { countWords } from '../src/chunker.js';
import type { DenseCalibration } from '../src/hybrid.js';
import { ProtocolError, type CapturePayload, type CaptureResponse, type SearchRequest, type SearchResponse, type SiteCount, type Stats } from '../src/protocol.js';
import { SupersededError, type DenseLoading, type DenseSearchOptions } from '../src/search.js';
import type { LaneHit } from '../src/rrf.js';
import { DEFAULT_SETTINGS, mergeSettings, migrateStoredSettings, type Settings } from '../src/settings.js';
import { captureAllowed, capturePage, type CaptureSource, type CutBy } from './capture.js';
import { getDb, type DB } from './db.js';
import { Delta } from './delta.js';
import { Forget } from './forget.js';
import { IndexMaintenance } from './indexMaintenance.js';
import { LexicalReader } from './lexicalIndex.js';
import type { BatchResult, DeleteResult } from './pageStore.js';
import { PageTable } from './pageTable.js';
import { Recut } from './recut.js';
import { TermIds } from './termIds.js';
import { traced } from './bootTrace.js';
import { searchStored } from './search.js';
import { StorageBudget, type QuotaLog, type StorageEstimate } from './storageBudget.js';
import type { Lexicon } from '../src/spelling.js';

/** The dense lane as the engine sees it (implemented in dense.ts). */
export interface DenseLane {
  /** The model new chunks are queued for, or null when the lane is off. */
  queueModel(): string | null;
  /**
   * Null while the model cannot be had or the lane is off, `{ loading: true }` while its index is still
   * loading (unless opts.wait): the search runs lexical-only then.
   */
  search(text: string, k: number, allowed: ReadonlySet<number> | null, opts?: DenseSearchOptions): Promise<{ hits: LaneHit[]; calibration: DenseCalibration; timings?: Record<string, number> } | DenseLoading | null>;
  onChunksRemoved(ids: readonly number[]): void;
  onChunksAdded(): void;
  /**
   * Vectors stored for these sections by another writer than the lane's own queue (an import carrying
   * them, background/transfer.ts): the resident index takes them at once.
   */
  onVectorsStored(model: string, dim: number, stored: readonly { id: number; codes: Int8Array; scale: number }[]): void;
  pending(): Promise<number>;
  /** Settings changed: a new model or a re-enabled lane re-embeds what it lacks. */
  onSettingsChanged(previous: Settings): void;
  status(): { model: string | null; error?: string };
}

/** Settings changes the dense lane has not resynced yet (the settings before each), oldest first. */
export const DENSE_RESYNC_KEY = 'denseResync';
const MAX_PENDING_RESYNCS = 5;

export class Engine {
  readonly lexical: LexicalReader;
  readonly pages: PageTable;
  /** Pending segments and tombstones, resident (delta.ts). */
  readonly delta: Delta;
  readonly termIds: TermIds;
  /** Merges, sweeps and the schema migration, in the background (indexMaintenance.ts). */
  readonly maintenance: IndexMaintenance;
  readonly budget: StorageBudget;
  readonly forget: Forget;
  /** Cuts stored pages again after a chunker change (recut.ts); the worker starts it. */
  readonly recut: Recut;
  dense: DenseLane | null = null;
  /** Real words that are not typos (background/lexicon.ts in the worker; none in Node tests). */
  lexicon: (() => Promise<Lexicon | null>) | null = null;
  private settingsCache: Settings | null = null;
  /** The last captures' diagnostics (extraction method, retention, page cost), newest last. */
  readonly captureLog: { url: string; at: number; outcome: string; chunks: number; words: number; extraction?: CapturePayload['extraction']; cutBy?: CutBy; workerMs?: number }[] = [];
  /** Serialises writes so a capture storm never interleaves read-modify-write cycles. */
  private writeChain: Promise<unknown> = Promise.resolve();
  /** Called with the pause flag and exclusions whenever they may have changed (the capture gate). */
  onGateChange: ((gate: { paused: boolean; excludedSites: string[] }) => Promise<void>) | null = null;

  constructor(readonly db: () => Promise<DB> = () => getDb()) {
    this.pages = new PageTable(db);
    this.delta = new Delta(db);
    this.termIds = new TermIds();
    this.lexical = new LexicalReader(db, this.delta, this.pages, this.termIds);
    this.maintenance = new IndexMaintenance(this);
    this.budget = new StorageBudget(this);
    this.forget = new Forget(this);
    this.recut = new Recut(this);
    this.pages.onStale = () => this.maintenance.schedule(0);
  }

  /** Runs `fn` with no other write in flight (verify, import and repairs use it too). */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.writeChain.then(fn, fn);
    this.writeChain = run.catch(() => undefined);
    return run;
  }

  /** Brings the readers in step after a page write committed (segment, tombstones, pages, dense lane). */
  applyWrite(batch: BatchResult): void {
    if (batch.segment) this.delta.addSegment(batch.segment);
    this.delta.addDead(batch.dead);
    this.lexical.statsChanged(batch.stats);
    for (const r of batch.pages) {
      this.pages.put(r.page);
      if (r.removedChunkIds.length) this.dense?.onChunksRemoved(r.removedChunkIds);
    }
    if (batch.pages.some((r) => r.addedChunkIds.length)) this.dense?.onChunksAdded();
    this.maintenance.noteWrite();
  }

  /** The same after a delete committed. */
  applyDelete(res: DeleteResult): void {
    this.delta.addDead(res.dead);
    this.lexical.statsChanged(res.stats);
    for (const p of res.pages) this.pages.remove(p.url);
    if (res.removedChunkIds.length) this.dense?.onChunksRemoved(res.removedChunkIds);
    this.maintenance.noteWrite();
  }

  /** Everything stored changed (repair, forget everything): every in-memory mirror starts over. */
  resetReaders(): void {
    this.lexical.invalidate('all');
    this.pages.reset();
    this.delta.reset();
    this.termIds.reset();
    this.maintenance.reset();
    this.dense?.onChunksRemoved([]);
  }

  /** Shown to the user (options, popup) after storage ran out. */
  get storageWarning(): string | undefined {
    return this.budget.warning;
  }
  set storageWarning(w: string | undefined) {
    this.budget.warning = w;
  }
  /** Set by the worker (maintenance.ts); null in Node tests that do not exercise the storage limit. */
  get storageEstimate(): StorageEstimate | null {
    return this.budget.estimate;
  }
  set storageEstimate(e: StorageEstimate | null) {
    this.budget.estimate = e;
  }
  get quotaLog(): QuotaLog {
    return this.budget.log;
  }

  async settings(): Promise<Settings> {
    if (this.settingsCache) return this.settingsCache;
    const db = await this.db();
    const stored = await traced('settings read', db.get('meta', 'settings'));
    this.settingsCache = mergeSettings(structuredClone(DEFAULT_SETTINGS) as Settings, migrateStoredSettings(stored ?? {}));
    return this.settingsCache;
  }

  /** The settings as last read or written (null before the first read): what a write queues its sections for. */
  settingsNow(): Settings | null {
    return this.settingsCache;
  }

  async updateSettings(patch: unknown): Promise<Settings> {
    const previous = await this.settings();
    const next = mergeSettings(previous, patch);
    const db = await this.db();
    // A new model, the lane turned on or off, a download just allowed (the model chosen earlier can now
    // be had), or another mirror (it serves other files).
    const downloadAllowed = next.allowModelDownload && !previous.allowModelDownload;
    const denseChange = previous.model !== next.model || previous.denseEnabled !== next.denseEnabled || downloadAllowed || previous.modelMirror !== next.modelMirror;
    if (denseChange) {
      // Stored with the settings: the dense lane's resync (which waits for the model) is resumed at the
      // next start if the worker stops first (background/dense.ts `init`), or nothing stored is embedded.
      const tx = db.transaction('meta', 'readwrite');
      const pending = ((await tx.store.get(DENSE_RESYNC_KEY)) as Settings[] | undefined) ?? [];
      await tx.store.put(next, 'settings');
      await tx.store.put([...pending, previous].slice(-MAX_PENDING_RESYNCS), DENSE_RESYNC_KEY);
      await tx.done;
    } else await db.put('meta', next, 'settings');
    this.settingsCache = next;
    // Content scripts check the gate before reading a page: it must be current when this returns.
    if (previous.paused !== next.paused || previous.excludedSites.join('\n') !== next.excludedSites.join('\n')) {
      await this.onGateChange?.({ paused: next.paused, excludedSites: next.excludedSites });
    }
    if (denseChange) this.dense?.onSettingsChanged(previous);
    return next;
  }

  captureAllowed(url: string): Promise<{ allowed: boolean; reason?: string }> {
    return captureAllowed(this, url);
  }

  async capture(url: string, payload: CapturePayload, now = Date.now(), source?: CaptureSource): Promise<CaptureResponse> {
    const t = performance.now();
    const { cutBy, ...res } = await capturePage(this, url, payload, now, source);
    // workerMs: from here to the page's commit, the wait for the write lock included.
    this.captureLog.push({ url, at: now, outcome: res.outcome, chunks: res.chunks, words: payload.blocks.reduce((n, b) => n + countWords(b.text), 0), extraction: payload.extraction, cutBy, workerMs: performance.now() - t });
    if (this.captureLog.length > 2000) this.captureLog.splice(0, this.captureLog.length - 2000);
    return res;
  }

  async search(req: SearchRequest): Promise<SearchResponse> {
    this.searching++;
    const t = performance.now();
    // A newer search from the same box supersedes the one it still runs (that one stops at its next step).
    const signal = { superseded: false };
    if (req.box) {
      const previous = this.boxes.get(req.box);
      if (previous) previous.superseded = true;
      this.boxes.set(req.box, signal);
    }
    try {
      await this.forget.ready(); // pages marked forgotten are hidden before anything is searched
      // The forgets whose pages this answer leaves out: the search surfaces offer their undo beside it.
      const forgets = await this.forget.pending();
      const t1 = performance.now();
      const res = await traced(
        'search',
        searchStored(this, req, signal).catch((e: unknown) => {
          if (e instanceof SupersededError) throw new ProtocolError('superseded', e.message);
          throw e;
        }),
      );
      // The wait before the pipeline (forgets settled, settings read) and the whole, for the breakdown.
      res.timings = { ...res.timings, readyMs: Math.round((t1 - t) * 10) / 10, engineMs: Math.round((performance.now() - t) * 10) / 10 };
      if (forgets.length) res.forgets = forgets;
      return res;
    } finally {
      if (req.box && this.boxes.get(req.box) === signal) this.boxes.delete(req.box);
      this.searching--;
      this.lastSearchEnd = performance.now();
    }
  }

  /** The search each search box (SearchRequest.box) runs now. */
  private readonly boxes = new Map<string, { superseded: boolean }>();

  /** Searches in flight, and when the last one ended (see searchesQuiet). */
  private searching = 0;
  private lastSearchEnd = -Infinity;

  /**
   * Resolves once no search runs and none ended in the last `quietMs` (the user is not typing), or
   * after `maxWaitMs` at most (searching without pause never stops the job). The backfill waits for it
   * before each page's write: a search's reads of sections it has not seen wait for any write
   * transaction in progress, so while the user types, the backfill holds back. (The history import's
   * batch writes touch no section a search reads but the new ones: not held.)
   */
  async searchesQuiet(quietMs = 150, maxWaitMs = 750): Promise<void> {
    const end = performance.now() + maxWaitMs;
    for (;;) {
      const now = performance.now();
      const wait = this.searching ? 25 : this.lastSearchEnd + quietMs - now;
      if (wait <= 0 || now >= end) return;
      await new Promise((r) => setTimeout(r, Math.min(wait, end - now)));
    }
  }

  deleteUrls(urls: readonly string[]): Promise<number> {
    return this.forget.urls(urls);
  }
  deleteSite(site: string): Promise<number> {
    return this.forget.site(site);
  }
  deleteRange(after?: number, before?: number): Promise<number> {
    return this.forget.range(after, before);
  }
  deleteAll(): Promise<number> {
    return this.forget.all();
  }
  enforceRetention(now = Date.now(), usage?: () => Promise<number | undefined>): Promise<number> {
    return this.forget.retention(now, usage);
  }

  async stats(): Promise<Stats> {
    await this.forget.ready();
    const db = await this.db();
    const [stored, corpus, hidden] = await Promise.all([db.count('pages'), this.lexical.corpusStats(), this.pages.hiddenPages()]);
    // As the user sees them: pages marked forgotten (undo window open) are not counted.
    const pages = stored - hidden.length;
    const chunks = corpus.N - hidden.reduce((n, p) => n + p.chunkIds.length, 0);
    const sites = new Set([...(await this.pages.all()).values()].map((p) => p.site)).size;
    const st = this.dense?.status();
    const out: Stats = { pages, chunks, pendingEmbeddings: (await this.dense?.pending()) ?? 0, sites, activeModel: st?.model ?? null };
    if (st?.error) out.embeddingError = st.error;
    if (this.storageWarning) out.storageWarning = this.storageWarning;
    if (this.recut.progress) out.recut = { ...this.recut.progress };
    return out;
  }

  async siteCounts(): Promise<SiteCount[]> {
    await this.forget.ready();
    const counts = new Map<string, number>();
    for (const p of (await this.pages.all()).values()) counts.set(p.site, (counts.get(p.site) ?? 0) + 1);
    return [...counts].map(([site, pages]) => ({ site, pages })).sort((a, b) => b.pages - a.pages || a.site.localeCompare(b.site));
  }
}
