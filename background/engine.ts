/**
 * The engine: capture, search and admin over IndexedDB. No chrome.* here (the router in main.ts does
 * the browser glue), so the whole engine runs in Node against fake-indexeddb in the storage tests.
 */
import { bm25Search, type QueryTerm } from '../src/bm25.js';
import { chunkBlocks, countWords } from '../src/chunker.js';
import { groupByPage } from '../src/group.js';
import { hashHex } from '../src/hash.js';
import { classifyQuery, fuseHybrid, type DenseCalibration } from '../src/hybrid.js';
import { ProtocolError, type CapturePayload, CaptureResponse, SearchRequest, SearchResponse, SearchResult, ResultSection, SiteCount, Stats } from '../src/protocol.js';
import { parseDateOperand, parseQuery, type ParsedQuery } from '../src/query.js';
import type { FusedHit, LaneHit } from '../src/rrf.js';
import { DEFAULT_SETTINGS, mergeSettings, type Settings } from '../src/settings.js';
import { makeSnippet, TermMarker } from '../src/snippet.js';
import { foldText, queryTerms, type TokenizerOptions } from '../src/tokenizer.js';
import { sectionHref, siteMatches, siteOf } from '../src/url.js';
import { getDb, type ChunkRecord, type DB } from './db.js';
import { LexicalReader } from './lexicalIndex.js';
import { deletePages, writePage } from './pageStore.js';
import { forgetCaches } from './pageStore.js';
import { PageTable } from './pageTable.js';
import { withTexts } from './chunkText.js';

/** The dense lane as the engine sees it (implemented in dense.ts). */
export interface DenseLane {
  /** The model new chunks are queued for, or null when the lane is off. */
  queueModel(): string | null;
  /** Null while the model is not loaded or the lane is off: the search runs lexical-only then. */
  search(text: string, k: number, allowed: ReadonlySet<number> | null): Promise<{ hits: LaneHit[]; calibration: DenseCalibration } | null>;
  onChunksRemoved(ids: readonly number[]): void;
  onChunksAdded(): void;
  pending(): Promise<number>;
  /** Settings changed: a new model or a re-enabled lane re-embeds what it lacks. */
  onSettingsChanged(previous: Settings): void;
  status(): { model: string | null; error?: string };
}

/** Light stemming on: +0.013 nDCG@10 on SciFact train, +0.03 on the Python-manual tuning half (npm run eval). */
export const TOKENIZER: TokenizerOptions = { stem: true };

/** Share of pages forgotten per round when storage runs out (least recently visited first). */
export const EVICT_FRACTION = 0.1;

/** Storage as the browser reports it (navigator.storage.estimate); injected so Node tests run without it. */
export type StorageEstimate = () => Promise<{ usage?: number; quota?: number } | undefined>;

/**
 * Room kept free below the storage limit: eviction starts once usage is within this share of it.
 * Chromium checks a transaction's puts against the room left before it commits, deletes included (an
 * eviction rewrites posting blocks), so at the hard limit nothing can be evicted any more.
 */
export const HEADROOM_FRACTION = 0.15;

/**
 * The reserve: records of incompressible bytes (stored by Chromium as blob files) released when a
 * write still hits the limit. Deleting one writes nothing, so it always commits, and its space is free
 * at once for the eviction and the retry that follow. It is kept in RESERVE_PARTS records, released
 * one at a time: usage falls only when LevelDB compacts, so right after a recovery the reserve often
 * cannot be put back, and what is left of it must carry the next refusals. Measured in
 * tests/e2e/quota.test.ts.
 */
export const RESERVE_KEY = 'reserve';
export const RESERVE_PARTS = 4;
export const reservePartKey = (i: number): string => `${RESERVE_KEY}:${i}`;
/**
 * Its size (all parts) follows usage: Chromium lets writes run past the quota before it refuses one
 * (first refusal measured at 111-125% of a 6 MB quota), and puts commit again only once usage is back
 * under it.
 */
export const reserveBytes = (usage: number): number => Math.max(256 * 1024, Math.min(8 * 1024 * 1024, Math.floor(usage * 0.5)));

/** Where a write last failed for lack of room: the enforced limit when the estimate's quota is not. */
export const CEILING_KEY = 'quotaCeiling';
/**
 * The limit taken from a refused write: this share of the usage then. Chromium checks writes against
 * room it caches for a few seconds, so the first refusal comes at 111-125% of the real quota
 * (tests/e2e/quota.test.ts, 6 MB quota); a limit that high leaves the soft cap too late and the
 * overshoot eats the reserve at the next refusal.
 */
export const LEARNED_LIMIT_SHARE = 0.85;
export const CEILING_TTL_MS = 86_400_000;

export function isQuotaError(e: unknown): boolean {
  const name = (e as { name?: string } | null)?.name;
  const inner = (e as { inner?: { name?: string }; target?: { error?: { name?: string } } } | null);
  return name === 'QuotaExceededError' || inner?.inner?.name === 'QuotaExceededError' || inner?.target?.error?.name === 'QuotaExceededError';
}

/** Pages with less main text than this are not worth a result. */
export const MIN_PAGE_WORDS = 12;

export class Engine {
  readonly lexical: LexicalReader;
  readonly pages: PageTable;
  private settingsCache: Settings | null = null;
  dense: DenseLane | null = null;
  /** Shown to the user (options, popup) after storage ran out. */
  storageWarning: string | undefined;
  /** Set by the worker (maintenance.ts); null in Node tests that do not exercise the storage limit. */
  storageEstimate: StorageEstimate | null = null;
  /** What storage-limit handling did, for tests and diagnostics. */
  readonly quotaLog = { softEvictions: 0, hardEvictions: 0, reserveReleased: 0, reservePlaced: 0, quotaErrors: 0, failedDeletes: 0, capturesRefused: 0 };
  private ceiling: { usage: number; at: number } | null | undefined;
  private legacyReserveChecked = false;
  /** The last captures' diagnostics (extraction method, retention, page cost), newest last. */
  readonly captureLog: { url: string; at: number; outcome: string; chunks: number; words: number; extraction?: CapturePayload['extraction'] }[] = [];
  /** Serialises writes so a capture storm never interleaves read-modify-write cycles. */
  private writeChain: Promise<unknown> = Promise.resolve();

  constructor(readonly db: () => Promise<DB> = () => getDb()) {
    this.lexical = new LexicalReader(db);
    this.pages = new PageTable(db);
  }

  /** Runs `fn` with no other write in flight (verify, import and repairs use it too). */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.writeChain.then(fn, fn);
    this.writeChain = run.catch(() => undefined);
    return run;
  }

  async settings(): Promise<Settings> {
    if (this.settingsCache) return this.settingsCache;
    const db = await this.db();
    const stored = await db.get('meta', 'settings');
    this.settingsCache = mergeSettings(structuredClone(DEFAULT_SETTINGS) as Settings, stored ?? {});
    return this.settingsCache;
  }

  /** Called with the pause flag and exclusions whenever they may have changed (the capture gate). */
  onGateChange: ((gate: { paused: boolean; excludedSites: string[] }) => Promise<void>) | null = null;

  async updateSettings(patch: unknown): Promise<Settings> {
    const previous = await this.settings();
    const next = mergeSettings(previous, patch);
    const db = await this.db();
    await db.put('meta', next, 'settings');
    this.settingsCache = next;
    // Content scripts check the gate before reading a page: it must be current when this returns.
    if (previous.paused !== next.paused || previous.excludedSites.join('\n') !== next.excludedSites.join('\n')) {
      await this.onGateChange?.({ paused: next.paused, excludedSites: next.excludedSites });
    }
    // A new model, the lane turned on or off, a download just allowed (the model chosen earlier can now
    // be had), or another mirror (it serves other files).
    const downloadAllowed = next.allowModelDownload && !previous.allowModelDownload;
    if (previous.model !== next.model || previous.denseEnabled !== next.denseEnabled || downloadAllowed || previous.modelMirror !== next.modelMirror) this.dense?.onSettingsChanged(previous);
    return next;
  }

  /** Whether a page at this URL may be captured (checked before the content script extracts anything). */
  async captureAllowed(url: string): Promise<{ allowed: boolean; reason?: string }> {
    const s = await this.settings();
    if (s.paused) return { allowed: false, reason: 'paused' };
    const site = siteOf(url);
    if (!site) return { allowed: false, reason: 'not a web page' };
    if (s.excludedSites.some((p) => siteMatches(site, p))) return { allowed: false, reason: 'excluded site' };
    return { allowed: true };
  }

  async capture(url: string, payload: CapturePayload, now = Date.now()): Promise<CaptureResponse> {
    const res = await this.captureInner(url, payload, now);
    this.captureLog.push({ url, at: now, outcome: res.outcome, chunks: res.chunks, words: payload.blocks.reduce((n, b) => n + countWords(b.text), 0), extraction: payload.extraction });
    if (this.captureLog.length > 2000) this.captureLog.splice(0, this.captureLog.length - 2000);
    return res;
  }

  private async captureInner(url: string, payload: CapturePayload, now: number): Promise<CaptureResponse> {
    const check = await this.captureAllowed(url);
    if (!check.allowed) return { outcome: 'skipped', chunks: 0, reason: check.reason };
    const { chunks, truncated } = chunkBlocks(payload.blocks);
    const words = chunks.reduce((n, c) => n + countWords(c.text), 0);
    if (words < MIN_PAGE_WORDS && countWords(payload.title) + words < MIN_PAGE_WORDS) {
      return { outcome: 'skipped', chunks: 0, reason: 'too little text' };
    }
    if (truncated.chunks || truncated.chars) console.warn(`reread: capped ${url}: ${truncated.chunks} chunks, ${truncated.chars} chars dropped`);
    const hash = hashHex(payload.title + '\u0000' + chunks.map((c) => c.text).join('\u0000'));
    return this.exclusive(async () => {
      const db = await this.db();
      await this.keepHeadroomLocked(url);
      const write = () =>
        writePage(db, { url, site: siteOf(url), title: payload.title, lang: payload.lang, hash, words, chunks, now, embedModel: this.dense?.queueModel() ?? null }, TOKENIZER);
      let result: Awaited<ReturnType<typeof write>>;
      try {
        result = await write();
      } catch (e) {
        // The page's transaction aborted whole: nothing half-written. Remember where the limit is,
        // release the reserve so deletes can commit, make room by the retention policy (least
        // recently visited first), tell the user, and try once more.
        if (!isQuotaError(e)) throw e;
        this.quotaLog.quotaErrors++;
        await this.learnCeilingLocked();
        // One reserve part at a time, so what is left carries the next refusal, and the page first:
        // forgetting pages rewrites posting blocks, which at the limit costs more room than the page
        // itself (measured: 1.3-1.9 MB for 3 test pages against ~0.7 MB for the write), and frees
        // nothing until LevelDB compacts. With no part left, deletes are all that may still help.
        let freed = 0;
        let evicted = false;
        for (;;) {
          const released = await this.releaseReservePartLocked();
          if (!released && !evicted) {
            freed += await this.evictOldestLocked(EVICT_FRACTION, url);
            evicted = true;
          }
          try {
            result = await write();
            break;
          } catch (again) {
            if (!isQuotaError(again)) throw again;
            this.quotaLog.quotaErrors++;
            if (!released) {
              this.quotaLog.hardEvictions += freed;
              this.quotaLog.capturesRefused++;
              this.storageWarning = 'Storage is full and nothing more could be freed: new pages are not being saved.';
              throw new ProtocolError('quota', this.storageWarning);
            }
          }
        }
        // Stored: now forget the least recently visited pages, so the next compaction brings usage
        // down, releasing further parts while the eviction is refused (a refused delete aborts whole;
        // with no part left the soft cap tries again at the next capture, the limit being known now).
        while (!evicted) {
          freed += await this.evictOldestLocked(EVICT_FRACTION, url);
          evicted = freed > 0 || !(await this.releaseReservePartLocked());
        }
        this.quotaLog.hardEvictions += freed;
        this.storageWarning = freed
          ? `Storage was full: Reread forgot the ${freed} least recently visited pages to make room.`
          : 'Storage is full: Reread will forget the least recently visited pages as room allows.';
      }
      this.lexical.invalidate(result.touchedTerms);
      this.pages.put(result.page);
      if (result.removedChunkIds.length) this.dense?.onChunksRemoved(result.removedChunkIds);
      if (result.addedChunkIds.length) this.dense?.onChunksAdded();
      return { outcome: result.outcome, chunks: result.page.chunkIds.length };
    });
  }

  async deleteUrls(urls: readonly string[]): Promise<number> {
    if (!urls.length) return 0;
    return this.exclusive(() => this.deleteUrlsLocked(urls));
  }

  /** Deletes with the write lock already held. */
  private async deleteUrlsLocked(urls: readonly string[]): Promise<number> {
    if (!urls.length) return 0;
    const db = await this.db();
    const res = await deletePages(db, urls, TOKENIZER);
    this.lexical.invalidate(res.touchedTerms);
    for (const p of res.pages) this.pages.remove(p.url);
    this.dense?.onChunksRemoved(res.removedChunkIds);
    return res.pages.length;
  }

  /**
   * The soft cap: when usage is within the headroom of the limit (the browser's quota, or lower where a
   * write already failed), forget the least recently visited share of pages now, while deletes still
   * fit, and put the reserve back. Once per capture: usage falls only when the database compacts, so
   * looping until the estimate drops would forget far more than needed.
   */
  private async keepHeadroomLocked(keepUrl?: string): Promise<void> {
    const room = await this.storageRoom();
    if (!room) return;
    const { usage, limit } = room;
    // The reserve is part of the headroom: room must stay to put back what of it is missing (what
    // is held is already in the usage).
    const db = await this.db();
    const want = reserveBytes(usage);
    const parts = await Promise.all(Array.from({ length: RESERVE_PARTS }, (_, i) => db.get('meta', reservePartKey(i)) as Promise<Uint8Array | undefined>));
    const held = parts.reduce((n, p) => n + (p?.byteLength ?? 0), 0);
    if (usage + Math.max(0, want - held) > limit * (1 - HEADROOM_FRACTION)) {
      const freed = await this.evictOldestLocked(EVICT_FRACTION, keepUrl);
      this.quotaLog.softEvictions += freed;
      if (freed) this.storageWarning = `Storage is nearly full: Reread forgot the ${freed} least recently visited pages to make room.`;
    }
    // The reserve comes first (without it a write at the limit cannot be recovered from): each part
    // placed, or grown when it is under 60% of what the usage calls for. At the hard limit the put
    // just fails, and the parts still missing are tried again at the next capture.
    if (!this.legacyReserveChecked) {
      // One record before the reserve was split: its room goes to the parts.
      if ((await db.getKey('meta', RESERVE_KEY)) !== undefined) await db.delete('meta', RESERVE_KEY);
      this.legacyReserveChecked = true;
    }
    const part = Math.ceil(want / RESERVE_PARTS);
    for (let i = 0; i < RESERVE_PARTS; i++) {
      if ((parts[i]?.byteLength ?? 0) >= part * 0.6) continue;
      if (!(await this.placeReservePartLocked(i, part))) break;
    }
  }

  /** Usage and the limit writes are held to, or undefined when the browser does not say. */
  private async storageRoom(): Promise<{ usage: number; limit: number } | undefined> {
    if (!this.storageEstimate) return undefined;
    const est = await this.storageEstimate().catch(() => undefined);
    if (est?.usage === undefined) return undefined;
    if (this.ceiling === undefined) {
      const stored = (await (await this.db()).get('meta', CEILING_KEY)) as { usage?: unknown; at?: unknown } | undefined;
      this.ceiling = typeof stored?.usage === 'number' && typeof stored.at === 'number' ? { usage: stored.usage, at: stored.at } : null;
    }
    // A failure is remembered for a day (the disk may have been cleaned since); then learned again.
    if (this.ceiling && Date.now() - this.ceiling.at > CEILING_TTL_MS) this.ceiling = null;
    const limits = [est.quota, this.ceiling?.usage].filter((n): n is number => typeof n === 'number' && n > 0);
    return limits.length ? { usage: est.usage, limit: Math.min(...limits) } : undefined;
  }

  private async learnCeilingLocked(): Promise<void> {
    const est = await this.storageEstimate?.().catch(() => undefined);
    if (est?.usage === undefined) return;
    this.ceiling = { usage: Math.floor(est.usage * LEARNED_LIMIT_SHARE), at: Date.now() };
    await (await this.db()).put('meta', this.ceiling, CEILING_KEY).catch(() => undefined);
  }

  private async placeReservePartLocked(i: number, bytes: number): Promise<boolean> {
    const block = new Uint8Array(bytes);
    for (let o = 0; o < bytes; o += 65_536) crypto.getRandomValues(block.subarray(o, Math.min(bytes, o + 65_536)));
    try {
      await (await this.db()).put('meta', block, reservePartKey(i));
      this.quotaLog.reservePlaced++;
      return true;
    } catch (e) {
      if (!isQuotaError(e)) throw e;
      return false;
    }
  }

  /** Deletes one reserve part (the last one placed first); false when none is left. */
  private async releaseReservePartLocked(): Promise<boolean> {
    const db = await this.db();
    for (let i = RESERVE_PARTS - 1; i >= 0; i--) {
      if ((await db.getKey('meta', reservePartKey(i))) === undefined) continue;
      await db.delete('meta', reservePartKey(i));
      this.quotaLog.reserveReleased++;
      return true;
    }
    return false;
  }

  /**
   * Forgets the least recently visited `fraction` of pages (at least one), never `keepUrl`, in one
   * transaction: a posting block shared by several of them is rewritten once, not once per page (near
   * the limit those rewrites are what a delete costs). When that is refused, one page a transaction,
   * oldest first, stopping at the first refusal so nothing newer goes before something older.
   */
  private async evictOldestLocked(fraction: number, keepUrl?: string): Promise<number> {
    const pages = [...(await this.pages.all()).values()].filter((p) => p.url !== keepUrl).sort((a, b) => a.lastVisit - b.lastVisit);
    const n = Math.min(pages.length, Math.max(1, Math.ceil(pages.length * fraction)));
    const urls = pages.slice(0, n).map((p) => p.url);
    try {
      return await this.deleteUrlsLocked(urls);
    } catch (e) {
      if (!isQuotaError(e)) throw e;
      this.quotaLog.failedDeletes++;
    }
    let freed = 0;
    for (const url of urls.length > 1 ? urls : []) {
      try {
        freed += await this.deleteUrlsLocked([url]);
      } catch (e) {
        if (!isQuotaError(e)) throw e;
        this.quotaLog.failedDeletes++;
        break;
      }
    }
    return freed;
  }

  /**
   * The retention policy: forget pages not visited for `retentionDays`, then, while the storage used
   * is over `maxStorageMb`, the least recently visited ones. Returns how many pages were forgotten.
   */
  async enforceRetention(now = Date.now(), usage?: () => Promise<number | undefined>): Promise<number> {
    const s = await this.settings();
    return this.exclusive(async () => {
      let forgotten = 0;
      if (s.retentionDays > 0) {
        const cutoff = now - s.retentionDays * 86_400_000;
        forgotten += await this.deleteUrlsLocked([...(await this.pages.all()).values()].filter((p) => p.lastVisit < cutoff).map((p) => p.url));
      }
      if (s.maxStorageMb > 0 && usage) {
        // One pass, sized by the overshoot (at least EVICT_FRACTION): the usage estimate falls only
        // when the database compacts, so re-measuring after each round would forget too much.
        const used = await usage();
        const max = s.maxStorageMb * 1024 * 1024;
        if (used !== undefined && used > max) forgotten += await this.evictOldestLocked(Math.max(EVICT_FRACTION, 1 - max / used));
      }
      if (forgotten) this.storageWarning = undefined;
      return forgotten;
    });
  }

  async deleteSite(site: string): Promise<number> {
    const urls = [...(await this.pages.all()).values()].filter((p) => siteMatches(p.site, site)).map((p) => p.url);
    return this.deleteUrls(urls);
  }

  async deleteRange(after?: number, before?: number): Promise<number> {
    const urls = [...(await this.pages.all()).values()]
      .filter((p) => (after === undefined || p.lastVisit >= after) && (before === undefined || p.lastVisit < before))
      .map((p) => p.url);
    return this.deleteUrls(urls);
  }

  async deleteAll(): Promise<number> {
    return this.exclusive(async () => {
      const db = await this.db();
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
      this.lexical.invalidate('all');
      this.pages.reset();
      this.dense?.onChunksRemoved([]);
      return n;
    });
  }

  async stats(): Promise<Stats> {
    const db = await this.db();
    const [pages, chunks] = await Promise.all([db.count('pages'), db.count('chunks')]);
    const sites = new Set([...(await this.pages.all()).values()].map((p) => p.site)).size;
    const st = this.dense?.status();
    const out: Stats = { pages, chunks, pendingEmbeddings: (await this.dense?.pending()) ?? 0, sites, activeModel: st?.model ?? null };
    if (st?.error) out.embeddingError = st.error;
    if (this.storageWarning) out.storageWarning = this.storageWarning;
    return out;
  }

  async siteCounts(): Promise<SiteCount[]> {
    const counts = new Map<string, number>();
    for (const p of (await this.pages.all()).values()) counts.set(p.site, (counts.get(p.site) ?? 0) + 1);
    return [...counts].map(([site, pages]) => ({ site, pages })).sort((a, b) => b.pages - a.pages || a.site.localeCompare(b.site));
  }

  /** Merges the typed query with the filter controls / URL parameters. */
  static parse(req: SearchRequest, now = Date.now()): ParsedQuery {
    const parsed = parseQuery(req.q, now);
    if (req.site) {
      for (const s of req.site.split(/[\s,]+/).filter(Boolean)) {
        const site = s.toLowerCase().replace(/^https?:\/\//, '').replace(/\/.*$/, '').replace(/^www\./, '');
        if (site && !parsed.sites.includes(site)) parsed.sites.push(site);
      }
    }
    if (req.after) {
      const t = parseDateOperand(req.after, now);
      if (t !== undefined) parsed.after = Math.max(parsed.after ?? -Infinity, t);
    }
    if (req.before) {
      const t = parseDateOperand(req.before, now);
      if (t !== undefined) parsed.before = Math.min(parsed.before ?? Infinity, t);
    }
    return parsed;
  }

  async search(req: SearchRequest): Promise<SearchResponse> {
    const started = performance.now();
    const settings = await this.settings();
    const limit = req.limit ?? 30;
    const parsed = Engine.parse(req);
    const allowed = await this.pages.allowedChunks(parsed, req.excludeUrl);
    const terms = queryTerms(parsed.text, TOKENIZER);
    const empty = (): SearchResponse => ({ results: [], parsed, tookMs: performance.now() - started, lanesUsed: { lexical: false, dense: false } });
    if (allowed && allowed.size === 0) return empty();
    if (!terms.length) {
      if (!allowed) return empty();
      // Filters alone (`site:docs.python.org after:7d`): the matching pages, most recently visited first.
      const pages = [...(await this.pages.all()).values()]
        .filter((p) => p.chunkIds.length && allowed.has(p.chunkIds[0]!))
        .sort((a, b) => b.lastVisit - a.lastVisit)
        .slice(0, limit);
      const listed = pages.map((p) => ({ id: p.chunkIds[0]!, score: 0, ranks: {}, laneScores: {}, terms: [] }));
      const results = await this.present(listed, parsed, [], limit);
      return { results, parsed, tookMs: Math.round((performance.now() - started) * 10) / 10, lanesUsed: { lexical: false, dense: false } };
    }

    // Filters on text (phrases, excluded words) are checked on candidates, so retrieve deeper.
    const textFilters = parsed.phrases.length + parsed.excludeWords.length + parsed.excludePhrases.length > 0;
    const depth = textFilters ? Math.max(500, limit * 10) : Math.max(limit * 3, 30);
    const [lexical, dense] = await Promise.all([
      this.lexicalSearch(terms, depth, allowed, settings),
      settings.denseEnabled && this.dense ? this.dense.search(parsed.text, depth, allowed).catch(() => null) : Promise.resolve(null),
    ]);
    const fused = fuseHybrid({
      lexical,
      dense: dense?.hits ?? [],
      queryClass: classifyQuery(parsed.text),
      calibration: dense?.calibration ?? null,
      rrfK: settings.ranking.rrfK,
      userWeights: { lexical: settings.ranking.lexicalWeight, dense: settings.ranking.denseWeight },
    });
    const results = await this.present(fused, parsed, terms, limit);
    return { results, parsed, tookMs: Math.round((performance.now() - started) * 10) / 10, lanesUsed: { lexical: true, dense: dense !== null } };
  }

  private async lexicalSearch(terms: string[], k: number, allowed: ReadonlySet<number> | null, settings: Settings): Promise<LaneHit[]> {
    const [postings, stats] = await Promise.all([this.lexical.postings(terms), this.lexical.corpusStats()]);
    const query: QueryTerm[] = terms.map((term) => ({ term, postings: postings.get(term)! }));
    return bm25Search(query, stats, { k, allowed, params: { k1: settings.ranking.k1, b: settings.ranking.b } });
  }

  /** Reads the candidates' chunks, applies text filters, groups by page and builds the result cards. */
  private async present(fused: FusedHit[], parsed: ParsedQuery, terms: string[], limit: number): Promise<SearchResult[]> {
    if (!fused.length) return [];
    const db = await this.db();
    const phrases = parsed.phrases.map((p) => foldText(p).toLowerCase());
    const excludePhrases = [...parsed.excludePhrases, ...parsed.excludeWords].map((p) => foldText(p).toLowerCase());
    const textFilters = phrases.length + excludePhrases.length > 0;
    const table = await this.pages.all();
    const marker = new TermMarker(new Set(terms), TOKENIZER);
    type Hit = FusedHit & { url: string; chunk: ChunkRecord & { text: string } };
    const hits: Hit[] = [];
    // Read in slices: enough to fill `limit` pages with their extra sections, without reading everything.
    const pagesSeen = new Set<string>();
    for (let i = 0; i < fused.length && pagesSeen.size < limit; i += 64) {
      const slice = fused.slice(i, i + 64);
      const tx = db.transaction('chunks');
      const read = await Promise.all(slice.map((h) => tx.store.get(h.id)));
      const chunks = await withTexts(db, read.filter((c): c is ChunkRecord => !!c));
      const byId = new Map(chunks.map((c) => [c.id, c]));
      slice.forEach((h) => {
        const chunk = byId.get(h.id);
        if (!chunk || !table.has(chunk.url)) return;
        if (textFilters) {
          const folded = foldText(`${table.get(chunk.url)!.title}\n${chunk.text}`).toLowerCase();
          if (!phrases.every((p) => folded.includes(p))) return;
          if (excludePhrases.some((p) => containsWord(folded, p))) return;
        }
        hits.push({ ...h, url: chunk.url, chunk });
        pagesSeen.add(chunk.url);
      });
    }
    const section = (h: Hit): ResultSection => {
      const body = h.chunk.text.includes('\n') && h.chunk.headingPath.length ? h.chunk.text.slice(h.chunk.text.indexOf('\n') + 1) : h.chunk.text;
      return {
        chunkId: h.id,
        section: h.chunk.section,
        headingPath: h.chunk.headingPath,
        href: sectionHref(h.url, h.chunk.anchor),
        snippet: makeSnippet(body, marker),
        whyMatched: h.terms,
        lanes: { ...h.ranks },
        score: Math.round(h.score * 1000) / 1000,
      };
    };
    return groupByPage(hits, limit).map((g) => {
      const page = table.get(g.best.url)!;
      return {
        ...section(g.best),
        url: page.url,
        title: page.title,
        site: page.site,
        lastVisit: page.lastVisit,
        visitCount: page.visitCount,
        more: g.more.map(section),
      };
    });
  }
}

/** Whole-word containment on folded text (so `-java` does not drop "javascript"). */
function containsWord(haystack: string, needle: string): boolean {
  let from = 0;
  for (;;) {
    const i = haystack.indexOf(needle, from);
    if (i < 0) return false;
    const before = i === 0 ? '' : haystack[i - 1]!;
    const after = haystack[i + needle.length] ?? '';
    if (!/[\p{L}\p{N}_]/u.test(before) && !/[\p{L}\p{N}_]/u.test(after)) return true;
    from = i + 1;
  }
}
