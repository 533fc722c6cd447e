/**
 * History, titles first: with the user's consent (the optional `history` permission), the last N days of
 * the browser's history become title-only entries (src/pageKind.ts), searchable by title and URL words.
 *
 * Read newest first in windows of READ_BATCH items and stored WRITE_BATCH entries a transaction, with the
 * write lock released in between, so captures and searches go on while 50,000 entries come in. The
 * window's cursor is saved after each one: a worker stopped mid-import resumes from it (at start, or at
 * the next watchdog alarm), and entries already stored are skipped by URL, so nothing is imported twice.
 */
import { hashHex } from '../../src/hash.js';
import { DEFAULT_HISTORY_DAYS, MAX_HISTORY_DAYS, type HistoryImportStatus } from '../../src/dayone.js';
import { afterRead, narrowed, titleEntry, type ImportWindow, type TitleEntry } from '../../src/historyEntries.js';
import { TOKENIZER } from '../../src/indexing.js';
import { siteMatches } from '../../src/url.js';
import type { Engine } from '../engine.js';
import { writeTitlePages, type WriteTx } from '../pageStore.js';

export const HISTORY_STATE_KEY = 'historyImport';
export const READ_BATCH = 1000;
/**
 * Entries a transaction. A search waits for the write transaction in progress (IndexedDB runs a reader
 * after a writer on the same stores): 250 held the lock ~1 s under load, 50 keeps a search's wait short
 * at about the same throughput (measured with npm run bench -- dayone).
 */
export const WRITE_BATCH = 50;

export const IDLE_IMPORT: HistoryImportStatus = { state: 'idle', days: DEFAULT_HISTORY_DAYS, from: 0, cursor: 0, startedAt: 0, imported: 0, seen: 0 };

/** What reads the history (browser.history; a stand-in in Node tests and the benchmark). */
export interface HistorySource {
  search(q: { text: string; startTime: number; endTime: number; maxResults: number }): Promise<{ url?: string; title?: string; lastVisitTime?: number; visitCount?: number }[]>;
  /** Every visit of an address (the browser's `history.getVisits`). */
  getVisits?(details: { url: string }): Promise<{ visitTime?: number }[]>;
}

/**
 * At most this many addresses of a read are asked for their visits (`windowTimes`): a sample is enough
 * to narrow a window (the oldest of the sample is no older than the oldest of all), and a read of 1,000
 * addresses visited again since cost 1,000 lookups.
 */
const VISIT_LOOKUPS = 32;

/** How many forgotten URLs a running import keeps out (the most recent): a range or a history deletion can name thousands. */
const FORGOTTEN_URLS = 20_000;

interface Stored extends HistoryImportStatus {
  /** Pages, sites and visit ranges forgotten while the import ran: what is still to come of them is not imported. */
  forgottenUrls?: string[];
  forgottenSites?: string[];
  forgottenRanges?: [number, number][];
}

/**
 * An import that is over keeps no list of what was forgotten while it ran: those lists name the pages and
 * sites the user asked to forget, and nothing is left to import that they could keep out.
 */
function over(s: Stored): Stored {
  const { forgottenUrls: _u, forgottenSites: _f, forgottenRanges: _r, ...rest } = s;
  return rest;
}

/**
 * What the import may still store: not a page, site or visit range forgotten while it ran, nor a site
 * excluded since its window was read (the window is filtered by the exclusions as they were then).
 */
function kept(s: Stored, excludedSites: readonly string[]): (e: TitleEntry) => boolean {
  const pages = new Set(s.forgottenUrls ?? []);
  const sites = [...(s.forgottenSites ?? []), ...excludedSites];
  const ranges = s.forgottenRanges ?? [];
  return (e) => !pages.has(e.url) && !sites.some((f) => siteMatches(e.site, f)) && !ranges.some(([a, b]) => e.lastVisit >= a && e.lastVisit < b);
}

/** A batch found its import no longer the running one (stopped, or a newer one started) in its own transaction. */
class NotRunning extends Error {}

export class HistoryImport {
  private running: Promise<void> | null = null;
  private stopRequested = false;
  /** The last window read whole in this worker: its span (ms) and how many addresses it held. */
  private last: { span: number; count: number } | null = null;
  /** For tests and the benchmark: the time each write batch held the write lock. */
  readonly batchMs: number[] = [];

  constructor(
    private readonly engine: Engine,
    /** The browser's history API, or null while the permission is not granted. */
    private readonly source: () => HistorySource | null,
    private readonly clock: () => number = Date.now,
  ) {}

  async status(): Promise<HistoryImportStatus> {
    const { forgottenUrls: _u, forgottenSites: _f, forgottenRanges: _r, ...s } = await this.load();
    return s;
  }

  private async load(): Promise<Stored> {
    const got = (await (await this.engine.db()).get('meta', HISTORY_STATE_KEY)) as Stored | undefined;
    return got ? { ...IDLE_IMPORT, ...got } : { ...IDLE_IMPORT };
  }

  /** Read-modify-writes of the state, one after another: a forget's list and a window's progress written at once kept only one of them. */
  private updates: Promise<unknown> = Promise.resolve();

  /**
   * Applies `change` to the state as stored now and saves it (unless it returns null); the state saved, or
   * null. Read and written in one transaction: a batch of pages counts itself into the state in its own
   * transaction (`write`), and a read here before that commit and a write after it lost the count.
   */
  private update(change: (s: Stored) => Stored | null): Promise<Stored | null> {
    const next = this.updates.then(async () => {
      const tx = (await this.engine.db()).transaction('meta', 'readwrite');
      const got = (await tx.store.get(HISTORY_STATE_KEY)) as Stored | undefined;
      const s = change(got ? { ...IDLE_IMPORT, ...got } : { ...IDLE_IMPORT });
      if (s) await tx.store.put(s, HISTORY_STATE_KEY);
      await tx.done;
      return s;
    });
    this.updates = next.catch(() => undefined);
    return next;
  }

  async start(days: number): Promise<HistoryImportStatus> {
    if (!this.source()) throw new Error('Reread needs access to your history for this (it was not granted).');
    const d = Math.max(0, Math.min(MAX_HISTORY_DAYS, Math.round(days)));
    const now = this.clock();
    const prev = await this.load();
    if (prev.state === 'running' && prev.days === d) {
      this.resume();
      return this.status();
    }
    await this.stopAndWait();
    // Cursor just past now: the newest entries first. A second import of the same range finds them stored.
    await this.update(() => ({ state: 'running', days: d, from: d ? now - d * 86_400_000 : 0, cursor: now + 1, startedAt: now, imported: 0, seen: 0 }));
    this.resume();
    return this.status();
  }

  async stop(): Promise<HistoryImportStatus> {
    // Stopped in the stored state first, then the loop waited for: a resume asked meanwhile (the watchdog
    // alarm) found the state still running once the loop had ended, and imported the next window.
    this.stopRequested = true;
    await this.update((s) => (s.state === 'running' ? over({ ...s, state: 'stopped', finishedAt: this.clock() }) : null));
    await this.stopAndWait();
    return this.status();
  }

  private async stopAndWait(): Promise<void> {
    this.stopRequested = true;
    await this.running?.catch(() => undefined);
    this.stopRequested = false;
  }

  /** The import that started at `s.startedAt` stops with an error (a newer one is left alone). */
  private async failed(s: Stored, error: string): Promise<void> {
    await this.update((cur) => (cur.state === 'running' && cur.startedAt === s.startedAt ? over({ ...cur, state: 'error', error }) : null));
  }

  /** Notes what a running import must leave out of what is still to come (nothing when none runs). */
  private async forgot(add: (s: Stored) => Partial<Stored>): Promise<void> {
    await this.update((s) => (s.state === 'running' ? { ...s, ...add(s) } : null));
  }

  /** Pages forgotten during an import are left out of what is still to come (URLs as stored). */
  forgotUrls(urls: readonly string[]): Promise<void> {
    if (!urls.length) return Promise.resolve();
    return this.forgot((s) => ({ forgottenUrls: [...new Set([...(s.forgottenUrls ?? []), ...urls])].slice(-FORGOTTEN_URLS) }));
  }


  /** Sites forgotten during an import are left out of what is still to come. */
  forgotSite(site: string): Promise<void> {
    return this.forgot((s) => ({ forgottenSites: [...new Set([...(s.forgottenSites ?? []), site])].slice(-500) }));
  }

  forgotRange(from: number, to: number): Promise<void> {
    return this.forgot((s) => ({ forgottenRanges: [...(s.forgottenRanges ?? []), [from, to] as [number, number]].slice(-100) }));
  }

  /** Forget everything: an import under way stops (nothing of it may come back). */
  async forgotAll(): Promise<void> {
    await this.stop();
  }

  /** Goes on with a running import (at worker start, on the watchdog alarm, after capture is resumed). */
  resume(): Promise<void> {
    this.running ??= this.run().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  whenIdle(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  private async run(): Promise<void> {
    let s = await this.load();
    const source = this.source();
    while (s.state === 'running' && !this.stopRequested) {
      if (!source) {
        await this.failed(s, 'Access to history was withdrawn.');
        return;
      }
      const settings = await this.engine.settings();
      // Paused: nothing is stored; the import goes on when capture is resumed.
      if (settings.paused) return;
      const w = { from: s.from, cursor: s.cursor };
      let read: { items: HistoryItems; next: number | null } | null;
      try {
        read = await this.readWindow(source, w);
      } catch (e) {
        await this.failed(s, e instanceof Error ? e.message : String(e));
        return;
      }
      if (!read) return; // stopped while it read
      const { items, next } = read;
      const entries = items.map((i) => titleEntry(i, settings.excludedSites)).filter((e): e is TitleEntry => !!e && e.lastVisit >= w.from);
      const startedAt = s.startedAt;
      let refused = false;
      for (let i = 0; i < entries.length && !this.stopRequested; i += WRITE_BATCH) {
        // Counted as it is stored, in the batch's transaction (`write`): a worker stopped inside the window
        // resumes from the window's start and finds these stored, so a count kept for later missed them.
        refused = (await this.write(entries.slice(i, i + WRITE_BATCH), startedAt)) === null;
        if (refused) break;
        // A search or capture that arrived meanwhile starts its transaction before the next batch.
        await new Promise((r) => setTimeout(r, 0));
      }
      if (this.stopRequested) return;
      if (refused) {
        // Stopped, paused, or a newer import started (two starts at once: the permission's grant and the
        // page's request) while the batch waited for the write lock. The window's cursor is not saved: a
        // pause reads it again when capture resumes; a newer import is the one this loop goes on with.
        s = await this.load();
        continue;
      }
      // Saved after the window is stored: a stop before this re-reads it, and stored URLs are skipped.
      const saved = await this.update((latest) =>
        latest.state !== 'running' || latest.startedAt !== startedAt
          ? null
          : next === null
            ? over({ ...latest, seen: latest.seen + items.length, state: 'done', finishedAt: this.clock(), cursor: w.from })
            : { ...latest, seen: latest.seen + items.length, cursor: next },
      );
      if (!saved) {
        // Stopped, or a newer import started meanwhile: its start found this loop running and left the
        // work to it. Go on with it.
        s = await this.load();
        continue;
      }
      s = saved;
      // Let queued searches and captures run between windows.
      await new Promise((r) => setTimeout(r, 0));
    }
  }

  /**
   * Reads the history back from the cursor: what to store, and where the cursor goes once it is stored
   * (null: the import is over). A window the read cannot vouch for whole is narrowed until it can
   * (src/historyEntries.ts afterRead): the browsers cap an answer at `maxResults` and order it each in its
   * own way. Null when Stop is pressed meanwhile.
   */
  private async readWindow(source: HistorySource, w: ImportWindow): Promise<{ items: HistoryItems; next: number | null } | null> {
    // Twice the span of the last window when that one was full enough: most windows are read at once, and
    // one narrowed for pages visited again since is not narrowed from the import's start again and again.
    // Else all that is left (a quiet stretch of history is crossed in one read, not by doubling).
    let start = this.last && this.last.count >= READ_BATCH / 2 ? Math.max(w.from, w.cursor - 2 * this.last.span) : w.from;
    // The first narrowing of a window asks a few of what came for their visits: in Chromium's order the
    // window is then read whole at the next read. After that, halving.
    let lookUp = true;
    while (!this.stopRequested) {
      const items = await source.search({ text: '', startTime: start, endTime: w.cursor, maxResults: READ_BATCH });
      const read = afterRead(w, start, items.map((i) => i.lastVisitTime), READ_BATCH);
      if (read.step === 'complete' || read.step === 'cut') {
        this.last = { span: w.cursor - (read.next ?? start), count: items.length };
        return { items, next: read.next };
      }
      if (read.step === 'whole') return { items: await readWhole(source, { startTime: start, endTime: w.cursor }), next: start > w.from ? start : null };
      start = narrowed(w, start, lookUp ? await windowTimes(source, items, w.cursor) : []);
      lookUp = false;
    }
    return null;
  }

  /**
   * Stores a batch, leaving out what was forgotten or excluded meanwhile; the number stored, or null when
   * nothing may be stored now: Stop was pressed, capture paused, or another import started while the batch
   * waited for the write lock (a capture or search held it). The forgotten lists are read with the write
   * lock held: a forget records them before it marks (background/main.ts), so a batch either is stored
   * before the mark, which then covers it, or reads the lists after and leaves those entries out.
   */
  private async write(batch: TitleEntry[], startedAt: number): Promise<number | null> {
    const engine = this.engine;
    return engine.exclusive(async () => {
      const t = performance.now();
      const settings = await engine.settings();
      if (this.stopRequested || settings.paused) return null;
      const s = await this.load();
      if (s.state !== 'running' || s.startedAt !== startedAt) return null;
      const entries = batch.filter(kept(s, settings.excludedSites));
      if (!entries.length) return 0;
      const db = await engine.db();
      await engine.budget.keepHeadroomLocked();
      let res;
      try {
        res = await writeTitlePages(
          db,
          entries.map((e) => ({ ...e, hash: hashHex(`${e.title}\u0000${e.text}`) })),
          TOKENIZER,
          engine.dense?.queueModel() ?? null,
          (tx, stored) => countIn(tx, startedAt, stored),
        );
      } catch (e) {
        if (e instanceof NotRunning) return null;
        throw e;
      }
      // One segment for the batch: merged into the index in the background like a capture's.
      engine.applyWrite(res);
      this.batchMs.push(performance.now() - t);
      if (this.batchMs.length > 1000) this.batchMs.shift();
      return res.pages.length;
    });
  }
}

type HistoryItems = Awaited<ReturnType<HistorySource['search']>>;

/**
 * Adds a batch's pages to the import's count in the batch's own transaction: stored and counted commit
 * together (a worker stopped between two transactions left pages stored and never counted, and the
 * window read again finds them known). An import stopped or replaced meanwhile (Stop does not wait for
 * the write lock) aborts the batch: nothing is stored after Stop.
 */
async function countIn(tx: WriteTx, startedAt: number, stored: number): Promise<void> {
  const s = (await tx.objectStore('meta').get(HISTORY_STATE_KEY)) as Stored | undefined;
  if (s?.state !== 'running' || s.startedAt !== startedAt) throw new NotRunning();
  if (stored) await tx.objectStore('meta').put({ ...s, imported: s.imported + stored }, HISTORY_STATE_KEY);
}

/**
 * Everything the history holds in `span` (one millisecond: more entries than one read returns can share
 * it, after an import from another browser or a sync): asked with a limit twice as large each time until
 * the answer is short of it. The browsers answer the same first entries of a span however often it is
 * asked, so a window cannot move back inside it.
 */
async function readWhole(source: HistorySource, span: { startTime: number; endTime: number }): Promise<HistoryItems> {
  for (let max = 2 * READ_BATCH; ; max *= 2) {
    const items = await source.search({ text: '', ...span, maxResults: max });
    if (items.length < max) return items;
  }
}

/**
 * Each item's visit time inside the window read (before `cursor`), for narrowing a window whose read said
 * too little (src/historyEntries.ts narrowed). The browser gives each address its last visit of all
 * (`lastVisitTime` is the address's, not the window's): an address visited again since says nothing of
 * where in the window its visit was. A window of such addresses only (the pages a person opens every
 * day, read back over months) moved the cursor back one millisecond a window, for ever. Their visits are
 * asked for (`getVisits`), and the latest one before the cursor is the item's time.
 */
export async function windowTimes(source: HistorySource, items: readonly { url?: string; lastVisitTime?: number }[], cursor: number): Promise<number[]> {
  const times = items.map((i) => i.lastVisitTime ?? 0);
  if (!source.getVisits) return times;
  const all = items.flatMap((i, k) => (i.url && times[k]! >= cursor ? [k] : []));
  // Spread over the read (newest to oldest), not its first few.
  const later = all.length <= VISIT_LOOKUPS ? all : Array.from({ length: VISIT_LOOKUPS }, (_, j) => all[Math.floor(((j + 1) * all.length) / VISIT_LOOKUPS) - 1]!);
  await Promise.all(
    later.map(async (k) => {
      const visits = await source.getVisits!({ url: items[k]!.url! }).catch(() => []);
      let best = -Infinity;
      for (const v of visits) if (v.visitTime !== undefined && v.visitTime < cursor && v.visitTime > best) best = v.visitTime;
      if (best > -Infinity) times[k] = best;
    }),
  );
  return times;
}

