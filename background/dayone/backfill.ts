/**
 * Backfill: "Read these pages now". Title-only entries from the history import are fetched in the
 * background — without cookies, http(s) only, never from an excluded site (checked right before each
 * request), at most one request per host at a time and MAX_IN_FLIGHT in all, within a daily cap — and
 * read by the reader (offscreen document / background page) with the content script's extractor; the
 * page then goes through the same chunker and write path as every capture (engine.capture), as kind
 * `fetched`, keeping the visit dates from history. Login walls, errors, non-HTML answers and pages with
 * too little text stay title-only, marked so they are not fetched again.
 *
 * What is left is always "title-only entries not yet tried", so the run resumes anywhere: after a
 * worker stop (at start, or the watchdog alarm), after a browser restart, or the next day when capped.
 * A page being fetched when the worker stopped is fetched again; it is stored once.
 */
import { DEFAULT_DAILY_CAP, dayKey, localNetworkAddress, pickNext, SKIP_LABELS, type SkipReason } from '../../src/backfillPolicy.js';
import type { BackfillAction, BackfillStatus } from '../../src/dayone.js';
import { validateCapture } from '../../src/validate.js';
import type { Engine } from '../engine.js';
import { markFetchSkipped } from '../pageStore.js';
import type { PageMeta } from '../pageTable.js';
import type { PageReader } from '../reader/readerProtocol.js';

export const BACKFILL_STATE_KEY = 'backfill';
/** How long the backfill's order of entries is reused before it is computed again. */
const QUEUE_TTL_MS = 60_000;
/** Entries looked at for the next picks (enough to find hosts not busy). */
const LOOKAHEAD = 200;
/** A page whose read failed for a passing reason (the reader went away) waits this long before another try. */
const RETRY_AFTER_MS = 30_000;
/** A page the reader failed on this many times (it takes the reader down, or never answers) is left title-only. */
const MAX_READER_FAILURES = 3;

export const IDLE_BACKFILL: BackfillStatus = { state: 'idle', total: 0, done: 0, stored: 0, skipped: 0, reasons: {}, dailyCap: DEFAULT_DAILY_CAP, day: '', today: 0, startedAt: 0, fetchedBefore: 0 };

export function eligible(p: PageMeta): boolean {
  return p.kind === 'title' && !p.fetchSkipped;
}

export class Backfill {
  private running: Promise<void> | null = null;
  /**
   * Counts pauses and cancels: a run, and each read it started, belongs to one generation. A pause or
   * cancel answers at once (a read in flight may take the reader's 20 s to come back) and whatever that
   * read brings back later is dropped, never stored.
   */
  private generation = 0;
  private runningGeneration = -1;
  private readonly retryAt = new Map<string, number>();
  private readonly readerFailures = new Map<string, number>();
  /** Hosts with a request in flight now, and the most seen at once (for tests and the benchmark). */
  readonly inFlightHosts = new Map<string, number>();
  private readonly inFlightUrls = new Set<string>();
  readonly log = { maxInFlight: 0, maxPerHost: 0, fetched: 0, readerErrors: 0 };
  /** Wakes the scheduler when a request finishes. */
  private wake: (() => void) | null = null;

  constructor(
    private readonly engine: Engine,
    private readonly reader: PageReader,
    private readonly clock: () => number = Date.now,
    /** Called when the cap is reached, with the time to go on at (the worker sets an alarm). */
    private readonly scheduleAt: (at: number) => void = () => undefined,
  ) {}

  /**
   * Progress is counted from the pages themselves, not from counters kept beside them: a worker stopped
   * between storing a page and counting it would otherwise lose the count (seen: 205 of 209 after six
   * stops). Stored: pages read since the run started; skipped: entries marked since then.
   */
  async status(): Promise<BackfillStatus> {
    const s = await this.load();
    if (s.state === 'idle') return s;
    let fetched = 0;
    let skipped = 0;
    let left = 0;
    const reasons: BackfillStatus['reasons'] = {};
    for (const p of (await this.engine.pages.all()).values()) {
      if (p.kind === 'fetched') fetched++;
      else if (p.fetchSkipped && p.fetchSkipped.at >= s.startedAt) {
        skipped++;
        const r = p.fetchSkipped.reason as SkipReason;
        reasons[r] = (reasons[r] ?? 0) + 1;
      } else if (eligible(p)) left++;
    }
    const stored = Math.max(0, fetched - s.fetchedBefore);
    const done = stored + skipped;
    // What is done and what is left: a page read in a tab or forgotten meanwhile is neither (the run
    // ended at "5 of 6" when the user opened one of its pages), one imported meanwhile joins.
    return { ...s, stored, skipped, done, reasons, total: done + left };
  }

  private async load(): Promise<BackfillStatus> {
    const got = (await (await this.engine.db()).get('meta', BACKFILL_STATE_KEY)) as BackfillStatus | undefined;
    return got ? { ...IDLE_BACKFILL, ...got } : { ...IDLE_BACKFILL };
  }

  private async save(s: BackfillStatus): Promise<void> {
    await (await this.engine.db()).put('meta', s, BACKFILL_STATE_KEY);
  }

  private async update(patch: (s: BackfillStatus) => Partial<BackfillStatus>): Promise<BackfillStatus> {
    // Read-modify-write of one record: serialised through a chain (requests finish concurrently).
    const run = this.saving.then(async () => {
      const s = await this.load();
      const next = { ...s, ...patch(s) };
      await this.save(next);
      return next;
    });
    this.saving = run.catch(() => undefined);
    return run;
  }
  private saving: Promise<unknown> = Promise.resolve();

  /**
   * Entries still to read, most recently visited first. Sorting 50,000 entries for every page read
   * would cost more than reading it: the order is computed once and walked, and computed again only
   * when the walk reaches its end or after QUEUE_TTL_MS (entries imported meanwhile join then).
   */
  private queue: { urls: string[]; at: number; pos: number } | null = null;

  private async remaining(): Promise<string[]> {
    const table = await this.engine.pages.all();
    const now = this.clock();
    if (!this.queue || this.queue.pos >= this.queue.urls.length || Date.now() - this.queue.at > QUEUE_TTL_MS) {
      const urls = [...table.values()].filter(eligible).sort((a, b) => b.lastVisit - a.lastVisit).map((p) => p.url);
      this.queue = { urls, at: Date.now(), pos: 0 };
    }
    const q = this.queue;
    // Skip what was read or forgotten since the order was made.
    while (q.pos < q.urls.length) {
      const p = table.get(q.urls[q.pos]!);
      if (p && eligible(p)) break;
      q.pos++;
    }
    const out: string[] = [];
    for (let i = q.pos; i < q.urls.length && out.length < LOOKAHEAD; i++) {
      const p = table.get(q.urls[i]!);
      if (p && eligible(p) && (this.retryAt.get(p.url) ?? 0) <= now) out.push(p.url);
    }
    return out;
  }

  async control(action: BackfillAction | undefined, dailyCap?: number): Promise<BackfillStatus> {
    if (dailyCap !== undefined) await this.update(() => ({ dailyCap: Math.max(1, Math.min(100_000, Math.round(dailyCap))) }));
    if (action === 'start') {
      this.queue = null;
      const left = [...(await this.engine.pages.all()).values()].filter(eligible).length;
      const fetchedBefore = [...(await this.engine.pages.all()).values()].filter((p) => p.kind === 'fetched').length;
      await this.update((s) => ({ state: 'running', total: left, done: 0, stored: 0, skipped: 0, reasons: {}, dailyCap: s.dailyCap, startedAt: this.clock(), fetchedBefore }));
      void this.resume();
    } else if (action === 'pause') {
      await this.update((s) => (s.state === 'running' || s.state === 'capped' ? { state: 'paused' } : {}));
      await this.halt();
    } else if (action === 'resume') {
      await this.update((s) => (s.state === 'paused' || s.state === 'capped' ? { state: 'running' } : {}));
      void this.resume();
    } else if (action === 'cancel') {
      await this.update(() => ({ state: 'cancelled' }));
      await this.halt();
    }
    return this.status();
  }

  /** Stops the run now: the loop ends, reads in flight are left to finish and their pages are dropped. */
  private async halt(): Promise<void> {
    this.generation++;
    this.wake?.();
  }

  /** Forget everything: the backfill stops (there is nothing left to read). */
  async forgotAll(): Promise<void> {
    const s = await this.load();
    if (s.state !== 'idle') await this.update(() => ({ state: 'cancelled' }));
    await this.halt();
  }

  /** Goes on with a running backfill (worker start, watchdog alarm, the day after the cap, capture resumed). */
  resume(): Promise<void> {
    if (this.running && this.runningGeneration === this.generation) return this.running;
    // A run stopped a moment ago may still be waiting for its reads: the new one starts after it.
    const gen = this.generation;
    const next: Promise<void> = (this.running ?? Promise.resolve())
      .catch(() => undefined)
      .then(() => (gen === this.generation ? this.run(gen) : undefined))
      .finally(() => {
        if (this.running === next) this.running = null;
      });
    this.running = next;
    this.runningGeneration = gen;
    return next;
  }

  whenIdle(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  private async run(gen: number): Promise<void> {
    const inFlight = new Set<Promise<void>>();
    for (;;) {
      let s = await this.load();
      if (s.state === 'capped' && s.day !== dayKey(this.clock())) s = await this.update(() => ({ state: 'running' }));
      if (s.state !== 'running' || gen !== this.generation || (await this.engine.settings()).paused) break;
      const today = dayKey(this.clock());
      const used = s.day === today ? s.today : 0;
      const queue = (await this.remaining()).filter((u) => !this.inFlightUrls.has(u));
      if (!queue.length && !inFlight.size) {
        // Entries tried too early (the reader was away) come back after RETRY_AFTER_MS.
        if (this.retryAt.size && [...this.retryAt.values()].some((t) => t > this.clock())) {
          await new Promise((r) => setTimeout(r, 1000));
          continue;
        }
        await this.update(() => ({ state: 'done' }));
        break;
      }
      const room = Math.max(0, s.dailyCap - used - inFlight.size);
      if (room === 0 && !inFlight.size) {
        await this.update(() => ({ state: 'capped' }));
        const next = new Date(this.clock());
        next.setHours(24, 0, 0, 0);
        this.scheduleAt(next.getTime());
        break;
      }
      const picks = pickNext(
        queue,
        new Set(this.inFlightHosts.keys()),
        inFlight.size,
      ).slice(0, room);
      for (const url of picks) {
        const p = this.fetchOne(url, gen).finally(() => {
          inFlight.delete(p);
          this.wake?.();
        });
        inFlight.add(p);
      }
      this.log.maxInFlight = Math.max(this.log.maxInFlight, inFlight.size);
      if (!inFlight.size) {
        await new Promise((r) => setTimeout(r, 200));
        continue;
      }
      await new Promise<void>((r) => (this.wake = r));
      this.wake = null;
    }
    await Promise.all(inFlight);
  }

  private async fetchOne(url: string, gen: number): Promise<void> {
    this.inFlightUrls.add(url);
    try {
      await this.fetchOneInner(url, gen);
    } finally {
      this.inFlightUrls.delete(url);
    }
  }

  private async fetchOneInner(url: string, gen: number): Promise<void> {
    const host = new URL(url).host;
    this.inFlightHosts.set(host, (this.inFlightHosts.get(host) ?? 0) + 1);
    this.log.maxPerHost = Math.max(this.log.maxPerHost, this.inFlightHosts.get(host)!);
    try {
      // Exclusions and pause, checked right before the request (they may have changed since the start).
      const check = await this.engine.captureAllowed(url);
      if (!check.allowed) {
        if (check.reason === 'excluded site') await this.skip(url, 'excluded');
        return;
      }
      // A machine on the user's own network or computer is not asked again (localNetworkAddress).
      if (localNetworkAddress(url)) return await this.skip(url, 'local-network');
      const today = dayKey(this.clock());
      await this.update((s) => ({ day: today, today: (s.day === today ? s.today : 0) + 1 }));
      this.log.fetched++;
      let res: Awaited<ReturnType<PageReader['readHtml']>>;
      try {
        res = await this.reader.readHtml(url);
      } catch {
        // The reader went away (document closed, worker stopping): not the page's fault; try later. A
        // page it fails on every time (it takes the reader down) is tried a few times, then left.
        this.log.readerErrors++;
        const failures = (this.readerFailures.get(url) ?? 0) + 1;
        this.readerFailures.set(url, failures);
        if (failures >= MAX_READER_FAILURES && gen === this.generation) return await this.skip(url, 'network');
        this.retryAt.set(url, this.clock() + RETRY_AFTER_MS);
        return;
      }
      // Paused or cancelled while the page was read: what it brought back is not stored.
      if (gen !== this.generation) return;
      if (!res.ok) return await this.skip(url, res.reason);
      let payload;
      try {
        // What the reader sent is checked like a content script's capture (shape, sizes, caps).
        payload = validateCapture({ title: res.title, lang: res.lang, blocks: res.blocks, sections: res.sections, chunker: res.chunker }).payload;
      } catch {
        return await this.skip(url, 'too-little-text');
      }
      // The user's searches first: this write would hold their reads of new sections until it commits.
      await this.engine.searchesQuiet();
      const out = await this.engine.capture(url, payload, this.clock(), { kind: 'fetched', notAVisit: true, onlyOverTitle: true, stillWanted: async () => gen === this.generation });
      if (out.outcome === 'skipped') {
        if (out.reason === 'too little text') await this.skip(url, 'too-little-text');
        return;
      }
      this.retryAt.delete(url);
      this.readerFailures.delete(url);
    } finally {
      const n = (this.inFlightHosts.get(host) ?? 1) - 1;
      if (n) this.inFlightHosts.set(host, n);
      else this.inFlightHosts.delete(host);
    }
  }

  private async skip(url: string, reason: SkipReason): Promise<void> {
    this.retryAt.delete(url);
    this.readerFailures.delete(url);
    const db = await this.engine.db();
    const page = await this.engine.exclusive(() => markFetchSkipped(db, url, reason, this.clock()));
    if (page) this.engine.pages.put(page);
  }
}

export { SKIP_LABELS };
