/**
 * Index maintenance in the background: folds the delta (delta.ts) into the main index, a small step at a
 * time, each step one short transaction under the engine's write lock, so captures and searches go on
 * between steps and a worker stopped at any point loses nothing.
 *
 * - Merge (FTS5's automerge, Lucene's merge of small segments): once MERGE_AT segments are pending, or
 *   the worker has been idle for a while, the oldest segments (up to MAX_BATCH_ENTRIES postings) are
 *   merged: their terms in sorted order, a slice per step; each term gets an id from the dictionary
 *   (assigned here if new) and its postings are appended to the term's last block. The progress (the
 *   last term done) is written in the step's own transaction, and an append skips ids the block already
 *   holds, so a step redone after a stop changes nothing twice. The last step deletes the segments.
 *   Readers add pending segments to the main index with duplicates dropped, so a half-merged batch
 *   reads the same as before the merge.
 * - Sweep (Lucene's deletes applied at merge): once forgotten ids reach SWEEP_FRACTION of the index, or
 *   the oldest tombstone is SWEEP_AFTER_MS old, the posting blocks are read in key order a slice per step
 *   and rewritten without dead ids, then the dead ids' vectors are removed, then dictionary entries
 *   whose postings all went are deleted, and last the tombstones. Segments pending from before the
 *   tombstones are merged first (a merge drops dead ids), so no dead posting comes back after.
 * - Migration from schema 1/2 (migrateV3.ts) runs here too, before anything else.
 *
 * The job runs after writes (debounced), at worker start, and from an alarm (maintenance.ts); between
 * steps it yields and calls `keepAlive` (an extension API call keeps the MV3 worker alive).
 *
 * Captures come first (issue 17: at a million sections a merge step held the write lock 58 ms median,
 * 368 ms p95, 642 ms max, mostly reading last blocks from a large LevelDB, and captures queued behind
 * it). As Lucene merges on its own threads without the writer's lock and only commits a merge under it,
 * a merge step reads its terms' ids and last blocks first (readAhead: a read-only transaction of `terms`
 * and `postings`, which no capture's transaction includes) and takes the lock only to write; what it
 * read is used if nothing rewrote it meanwhile (`generation`, the cursor), else read again under the
 * lock. And as FTS5 leaves merging to idle moments until a level holds too many segments (crisis
 * merge), the job waits between steps while captures are under way or just done (QUIET_MS), until
 * CRISIS_AT segments are pending.
 */
import { appendToBlock, BLOCK_SIZE, blockFromValue, blockValue, lastId, removeFromBlock, type EncodedBlock, type PostingEntry } from '../src/postings.js';
import type { IDBPTransaction } from 'idb';
import type { DB, RereadDB, TermIdsRecord } from './db.js';
import type { PendingSegment } from './delta.js';
import type { Engine } from './engine.js';
import { migrateStep, migrationPending } from './migrateV3.js';
import { allOrNothing } from './pageStore.js';
import { isQuotaError } from './storageBudget.js';
import { removeVectors } from './vectorStore.js';

/** Pending segments that start a merge without waiting for idleness. */
export const MERGE_AT = 8;
/** A batch merges at most this many postings (more segments wait for the next batch). */
export const MAX_BATCH_ENTRIES = 1_500_000;
/** Quiet time after the last write before a smaller batch merges anyway. */
export const IDLE_MS = 5_000;
/**
 * Captures come first: while one is under way, or one finished less than QUIET_MS ago (a burst of
 * pages, a backfill), the job waits between steps instead of taking the write lock, so a capture never
 * queues behind a merge or sweep step (the delta keeps the new pages searchable meanwhile).
 */
export const QUIET_MS = 1_000;
/**
 * Pending segments past which the job stops waiting for writes to pause (FTS5's crisis merge): readers
 * hold every pending segment in memory, so a long backfill must not pile them up without bound.
 */
export const CRISIS_AT = 4 * MERGE_AT;
/** Forgotten ids (as a share of live sections) that start a sweep. */
export const SWEEP_FRACTION = 0.05;
/** A tombstone older than this starts a sweep whatever the share (forgotten words leave the dictionary). */
export const SWEEP_AFTER_MS = 6 * 3_600_000;
/**
 * Wall time a step aims for: a capture or a search arriving meanwhile waits at most about this long
 * (for the write lock, or for the postings store).
 */
const STEP_TARGET_MS = 25;
/**
 * Wall time one purge (purgeDeadLocked) may scan for: at a million sections the postings store holds
 * millions of blocks, and the purge runs with the write lock held inside a capture. The next purge goes
 * on from where this one stopped; the sweep does the rest once there is room.
 */
const PURGE_BUDGET_MS = 3_000;
/** Last blocks a read-ahead asks for at once (beside captures: see readSlice). */
const READ_AHEAD_WAVE = 8;
/** Bytes of last blocks kept in memory between merges. */
const TAIL_CACHE_MAX_BYTES = 16_000_000;

export const MERGE_KEY = 'merge';
export const SWEEP_KEY = 'sweep';
export const TERM_IDS_KEY = 'termIds';

interface MergeState {
  upTo: number;
  /** The last term merged ('' before the first). */
  after: string;
}

interface SweepState {
  /** Tombstones up to this seq are applied by this sweep. */
  upTo: number;
  phase: 'postings' | 'vectors' | 'terms';
  /** postings: the last block key done; vectors: the last dead id done; terms: the last term done. */
  afterKey: [number, number] | null;
  afterId: number;
  afterTerm: string;
  /** Term ids whose blocks all went (their dictionary entries go in the 'terms' phase). */
  emptied: number[];
  /** The term whose blocks the cursor is in, and whether one of them was kept. */
  current: number;
  currentKept: boolean;
}

/** What a merge step read before taking the write lock (readAhead), and the state it read it for. */
interface ReadAhead {
  generation: number;
  upTo: number;
  after: string;
  slice: string[];
  ids: Map<string, number>;
  tails: Map<number, EncodedBlock | null>;
}

interface Plan {
  upTo: number;
  segments: readonly PendingSegment[];
  terms: string[];
}

/** What purgeDeadLocked deleted: segments, posting blocks, dictionary entries, vector blocks. */
export interface PurgeResult {
  segments: number;
  blocks: number;
  terms: number;
  vectors: number;
}

export interface MaintenanceStatus {
  pendingSegments: number;
  pendingPostings: number;
  deadIds: number;
  migrating: boolean;
  running: boolean;
  merges: number;
  sweeps: number;
  /** Wall time of merge steps so far (their read-aheads included), and the postings they merged (for the benchmarks). */
  mergeMs: number;
  mergedPostings: number;
  lastError?: string;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class IndexMaintenance {
  /** Called between steps (the worker sets an extension API call that keeps it alive). */
  keepAlive: (() => void) | null = null;
  private running: Promise<void> | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private lastWrite = 0;
  /** Captures under way (writeStarted/writeEnded), and when the last one ended. */
  private writing = 0;
  private lastCapture = 0;
  /** Ends the wait in `quiet` early. */
  private wake: (() => void) | null = null;
  /** Times the job waited for captures (tests, benchmarks). */
  yields = 0;
  private plan: Plan | null = null;
  private stepTerms = 400;
  private stepBlocks = 400;
  private fixed: { terms: number; blocks: number } | null = null;
  private tails = new Map<number, EncodedBlock | null>();
  private tailBytes = 0;
  private stats = { merges: 0, sweeps: 0, mergeMs: 0, mergedPostings: 0 };
  private lastError: string | undefined;
  /** Where the last purge stopped in the postings and vectors stores (null: from the start). */
  private purgeFrom: { postings: [number, number] | null; vectors: [string, number] | null } = { postings: null, vectors: null };
  /**
   * Bumped whenever what a merge step read ahead may have gone stale: posting blocks rewritten or
   * deleted, dictionary entries deleted, pending segments purged, everything reset (all under the write
   * lock). A step whose read-ahead straddles a bump reads again under the lock.
   */
  private generation = 0;
  /** Tests: called between a merge step's read-ahead and its taking the write lock. */
  afterReadAhead: (() => Promise<void>) | null = null;
  /** Merge steps whose read-ahead was used, and those that read again under the lock (stale or none). */
  readAheads = { used: 0, stale: 0 };
  /** Tests and benchmarks turn the automatic job off to step it by hand. */
  auto = true;

  constructor(private readonly engine: Engine) {}

  /** A capture is under way (storePage): the job lets it go first (`yieldToWrites`). */
  writeStarted(): void {
    this.writing++;
  }

  writeEnded(): void {
    this.writing = Math.max(0, this.writing - 1);
    this.lastCapture = Date.now();
    // The delta reached the crisis bound: a job waiting for the captures to pause goes on now.
    if (this.engine.delta.pending().length >= CRISIS_AT) this.wake?.();
  }

  /** Whether the next step waits for captures: one is under way or just done, and the delta is not in crisis. */
  private yieldToWrites(): boolean {
    return (this.writing > 0 || Date.now() - this.lastCapture < QUIET_MS) && this.engine.delta.pending().length < CRISIS_AT;
  }

  /** Waits until captures pause (or the delta reaches CRISIS_AT); nothing when forced. */
  private async quiet(force: boolean): Promise<void> {
    while (!force && this.yieldToWrites()) {
      this.yields++;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          if (this.wake === done) this.wake = null;
          resolve();
        };
        const timer = setTimeout(done, Math.max(20, QUIET_MS - (Date.now() - this.lastCapture)));
        this.wake = done;
      });
    }
  }

  /** After a write committed: run soon (a burst of captures merges once they pause, or every MERGE_AT). */
  noteWrite(): void {
    this.lastWrite = Date.now();
    // The delta may not be loaded yet in this worker's life (it loads at the first read): count on it.
    void this.engine.delta
      .ready()
      .then(() => this.schedule(this.engine.delta.pending().length >= MERGE_AT ? 0 : IDLE_MS))
      .catch(() => undefined);
  }

  /** Starts the job after `delayMs` unless it is running (it then picks up new work by itself). */
  schedule(delayMs = 0): void {
    if (!this.auto || this.running) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.run().catch(() => undefined);
    }, delayMs);
  }

  /** Runs the job now; resolves when it has nothing left to do. `force`: merge and sweep whatever the thresholds. */
  run(opts: { force?: boolean } = {}): Promise<void> {
    if (this.running) return opts.force ? this.running.then(() => this.run(opts)) : this.running;
    this.running = this.loop(opts.force === true).finally(() => {
      this.running = null;
    });
    return this.running;
  }

  status(): MaintenanceStatus {
    const d = this.engine.delta;
    const out: MaintenanceStatus = { pendingSegments: d.pending().length, pendingPostings: d.pendingEntries(), deadIds: d.deadCount(), migrating: false, running: !!this.running, ...this.stats };
    if (this.lastError) out.lastError = this.lastError;
    return out;
  }

  /** Forget in-memory state that mirrors the main index (after a repair or forgetting everything). */
  reset(): void {
    this.generation++;
    this.plan = null;
    this.purgeFrom = { postings: null, vectors: null };
    this.tails.clear();
    this.tailBytes = 0;
  }

  /**
   * One step of whatever is due (migration first, then merging, then sweeping); false when nothing is.
   * Each step is one transaction: a worker stopped between steps (or in one: it aborts) resumes from
   * what the last committed step recorded.
   */
  async step(force = false): Promise<boolean> {
    const engine = this.engine;
    const db = await engine.db();
    await engine.delta.ready();
    if (await migrationPending(db)) await engine.exclusive(() => migrateStep(engine, this));
    else if (await this.mergeWanted(db, force)) {
      // The slow part of a merge step, reading its terms' ids and last blocks, is done first, outside
      // the write lock, in a read-only transaction of the index's own stores (a capture's never overlaps
      // them): a capture then waits at most for the step's writes, not for its reads.
      const read = await this.readAhead(db);
      // A capture that came during the read goes first (the read-ahead is used if still current).
      await this.quiet(force);
      await engine.exclusive(() => this.mergeStep(db, read));
    }
    else if (await this.sweepWanted(db, force)) await engine.exclusive(() => this.sweepStep(db));
    // Last, the page table's snapshot (pageLog.ts), once enough pages were written since the last one.
    else if (await engine.pages.snapshotWanted(db, force)) await engine.pages.writeSnapshot(db);
    else return false;
    return true;
  }

  /** Fixed step sizes (tests: many small steps); null goes back to sizes adapted to STEP_TARGET_MS. */
  fixSteps(sizes: { terms: number; blocks: number } | null): void {
    this.fixed = sizes;
    if (sizes) {
      this.stepTerms = sizes.terms;
      this.stepBlocks = sizes.blocks;
    }
  }

  private async loop(force: boolean): Promise<void> {
    try {
      while ((await this.quiet(force), await this.step(force))) {
        this.lastError = undefined;
        this.keepAlive?.();
        // Let searches and captures in between.
        await sleep(0);
      }
    } catch (e) {
      this.lastError = e instanceof Error ? e.message : String(e);
      // Storage full: the sweep's rewrites wait until deletes have freed room; other errors: retry later.
      if (!isQuotaError(e)) console.warn('reread: index maintenance', e);
      if (this.auto) setTimeout(() => this.schedule(0), isQuotaError(e) ? 60_000 : 10_000);
      throw e;
    }
  }

  private async mergeWanted(db: DB, force: boolean): Promise<boolean> {
    if (await db.get('meta', MERGE_KEY)) return true; // one under way: finish it
    const pending = this.engine.delta.pending();
    if (!pending.length) return false;
    return force || pending.length >= MERGE_AT || Date.now() - this.lastWrite >= IDLE_MS;
  }

  private async sweepWanted(db: DB, force: boolean): Promise<boolean> {
    if (await db.get('meta', SWEEP_KEY)) return true;
    const d = this.engine.delta;
    const ranges = d.deadRanges();
    if (!ranges.length) return false;
    // Dead ids may still sit in segments older than their tombstones: those merge first (dropping them).
    const maxDead = Math.max(...ranges.map((r) => r.end));
    if (d.pending().some((s) => s.first < maxDead)) return false;
    if (force) return true;
    const stats = await this.engine.lexical.corpusStats();
    const oldest = Math.min(...ranges.map((r) => r.at ?? Date.now()));
    return d.deadCount() >= SWEEP_FRACTION * Math.max(stats.N, 1) || Date.now() - oldest >= SWEEP_AFTER_MS;
  }

  // ---------------------------------------------------------------------------------------------
  // Merge

  private planFor(upTo: number): Plan {
    if (this.plan?.upTo === upTo) return this.plan;
    const segments = this.engine.delta.pending().filter((s) => s.seq <= upTo);
    const terms = new Set<string>();
    for (const s of segments) for (const t of s.terms.keys()) terms.add(t);
    this.plan = { upTo, segments, terms: [...terms].sort() };
    return this.plan;
  }

  /** The batch of pending segments a new merge takes (oldest first, up to MAX_BATCH_ENTRIES postings). */
  private newBatch(): MergeState | null {
    const pending = this.engine.delta.pending();
    if (!pending.length) return null;
    let entries = 0;
    let upTo = pending[0]!.seq;
    for (const s of pending) {
      if (entries && entries + s.entries > MAX_BATCH_ENTRIES) break;
      entries += s.entries;
      upTo = s.seq;
    }
    return { upTo, after: '' };
  }

  /** The terms of the plan's next step after the cursor (empty: the batch is merged). */
  private sliceAfter(plan: Plan, after: string): string[] {
    let start = lowerBound(plan.terms, after);
    if (start < plan.terms.length && plan.terms[start] === after) start++;
    return plan.terms.slice(start, start + this.stepTerms);
  }

  /**
   * The dictionary ids of these terms and their last blocks (absent: a term new to the dictionary),
   * from the cache or read in `tx`.
   */
  private async readSlice(tx: IDBPTransaction<RereadDB, ('terms' | 'postings' | 'meta')[], IDBTransactionMode>, slice: readonly string[], wave = Infinity): Promise<{ ids: Map<string, number>; tails: Map<number, EncodedBlock | null> }> {
    let ids: Map<string, number>;
    if (wave >= slice.length) ids = await this.engine.termIds.lookup(tx as never, slice);
    else {
      ids = new Map();
      for (let i = 0; i < slice.length; i += wave * 4) for (const [t, id] of await this.engine.termIds.lookup(tx as never, slice.slice(i, i + wave * 4))) ids.set(t, id);
    }
    const postings = tx.objectStore('postings');
    // Last blocks not in memory, read in parallel (a term new to the dictionary has none).
    const unknown: number[] = [];
    for (const t of slice) if (ids.has(t) && !this.tails.has(ids.get(t)!)) unknown.push(ids.get(t)!);
    const last = (id: number) => postings.openCursor(IDBKeyRange.bound([id, 0], [id, Infinity]), 'prev');
    let read: Awaited<ReturnType<typeof last>>[];
    if (wave >= unknown.length) read = await Promise.all(unknown.map(last));
    else {
      // A few at a time: the database answers requests in order, and a capture's requests queued
      // behind hundreds of these would wait for all of them.
      read = [];
      for (let i = 0; i < unknown.length; i += wave) read.push(...(await Promise.all(unknown.slice(i, i + wave).map(last))));
    }
    const tails = new Map<number, EncodedBlock | null>();
    for (const t of slice) {
      const id = ids.get(t);
      if (id !== undefined && this.tails.has(id)) tails.set(id, this.tails.get(id)!);
    }
    unknown.forEach((id, i) => {
      const c = read[i];
      let block: EncodedBlock | null = null;
      if (c) {
        try {
          block = blockFromValue((c.key as [number, number])[1], c.value);
        } catch {
          block = null; // malformed: verifyIndex reports it; new postings start a new block
        }
      }
      tails.set(id, block);
    });
    return { ids, tails };
  }

  /**
   * Reads what the next merge step needs (its terms' ids, their last blocks) without the write lock, in
   * a read-only transaction of `terms` and `postings`, which no capture's transaction includes: it runs
   * beside captures instead of in front of them. Null when no step is due or the read failed (the step
   * then reads under the lock, as it always may).
   */
  private async readAhead(db: DB): Promise<ReadAhead | null> {
    const started = performance.now();
    try {
      const generation = this.generation;
      const state = ((await db.get('meta', MERGE_KEY)) as MergeState | undefined) ?? this.newBatch();
      if (!state) return null;
      const plan = this.planFor(state.upTo);
      const slice = this.sliceAfter(plan, state.after);
      if (!slice.length) return null;
      const tx = db.transaction(['terms', 'postings']);
      const { ids, tails } = await this.readSlice(tx as never, slice, READ_AHEAD_WAVE);
      await tx.done;
      return { generation, upTo: state.upTo, after: state.after, slice, ids, tails };
    } catch {
      return null;
    } finally {
      // Merge time, though outside the lock (mergeMs is what merging cost, for the benchmarks).
      this.stats.mergeMs += performance.now() - started;
      await this.afterReadAhead?.();
    }
  }

  /**
   * One step of the merge (starting one if none is under way), under the write lock; false when the
   * batch is done. With a read-ahead still current (same cursor, nothing rewritten since) the step
   * only writes: its blocks, new dictionary entries, the id counter and the cursor, in one transaction.
   */
  private async mergeStep(db: DB, ahead: ReadAhead | null = null): Promise<boolean> {
    const delta = this.engine.delta;
    let state = (await db.get('meta', MERGE_KEY)) as MergeState | undefined;
    if (!state) {
      // The batch the read-ahead planned, while its segments are pending (a purge may have taken some).
      state = (ahead && !ahead.after && delta.pending().some((s) => s.seq === ahead.upTo) ? { upTo: ahead.upTo, after: '' } : this.newBatch()) ?? undefined;
      if (!state) return false;
      await db.put('meta', state, MERGE_KEY);
    }
    const plan = this.planFor(state.upTo);
    const started = performance.now();
    const current = ahead && ahead.generation === this.generation && ahead.upTo === state.upTo && ahead.after === state.after ? ahead : null;
    if (ahead) this.readAheads[current ? 'used' : 'stale']++;
    const slice = current ? current.slice : this.sliceAfter(plan, state.after);
    if (!slice.length) return this.finishMerge(db, plan);
    const dead = delta.dead;

    const tx = db.transaction(['terms', 'postings', 'meta'], 'readwrite');
    let merged = 0;
    const newIds = new Map<string, number>();
    const newTails = new Map<number, EncodedBlock | null>();
    const puts: Promise<unknown>[] = [];
    await allOrNothing(
      tx,
      async () => {
        const counter = ((await tx.objectStore('meta').get(TERM_IDS_KEY)) as TermIdsRecord | undefined) ?? { next: 1 };
        const { ids, tails } = current ?? (await this.readSlice(tx, slice));
        /** The batch's live postings of a term above `after` (the last id its blocks hold). */
        const entriesOf = (t: string, after: number): PostingEntry[] => {
          const out: PostingEntry[] = [];
          for (const s of plan.segments) {
            const l = s.terms.get(t);
            if (!l) continue;
            for (let i = 0; i < l.ids.length; i++) {
              const pid = l.ids[i]!;
              if (pid > after && !dead.has(pid)) out.push({ id: pid, tf: l.tfs[i]!, len: 0 });
            }
          }
          return out;
        };
        const postings = tx.objectStore('postings');
        for (const t of slice) {
          let id = ids.get(t);
          const tail = id === undefined ? null : (tails.get(id) ?? null);
          const entries = entriesOf(t, tail ? lastId(tail) : -1);
          if (id !== undefined) newTails.set(id, tail);
          // A term whose postings are all forgotten gets no dictionary entry.
          if (!entries.length) continue;
          if (id === undefined) {
            id = counter.next++;
            newIds.set(t, id);
            puts.push(tx.objectStore('terms').put(id, t));
          }
          const blocks = appendToBlock(tail && tail.n < BLOCK_SIZE ? tail : undefined, entries);
          for (const b of blocks) puts.push(postings.put(blockValue(b), [id, b.first]));
          newTails.set(id, blocks[blocks.length - 1]!);
          merged += entries.length;
        }
        puts.push(tx.objectStore('meta').put(counter, TERM_IDS_KEY));
        puts.push(tx.objectStore('meta').put({ upTo: state.upTo, after: slice[slice.length - 1]! } satisfies MergeState, MERGE_KEY));
        await Promise.all(puts);
        await tx.done;
      },
      puts,
    );
    // Committed: now the caches may learn what it wrote.
    for (const [t, id] of newIds) this.engine.termIds.set(t, id);
    for (const [id, b] of newTails) this.setTail(id, b);
    const ms = performance.now() - started;
    this.stats.mergeMs += ms;
    this.stats.mergedPostings += merged;
    if (!this.fixed) this.stepTerms = adapt(this.stepTerms, slice.length, ms, 50, 5000);
    return true;
  }

  private async finishMerge(db: DB, plan: Plan): Promise<boolean> {
    const norms = await this.engine.pages.norms(); // before: nothing may be awaited between the commit and the drop
    const tx = db.transaction(['segments', 'meta'], 'readwrite');
    await Promise.all([tx.objectStore('segments').delete(IDBKeyRange.upperBound(plan.upTo)), tx.objectStore('meta').delete(MERGE_KEY)]);
    await tx.done;
    // The batch's postings are read from the main index from now on: cached lists of its terms take them in.
    this.engine.lexical.merged(plan.terms, plan.segments, norms.lookup);
    this.engine.delta.dropSegments(plan.upTo);
    this.plan = null;
    this.stats.merges++;
    return true;
  }

  private setTail(id: number, block: EncodedBlock | null): void {
    const size = (b: EncodedBlock | null | undefined) => (b ? b.data.byteLength + 48 : 16);
    if (this.tails.has(id)) this.tailBytes -= size(this.tails.get(id));
    this.tails.delete(id); // re-insert: Map order is the LRU order
    this.tails.set(id, block);
    this.tailBytes += size(block);
    for (const [k, b] of this.tails) {
      if (this.tailBytes <= TAIL_CACHE_MAX_BYTES) break;
      this.tails.delete(k);
      this.tailBytes -= size(b);
    }
  }

  /** Drops the cached last blocks of these terms (their blocks were rewritten elsewhere). */
  forgetTails(ids: Iterable<number>): void {
    this.generation++;
    for (const id of ids) {
      const b = this.tails.get(id);
      if (b === undefined) continue;
      this.tails.delete(id);
      this.tailBytes -= b ? b.data.byteLength + 48 : 16;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Purge (storage full)

  /**
   * Deletes pending segments all of whose ids are dead (a capture's segment holds its page alone, so a
   * page forgotten before it was merged leaves no posting, and no word of it, behind). Deletes only;
   * called with the write lock held after every forget (forget.ts) and eviction. The number deleted.
   */
  async purgeSegmentsLocked(): Promise<number> {
    const delta = this.engine.delta;
    await delta.ready();
    const dead = delta.dead;
    const gone = new Set(delta.pending().filter((s) => dead.covers(s.first, s.end)).map((s) => s.seq));
    if (!gone.size) return 0;
    const tx = (await this.engine.db()).transaction('segments', 'readwrite');
    await Promise.all([...gone].map((seq) => tx.store.delete(seq)));
    await tx.done;
    delta.removeSegments(gone);
    this.generation++;
    this.plan = null; // a merge under way plans again from what is pending (its cursor is a term: it resumes the same)
    return gone.size;
  }

  /**
   * Frees at once what forgotten ids hold alone, with deletes only: pending segments all of whose ids
   * are dead, posting blocks and vector blocks all of whose ids are dead, and dictionary entries left
   * without blocks. Chromium commits a transaction without puts even past the quota, where the sweep's
   * rewrites (puts) are refused, and the deletes are what LevelDB's compaction turns into room. Blocks
   * that also hold live ids stay for the sweep, and the tombstones stay until it ran. Called by the
   * storage budget right after an eviction committed its tombstones, with the write lock held. Each
   * step is one transaction of deletes of records no reader needs (their ids are dead): a stop at any
   * point leaves a state the sweep finishes, and verifyIndex clean.
   */
  async purgeDeadLocked(): Promise<PurgeResult> {
    const out: PurgeResult = { segments: 0, blocks: 0, terms: 0, vectors: 0 };
    const delta = this.engine.delta;
    await delta.ready();
    const dead = delta.dead;
    if (!dead.size) return out;
    const db = await this.engine.db();
    out.segments = await this.purgeSegmentsLocked();
    // Posting blocks, a slice of keys a step: a block can be all dead only if a dead id lies between its
    // key and the term's next key; those are read and deleted when nothing live is left in them.
    const STEP = 4000;
    const started = performance.now();
    const inBudget = () => performance.now() - started < PURGE_BUDGET_MS;
    const emptied = new Set<number>();
    const kept = new Set<number>();
    let after = this.purgeFrom.postings;
    for (;;) {
      const tx = db.transaction(['postings'], 'readwrite');
      const store = tx.objectStore('postings');
      const keys = (await store.getAllKeys(after ? IDBKeyRange.lowerBound(after, true) : undefined, STEP)) as [number, number][];
      const candidates = keys.filter(([t, f], i) => {
        const next = keys[i + 1];
        return dead.intersects(f, next && next[0] === t ? next[1] : Infinity);
      });
      const values = await Promise.all(candidates.map((k) => store.get(k)));
      const deletes: Promise<unknown>[] = [];
      const dropped = new Set<string>();
      candidates.forEach((k, i) => {
        let block: EncodedBlock | null;
        try {
          block = values[i] === undefined ? null : blockFromValue(k[1], values[i]);
        } catch {
          block = null; // malformed: left for verifyIndex / repair
        }
        if (block && removeFromBlock(block, (id) => dead.has(id)) === null) {
          deletes.push(store.delete(k));
          dropped.add(`${k[0]}:${k[1]}`);
        }
      });
      for (const [t, f] of keys) {
        if (dropped.has(`${t}:${f}`)) emptied.add(t);
        else kept.add(t);
      }
      await Promise.all(deletes);
      await tx.done;
      out.blocks += deletes.length;
      this.forgetTails([...dropped].map((k) => Number(k.split(':')[0])));
      this.keepAlive?.();
      after = keys.length < STEP ? null : keys[keys.length - 1]!;
      if (!after || !inBudget()) break;
    }
    this.purgeFrom.postings = after;
    // Dictionary entries of terms none of whose blocks is left (a pending segment with the term gets a
    // new id when it merges, as a new term does).
    const empty = new Set([...emptied].filter((t) => !kept.has(t)));
    if (empty.size) {
      const tx = db.transaction(['terms', 'postings'], 'readwrite');
      const gone: string[] = [];
      let cursor = await tx.objectStore('terms').openCursor();
      while (cursor) {
        const id = cursor.value;
        if (empty.has(id) && (await tx.objectStore('postings').count(IDBKeyRange.bound([id, 0], [id, Infinity]))) === 0) {
          gone.push(cursor.key);
          await cursor.delete();
        }
        cursor = await cursor.continue();
      }
      await tx.done;
      this.generation++;
      this.engine.termIds.forget(gone);
      out.terms = gone.length;
    }
    // Vector blocks (a model's exact blocks hold VECTOR_BLOCK ids: a page's sections fill several).
    let afterVector = this.purgeFrom.vectors;
    for (;;) {
      const tx = db.transaction(['vectors'], 'readwrite');
      const store = tx.objectStore('vectors');
      const keys = (await store.getAllKeys(afterVector ? IDBKeyRange.lowerBound(afterVector, true) : undefined, STEP)) as unknown as [string, number][];
      const candidates = keys.filter(([m, f], i) => {
        const next = keys[i + 1];
        return dead.intersects(f, next && next[0] === m ? next[1] : Infinity);
      });
      const values = await Promise.all(candidates.map((k) => store.get(k as never)));
      const deletes: Promise<unknown>[] = [];
      candidates.forEach((k, i) => {
        const ids = values[i]?.ids;
        if (ids && ids.length && ids.every((id) => dead.has(id))) deletes.push(store.delete(k as never));
      });
      await Promise.all(deletes);
      await tx.done;
      out.vectors += deletes.length;
      afterVector = keys.length < STEP ? null : keys[keys.length - 1]!;
      if (!afterVector || !inBudget()) break;
    }
    this.purgeFrom.vectors = afterVector;
    return out;
  }

  // ---------------------------------------------------------------------------------------------
  // Sweep

  private async sweepStep(db: DB): Promise<boolean> {
    const delta = this.engine.delta;
    let state = (await db.get('meta', SWEEP_KEY)) as SweepState | undefined;
    if (!state) {
      const ranges = delta.deadRanges();
      if (!ranges.length) return false;
      state = { upTo: Math.max(...ranges.map((r) => r.seq)), phase: 'postings', afterKey: null, afterId: -1, afterTerm: '', emptied: [], current: -1, currentKept: false };
      await db.put('meta', state, SWEEP_KEY);
    }
    // Every id dead now is dead forever: purging more than the sweep's own tombstones is harmless.
    const dead = delta.dead;
    const started = performance.now();
    if (state.phase === 'postings') {
      const tx = db.transaction(['postings', 'meta'], 'readwrite');
      const store = tx.objectStore('postings');
      let cursor = await store.openCursor(state.afterKey ? IDBKeyRange.lowerBound(state.afterKey, true) : null);
      const touched = new Set<number>();
      let n = 0;
      while (cursor && n < this.stepBlocks) {
        const [termId, first] = cursor.key as [number, number];
        if (termId !== state.current) {
          if (state.current >= 0 && !state.currentKept) state.emptied.push(state.current);
          state.current = termId;
          state.currentKept = false;
        }
        let block: EncodedBlock | null = null;
        try {
          block = blockFromValue(first, cursor.value);
        } catch {
          block = null; // malformed: left for verifyIndex / repair
        }
        const kept = block ? removeFromBlock(block, (id) => dead.has(id)) : block;
        if (block && kept !== block) {
          touched.add(termId);
          if (kept) await cursor.update(blockValue(kept));
          else await cursor.delete();
        }
        if (kept || !block) state.currentKept = true;
        state.afterKey = [termId, first];
        n++;
        cursor = await cursor.continue();
      }
      if (!cursor) {
        if (state.current >= 0 && !state.currentKept) state.emptied.push(state.current);
        state.phase = 'vectors';
      }
      await tx.objectStore('meta').put(state, SWEEP_KEY);
      await tx.done;
      this.forgetTails(touched);
      if (!this.fixed) this.stepBlocks = adapt(this.stepBlocks, n, performance.now() - started, 50, 5000);
      return true;
    }
    const ranges = delta.deadRanges().filter((r) => r.seq <= state.upTo);
    if (state.phase === 'vectors') {
      const ids: number[] = [];
      for (const r of [...ranges].sort((a, b) => a.first - b.first)) {
        for (let id = Math.max(r.first, state.afterId + 1); id < r.end && ids.length < 2048; id++) ids.push(id);
        if (ids.length >= 2048) break;
      }
      const tx = db.transaction(['vectors', 'meta'], 'readwrite');
      if (ids.length) {
        await removeVectors(tx as never, ids);
        state.afterId = ids[ids.length - 1]!;
      } else state.phase = 'terms';
      await tx.objectStore('meta').put(state, SWEEP_KEY);
      await tx.done;
      return true;
    }
    // Dictionary entries of terms left without postings (checked again here: a merge may have given
    // the term postings since).
    if (state.emptied.length) {
      const emptied = new Set(state.emptied);
      const tx = db.transaction(['terms', 'postings', 'meta'], 'readwrite');
      let cursor = await tx.objectStore('terms').openCursor(state.afterTerm ? IDBKeyRange.lowerBound(state.afterTerm, true) : null);
      const gone: string[] = [];
      let n = 0;
      while (cursor && n < this.stepBlocks * 4) {
        const id = cursor.value;
        if (emptied.has(id) && (await tx.objectStore('postings').count(IDBKeyRange.bound([id, 0], [id, Infinity]))) === 0) {
          gone.push(cursor.key);
          await cursor.delete();
        }
        state.afterTerm = cursor.key;
        n++;
        cursor = await cursor.continue();
      }
      if (!cursor) state.emptied = [];
      await tx.objectStore('meta').put(state, SWEEP_KEY);
      await tx.done;
      this.generation++;
      this.engine.termIds.forget(gone);
      return true;
    }
    const tx = db.transaction(['tombstones', 'meta'], 'readwrite');
    await Promise.all([tx.objectStore('tombstones').delete(IDBKeyRange.upperBound(state.upTo)), tx.objectStore('meta').delete(SWEEP_KEY)]);
    await tx.done;
    delta.dropDead(state.upTo);
    this.stats.sweeps++;
    return true;
  }
}

/** The next step's size, aiming at STEP_TARGET_MS. */
function adapt(current: number, done: number, ms: number, min: number, max: number): number {
  if (done < current || ms <= 0) return current;
  const want = Math.round((done * STEP_TARGET_MS) / ms);
  return Math.max(min, Math.min(max, Math.round((current + want) / 2)));
}

function lowerBound(sorted: readonly string[], x: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
