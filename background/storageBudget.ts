/**
 * The storage budget: what to do as the browser's storage limit comes near, and when a write hits it.
 * Before each capture, usage within HEADROOM_FRACTION of the limit forgets the least recently visited
 * pages (the soft cap); a refused write releases a reserve part, stores the page, then evicts. Measured
 * in tests/e2e/quota.test.ts (Chromium) and tests/storage/quota.test.ts.
 */
import { ProtocolError } from '../src/protocol.js';
import type { Engine } from './engine.js';

/** Share of pages forgotten per round when storage runs out (least recently visited first). */
export const EVICT_FRACTION = 0.1;

/** Storage as the browser reports it (navigator.storage.estimate); injected so Node tests run without it. */
export type StorageEstimate = () => Promise<{ usage?: number; quota?: number } | undefined>;

/**
 * What Chromium 156's IndexedDB (LevelDB) counts against the quota, measured in the real browser
 * (tests/bench/quotaProbe.ts: the extension's worker, a 4 MB quota set through CDP, raw IndexedDB on
 * a scratch database; tests/e2e/quota.test.ts with QUOTA_LOG=1 prints the files on disk):
 *
 * - Puts are counted, deletes are not. Once usage is over the quota, every transaction with a put is
 *   refused (QuotaExceededError at commit, the whole transaction aborted): a 1-byte put, a put that
 *   shrinks a 16 KB record to 1 byte, a delete with a 1-byte put beside it. A transaction of deletes
 *   only (delete(key), delete(range), clear()) commits, whatever the usage.
 * - Enforcement lags: the room left is cached and spent down between quota look-ups, so writes are
 *   let through well past the quota (first refusal at 104-162% of a 4-6 MB quota with pages and
 *   rewrites; bulk fills of 16 KB records went on to 10-22x), then refused until usage is back
 *   under it.
 * - Usage is the LevelDB directory (write-ahead log + tables) plus blob files (values over ~64 KB, as
 *   the reserve's parts are). Deleting a blob-backed record frees its file at once. Deleting inline
 *   records frees nothing until LevelDB compacts: 5,500 records (88 MB) deleted left usage as it was
 *   for 10 s; a background compaction then took the tables from 93 to 72 MB, and the usage the quota
 *   check sees followed only at the next commit.
 * - LevelDB flushes its log to a table after 2.5-4.4 MB of writes; tables are compressed (snappy),
 *   so a flush shrinks this index's records to about 40% (probe `engine`: 4 test pages, 1.95 MB of
 *   log became a 0.78 MB table and usage fell from 3.00 to 1.83 MB as the flush returned). Deleting a
 *   database (indexedDB.deleteDatabase) flushes the log at once, and works over the quota, as does
 *   creating one: see flushIndexedDb. A flush does not drop overwritten versions already in tables
 *   (six in a row left 6.4 MB of tables holding 1 MB of live records, probe `flush`), and closing our
 *   own connection changes nothing while the engine's connection to the origin's LevelDB stays open.
 * - In tests/e2e/quota.test.ts (6 MB quota) the reserve was spent to the last part and every capture
 *   after it refused, usage stuck at 111% (no commit, so no flush and no compaction). With the flush
 *   first, six runs in a row stored all 20 pages of the repeated-overflow test (0 refused; 2-13
 *   flushes, one reserve part released in one run; peak usage 107-128% of the quota).
 *
 * So at the limit only two things bring usage down at once: releasing a reserve part (a blob) and a
 * log flush. Everything else (forgetting pages included) frees room only at a later compaction, which
 * needs writes to commit first.
 */
export type StorageFlush = () => Promise<void>;

/** The scratch database made and deleted to make the browser flush its write-ahead log. */
export const FLUSH_DB = 'reread-flush';

/**
 * Creates and deletes a scratch database of the extension's origin: in Chromium deleting a database
 * flushes LevelDB's log into a compressed table (measured above); elsewhere it is harmless.
 */
export const flushIndexedDb: StorageFlush = async () => {
  if (typeof indexedDB === 'undefined') return;
  await new Promise<void>((resolve) => {
    const open = indexedDB.open(FLUSH_DB, 1);
    open.onsuccess = () => {
      open.result.close();
      resolve();
    };
    open.onerror = open.onblocked = () => resolve();
  });
  await new Promise<void>((resolve) => {
    const del = indexedDB.deleteDatabase(FLUSH_DB);
    del.onsuccess = del.onerror = del.onblocked = () => resolve();
  });
};

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

export interface QuotaLog {
  softEvictions: number;
  hardEvictions: number;
  reserveReleased: number;
  reservePlaced: number;
  quotaErrors: number;
  failedDeletes: number;
  capturesRefused: number;
  /** Log flushes forced at the limit (flushIndexedDb). */
  flushes: number;
  /** Records deleted right after evictions (segments, posting blocks, dictionary entries, vector blocks). */
  purgedRecords: number;
}

/** Every method named `…Locked` runs with the engine's write lock held (Engine.exclusive). */
export class StorageBudget {
  /** Shown to the user (options, popup) after storage ran out. */
  warning: string | undefined;
  /** Set by the worker (maintenance.ts); null in Node tests that do not exercise the storage limit. */
  estimate: StorageEstimate | null = null;
  /** Set by the worker (flushIndexedDb); null in Node tests unless they count the calls. */
  flush: StorageFlush | null = null;
  /** What storage-limit handling did, for tests and diagnostics. */
  readonly log: QuotaLog = { softEvictions: 0, hardEvictions: 0, reserveReleased: 0, reservePlaced: 0, quotaErrors: 0, failedDeletes: 0, capturesRefused: 0, flushes: 0, purgedRecords: 0 };
  private ceiling: { usage: number; at: number } | null | undefined;
  private legacyReserveChecked = false;
  /**
   * The reserve parts' sizes, read once per worker life and kept in step by place/release: reading
   * the parts themselves before every capture cost a read of up to 8 MB (19 ms a capture, growing with
   * the reserve, measured in the 1M-section benchmark).
   */
  private partSizes: number[] | null = null;
  /**
   * Room the last evictions freed that the estimate does not show yet (deletes free room only when
   * LevelDB compacts, seconds to minutes later): without it the soft cap saw the same usage at the
   * next capture and forgot another share of pages, capture after capture (34 pages went to 15 in
   * tests/e2e/quota.test.ts before this). `usage` is the estimate when the evictions ran; once the
   * estimate falls below it by half the pending bytes, compaction has caught up and the count restarts.
   */
  private pendingFree: { bytes: number; usage: number } | null = null;

  constructor(private readonly engine: Engine) {}

  /**
   * Runs a page write; when it is refused for lack of room (the transaction aborted whole: nothing
   * half-written), remembers where the limit is, releases the reserve so the page fits, makes room by
   * the retention policy (least recently visited first, never `keepUrl`), tells the user, and tries
   * once more. Throws a `quota` ProtocolError when nothing more can be freed.
   */
  async writeLocked<T>(keepUrl: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (e) {
      if (!isQuotaError(e)) throw e;
      this.log.quotaErrors++;
    }
    await this.learnCeilingLocked();
    // The levers, each followed by a retry: a log flush first (it spends nothing kept), then one reserve
    // part at a time, so what is left carries the next refusal. Under schema v3 an eviction writes only
    // tombstones (a few hundred bytes) and then deletes (evictOldestLocked), but frees nothing until
    // LevelDB flushes or compacts, so the page needs the reserve's room. Past the quota Chromium refuses
    // any put, however small: the last part is kept for an eviction, so that one can always commit. (Had
    // the page taken it, usage would stay over the quota, every eviction would be refused, nothing would
    // be deleted and LevelDB would never compact: no capture could be stored again.)
    let freed = 0;
    let evicted = false;
    let flushed = false;
    let lastTry = false;
    let result: T;
    for (;;) {
      let progressed = !flushed && (await this.flushLocked());
      flushed = true;
      if (!progressed && !evicted && (await this.heldParts()) <= 1) {
        freed += await this.evictForRoomLocked(keepUrl);
        evicted = true;
        progressed = true;
      } else if (!progressed) progressed = await this.releaseReservePartLocked();
      if (!progressed && !lastTry) {
        // No part left: a flush may have room by now for what earlier evictions deleted; then one more share of pages.
        lastTry = true;
        await this.flushLocked();
        freed += await this.evictForRoomLocked(keepUrl);
        progressed = true;
      }
      try {
        result = await write();
        break;
      } catch (again) {
        if (!isQuotaError(again)) throw again;
        this.log.quotaErrors++;
        if (!progressed) {
          this.log.hardEvictions += freed;
          this.log.capturesRefused++;
          this.warning = 'Storage is full and nothing more could be freed: new pages are not being saved.';
          throw new ProtocolError('quota', this.warning);
        }
      }
    }
    // Stored: now forget the least recently visited pages, so the next compaction brings usage
    // down (a refused eviction aborts whole; with no part left the soft cap tries again at the next
    // capture, the limit being known now).
    if (!evicted) freed += await this.evictForRoomLocked(keepUrl);
    this.log.hardEvictions += freed;
    this.warning = freed
      ? `Storage was full: Reread forgot the ${freed} least recently visited pages to make room.`
      : 'Storage is full: Reread will forget the least recently visited pages as room allows.';
    return result;
  }

  /** Evicts EVICT_FRACTION of pages; when even its tombstones are refused, releases a reserve part and evicts again. */
  private async evictForRoomLocked(keepUrl: string): Promise<number> {
    const refusedBefore = this.log.failedDeletes;
    const freed = await this.evictOldestLocked(EVICT_FRACTION, keepUrl);
    if (freed || this.log.failedDeletes === refusedBefore) return freed;
    return (await this.releaseReservePartLocked()) ? this.evictOldestLocked(EVICT_FRACTION, keepUrl) : 0;
  }

  /** Reserve parts held now. */
  private async heldParts(): Promise<number> {
    return (await this.reservePartSizes()).filter((n) => n > 0).length;
  }

  /**
   * The soft cap: when usage is within the headroom of the limit (the browser's quota, or lower where a
   * write already failed), forget the least recently visited share of pages now, while deletes still
   * fit, and put the reserve back. Once per capture: usage falls only when the database compacts, so
   * looping until the estimate drops would forget far more than needed.
   */
  async keepHeadroomLocked(keepUrl?: string): Promise<void> {
    const room = await this.room();
    if (!room) return;
    const { limit } = room;
    if (this.pendingFree && room.usage < this.pendingFree.usage - this.pendingFree.bytes / 2) this.pendingFree = null;
    const usage = Math.max(0, room.usage - (this.pendingFree?.bytes ?? 0));
    // The reserve is part of the headroom: room must stay to put back what of it is missing (what
    // is held is already in the usage).
    const db = await this.engine.db();
    const want = reserveBytes(usage);
    const parts = await this.reservePartSizes();
    const held = parts.reduce((n, p) => n + p, 0);
    if (usage + Math.max(0, want - held) > limit * (1 - HEADROOM_FRACTION)) {
      const freed = await this.evictOldestLocked(EVICT_FRACTION, keepUrl);
      this.log.softEvictions += freed;
      if (freed) this.warning = `Storage is nearly full: Reread forgot the ${freed} least recently visited pages to make room.`;
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
      if (parts[i]! >= part * 0.6) continue;
      if (!(await this.placeReservePartLocked(i, part))) break;
    }
  }

  private async reservePartSizes(): Promise<number[]> {
    if (!this.partSizes) {
      const db = await this.engine.db();
      const parts = await Promise.all(Array.from({ length: RESERVE_PARTS }, (_, i) => db.get('meta', reservePartKey(i)) as Promise<Uint8Array | undefined>));
      this.partSizes = parts.map((p) => p?.byteLength ?? 0);
    }
    return this.partSizes;
  }

  /** Usage and the limit writes are held to, or undefined when the browser does not say. */
  private async room(): Promise<{ usage: number; limit: number } | undefined> {
    if (!this.estimate) return undefined;
    const est = await this.estimate().catch(() => undefined);
    if (est?.usage === undefined) return undefined;
    if (this.ceiling === undefined) {
      const stored = (await (await this.engine.db()).get('meta', CEILING_KEY)) as { usage?: unknown; at?: unknown } | undefined;
      this.ceiling = typeof stored?.usage === 'number' && typeof stored.at === 'number' ? { usage: stored.usage, at: stored.at } : null;
    }
    // A failure is remembered for a day (the disk may have been cleaned since); then learned again.
    if (this.ceiling && Date.now() - this.ceiling.at > CEILING_TTL_MS) this.ceiling = null;
    const limits = [est.quota, this.ceiling?.usage].filter((n): n is number => typeof n === 'number' && n > 0);
    return limits.length ? { usage: est.usage, limit: Math.min(...limits) } : undefined;
  }

  private async learnCeilingLocked(): Promise<void> {
    const est = await this.estimate?.().catch(() => undefined);
    if (est?.usage === undefined) return;
    this.ceiling = { usage: Math.floor(est.usage * LEARNED_LIMIT_SHARE), at: Date.now() };
    await (await this.engine.db()).put('meta', this.ceiling, CEILING_KEY).catch(() => undefined);
  }

  private async placeReservePartLocked(i: number, bytes: number): Promise<boolean> {
    const block = new Uint8Array(bytes);
    for (let o = 0; o < bytes; o += 65_536) crypto.getRandomValues(block.subarray(o, Math.min(bytes, o + 65_536)));
    try {
      await (await this.engine.db()).put('meta', block, reservePartKey(i));
      if (this.partSizes) this.partSizes[i] = bytes;
      this.log.reservePlaced++;
      return true;
    } catch (e) {
      if (!isQuotaError(e)) throw e;
      return false;
    }
  }

  /** Makes the browser flush its write-ahead log (flushIndexedDb); false when there is no way to. */
  private async flushLocked(): Promise<boolean> {
    if (!this.flush) return false;
    try {
      await this.flush();
    } catch {
      return false;
    }
    this.log.flushes++;
    return true;
  }

  /** Deletes one reserve part (the last one placed first); false when none is left. */
  private async releaseReservePartLocked(): Promise<boolean> {
    const db = await this.engine.db();
    for (let i = RESERVE_PARTS - 1; i >= 0; i--) {
      if ((await db.getKey('meta', reservePartKey(i))) === undefined) continue;
      await db.delete('meta', reservePartKey(i));
      if (this.partSizes) this.partSizes[i] = 0;
      this.log.reserveReleased++;
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
  async evictOldestLocked(fraction: number, keepUrl?: string): Promise<number> {
    const all = await this.engine.pages.all();
    const pages = [...all.values()].filter((p) => p.url !== keepUrl).sort((a, b) => a.lastVisit - b.lastVisit);
    if (!pages.length) return 0;
    const before = this.estimate ? await this.estimate().catch(() => undefined) : undefined;
    const n = Math.min(pages.length, Math.max(1, Math.ceil(pages.length * fraction)));
    const urls = pages.slice(0, n).map((p) => p.url);
    let freed = 0;
    for (let attempt = 0; attempt < 2 && !freed; attempt++) {
      try {
        freed = await this.engine.forget.urlsLocked(urls);
        break;
      } catch (e) {
        if (!isQuotaError(e)) throw e;
        this.log.failedDeletes++;
      }
      // A log flush may bring usage back under the quota: the batch is tried once more after one.
      if (attempt === 0 && !(await this.flushLocked())) break;
    }
    if (!freed) {
      for (const url of urls.length > 1 ? urls : []) {
        try {
          freed += await this.engine.forget.urlsLocked([url]);
        } catch (e) {
          if (!isQuotaError(e)) throw e;
          this.log.failedDeletes++;
          break;
        }
      }
    }
    if (freed) {
      // What the evicted pages held, as their share of the usage (pages are of similar size on average).
      if (before?.usage !== undefined) {
        const bytes = (before.usage * freed) / all.size;
        this.pendingFree = { bytes: (this.pendingFree?.bytes ?? 0) + bytes, usage: Math.max(before.usage, this.pendingFree?.usage ?? 0) };
      }
      await this.purgeLocked();
      // Deletes free nothing until LevelDB flushes or compacts (see above).
      await this.flushLocked();
    }
    return freed;
  }

  /**
   * The evicted pages' postings, segments, dictionary entries and vectors, deleted now rather than at
   * the next sweep (whose rewrites are refused near the limit): deletes are what compaction frees.
   */
  private async purgeLocked(): Promise<void> {
    try {
      const r = await this.engine.maintenance.purgeDeadLocked();
      this.log.purgedRecords += r.segments + r.blocks + r.terms + r.vectors;
    } catch (e) {
      // The tombstones are stored: the sweep removes the rest later.
      console.warn('reread: purge after eviction', e);
    }
  }
}
