/**
 * The delta: what the write path stored but the background has not folded into the main index yet,
 * held in memory for the worker's life (loaded with one getAll of each store at first use).
 *
 * - Segments: each write (a capture, or a batch of pages) stores its postings as one immutable segment
 *   record, terms as strings, in the write's own transaction — a handful of records whatever the size
 *   of the index. Readers add the pending segments' postings to the main index's (deduplicated by id:
 *   while a merge runs, a posting may be in both). indexMaintenance.ts merges them into the main index
 *   and then deletes them.
 * - Tombstones: forgetting a page stores the range of its chunk ids (one small record, whatever the
 *   page held, and no text needed to find its postings). Readers drop those ids from every posting
 *   list and from the dense lane; the sweep (indexMaintenance.ts) purges them from the main index and
 *   the vectors, then deletes the tombstones.
 *
 * Learned from Lucene (immutable segments, deletes as live-docs bitsets applied at merge) and SQLite
 * FTS5 (a new segment per write, merged incrementally in the background, a crisis bound).
 */
import type { PostingList } from '../src/bm25.js';
import { decodeSegment, emptyList, type EncodedSegment } from '../src/postings.js';
import type { DB, SegmentRecord, TombstoneRecord } from './db.js';

/** One term's postings in a segment (ids ascending). */
export interface DeltaList {
  ids: number[];
  tfs: number[];
}

export interface PendingSegment {
  seq: number;
  first: number;
  end: number;
  terms: Map<string, DeltaList>;
  entries: number;
}

/** Ids first..end-1 dead since tombstone `seq`. */
export interface DeadRange {
  seq: number;
  first: number;
  end: number;
  /** When it was forgotten (absent on tombstones read back without it). */
  at?: number;
}

export function decodeSegmentRecord(seq: number, r: SegmentRecord): PendingSegment {
  const terms = new Map<string, DeltaList>();
  let entries = 0;
  decodeSegment(r as EncodedSegment, r.first, (term, list) => {
    terms.set(term, { ids: list.map((e) => e.id), tfs: list.map((e) => e.tf) });
    entries += list.length;
  });
  return { seq, first: r.first, end: r.end, terms, entries };
}

/** A sorted, merged view of dead ranges with a binary search. */
export class DeadSet {
  readonly firsts: number[] = [];
  readonly ends: number[] = [];
  constructor(ranges: readonly DeadRange[]) {
    const sorted = [...ranges].sort((a, b) => a.first - b.first);
    for (const r of sorted) {
      const last = this.ends.length - 1;
      if (last >= 0 && r.first <= this.ends[last]!) this.ends[last] = Math.max(this.ends[last]!, r.end);
      else {
        this.firsts.push(r.first);
        this.ends.push(r.end);
      }
    }
  }

  get size(): number {
    return this.firsts.length;
  }

  has(id: number): boolean {
    return this.rangeOf(id) >= 0;
  }

  /** Whether every id in [first, end) is dead. */
  covers(first: number, end: number): boolean {
    if (end <= first) return true;
    const r = this.rangeOf(first);
    return r >= 0 && this.ends[r]! >= end;
  }

  /** Whether some id in [first, end) is dead. */
  intersects(first: number, end: number): boolean {
    // The first range ending after `first`: dead ids in [first, end) exist if it starts before `end`.
    let lo = 0;
    let hi = this.firsts.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.ends[mid]! <= first) lo = mid + 1;
      else hi = mid;
    }
    return lo < this.firsts.length && this.firsts[lo]! < end;
  }

  /** The index of the range holding `id`, or -1. */
  private rangeOf(id: number): number {
    let lo = 0;
    let hi = this.firsts.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (this.firsts[mid]! > id) hi = mid - 1;
      else if (this.ends[mid]! <= id) lo = mid + 1;
      else return mid;
    }
    return -1;
  }

  /** The list without dead ids (the list itself when none is dead). One pass: both are sorted. */
  filter(list: PostingList): PostingList {
    if (!this.firsts.length || !list.ids.length) return list;
    const { ids } = list;
    let r = 0;
    let keep = 0;
    const dead = new Uint8Array(ids.length);
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      while (r < this.firsts.length && this.ends[r]! <= id) r++;
      if (r < this.firsts.length && this.firsts[r]! <= id) dead[i] = 1;
      else keep++;
    }
    if (keep === ids.length) return list;
    const out = emptyList(keep);
    let j = 0;
    for (let i = 0; i < ids.length; i++) {
      if (dead[i]) continue;
      out.ids[j] = ids[i]!;
      out.tfs[j] = list.tfs[i]!;
      out.lens[j] = list.lens[i]!;
      j++;
    }
    return out;
  }
}

/** What a reader works from: the pending segments and the dead ids at one moment. */
export interface DeltaSnapshot {
  segments: readonly PendingSegment[];
  dead: DeadSet;
  deadGeneration: number;
}

export class Delta {
  private segments: PendingSegment[] = [];
  private ranges: DeadRange[] = [];
  private deadSet = new DeadSet([]);
  /** Bumped whenever the dead set changes (cached posting lists are filtered again). */
  deadGeneration = 0;
  private loaded = false;
  private loading: Promise<void> | null = null;
  /** Changes made while a load was reading the stores, applied on top of what it read. */
  private early: (() => void)[] = [];
  /** Bumped by reset(): a load started before it is discarded. */
  private epoch = 0;

  constructor(private readonly db: () => Promise<DB>) {}

  /** Loads the stores once per worker life (and again after a reset). */
  async ready(): Promise<void> {
    while (!this.loaded) {
      this.loading ??= this.load();
      await this.loading;
    }
  }

  private async load(): Promise<void> {
    const epoch = this.epoch;
    try {
      const db = await this.db();
      const tx = db.transaction(['segments', 'tombstones']);
      const [segKeys, segs, deadKeys, dead] = await Promise.all([tx.objectStore('segments').getAllKeys(), tx.objectStore('segments').getAll(), tx.objectStore('tombstones').getAllKeys(), tx.objectStore('tombstones').getAll()]);
      await tx.done;
      if (epoch !== this.epoch) return; // reset meanwhile: ready() loads again
      this.segments = [];
      segs.forEach((r, i) => {
        try {
          this.segments.push(decodeSegmentRecord(segKeys[i]!, r));
        } catch {
          // A malformed segment is verifyIndex's to report (repair rebuilds the index without it).
        }
      });
      this.ranges = dead.map((r: TombstoneRecord, i) => ({ seq: deadKeys[i]!, first: r.first, end: r.end, ...(r.at ? { at: r.at } : {}) }));
      this.loaded = true;
      for (const f of this.early.splice(0)) f();
      this.rebuildDead();
    } finally {
      if (epoch === this.epoch) this.loading = null;
    }
  }

  private whenLoaded(f: () => void): void {
    if (this.loaded) f();
    else if (this.loading) this.early.push(f);
    // Not loading: the next load reads the stores, which hold the change already.
  }

  private rebuildDead(): void {
    this.deadSet = new DeadSet(this.ranges);
    this.deadGeneration++;
  }

  snapshot(): DeltaSnapshot {
    return { segments: this.segments, dead: this.deadSet, deadGeneration: this.deadGeneration };
  }

  get dead(): DeadSet {
    return this.deadSet;
  }

  /** After a write's transaction committed. */
  addSegment(seg: PendingSegment): void {
    this.whenLoaded(() => {
      if (this.segments.some((s) => s.seq === seg.seq)) return;
      this.segments = [...this.segments, seg].sort((a, b) => a.seq - b.seq);
    });
  }

  addDead(ranges: readonly DeadRange[]): void {
    if (!ranges.length) return;
    this.whenLoaded(() => {
      const have = new Set(this.ranges.map((r) => r.seq));
      this.ranges = [...this.ranges, ...ranges.filter((r) => !have.has(r.seq))];
      this.rebuildDead();
    });
  }

  /** After a merge deleted segments up to `seq`. A new array: snapshots taken before keep theirs. */
  dropSegments(upToSeq: number): void {
    this.whenLoaded(() => {
      this.segments = this.segments.filter((s) => s.seq > upToSeq);
    });
  }

  /** After segments all of whose ids are dead were deleted (indexMaintenance purgeDeadLocked). */
  removeSegments(seqs: ReadonlySet<number>): void {
    if (!seqs.size) return;
    this.whenLoaded(() => {
      this.segments = this.segments.filter((s) => !seqs.has(s.seq));
    });
  }

  /** After a sweep deleted tombstones up to `seq`. */
  dropDead(upToSeq: number): void {
    this.whenLoaded(() => {
      this.ranges = this.ranges.filter((r) => r.seq > upToSeq);
      this.rebuildDead();
    });
  }

  /** Everything was cleared or rebuilt (forget everything, repair): read the stores again. */
  reset(): void {
    this.epoch++;
    this.loaded = false;
    this.loading = null;
    this.early = [];
    this.segments = [];
    this.ranges = [];
    this.rebuildDead();
  }

  /** Pending segments, oldest first (after ready()). */
  pending(): readonly PendingSegment[] {
    return this.segments;
  }

  deadRanges(): readonly DeadRange[] {
    return this.ranges;
  }

  /** Dead ids not yet swept (sum of the ranges; ids no page held count too). */
  deadCount(): number {
    let n = 0;
    for (let i = 0; i < this.deadSet.size; i++) n += this.deadSet.ends[i]! - this.deadSet.firsts[i]!;
    return n;
  }

  pendingEntries(): number {
    return this.segments.reduce((n, s) => n + s.entries, 0);
  }
}
