/**
 * The posting codec: how a term's postings are cut into blocks and encoded for storage, and how the
 * postings of one capture are packed into a segment (a small immutable delta, see background/delta.ts).
 *
 * A term's postings are stored as blocks keyed by (term id, first chunk id in the block), each holding up
 * to BLOCK_SIZE entries sorted by chunk id. Chunk ids only grow, so new postings are always appended to
 * the term's last block; a block is found by key ("greatest first <= id"), never by a scan.
 *
 * Two codecs, told apart by the stored value's first byte (`blockValue` / `blockFromValue`):
 * - varint (schema 3's first codec, no marker: the value starts with the entry count, never 0): per entry
 *   the id delta from the previous entry (the first: from `first`), then the term frequency, as LEB128
 *   varints; 2–3 bytes an entry. Read forever (users have these blocks), no longer written.
 * - packed (marker byte 0, then the count): the entries in groups of GROUP; each group's id deltas, then
 *   its tf codes (xor USUAL_TF, so the usual one is 0), each bit-packed at the width that costs least,
 *   the values that do not fit stored apart as exceptions (patched frame of reference, as Lucene and
 *   Tantivy pack 128 documents at a time); a last, short group may instead be varints with the usual tf
 *   folded into the delta's low bit (Lucene's tail), whichever is smaller. A stream is a header byte
 *   (width, and 0x20 when exceptions follow), the values' low bits LSB first, then the exception count
 *   and, for each, its index in the group and its high bits as a varint; a folded group is the byte
 *   0xff, then per entry the varint `delta * 2 + (tf is usual)` and the tf when it is not. A value that
 *   starts 0, 0 (a count of 0) is refused: it is kept for a later codec. About 1.1 bytes an entry in
 *   full blocks of the synthetic corpus (2.07 as varints). Everything written since is packed; an old
 *   varint block becomes packed when a merge appends to it or a sweep removes from it.
 * A section's length in terms (BM25's document length) is not repeated in every posting of the section:
 * it is stored once, with the page (the page record's `lens`, the norms), and filled in by the reader
 * while decoding (schema v1/v2 stored it per entry: `decodeLegacyBlocks` still reads those during the
 * migration).
 */

import type { PostingList } from './bm25.js';

export const BLOCK_SIZE = 512;

/** A posting as the index means it: `len` is the section's length, whether or not it is stored here. */
export interface PostingEntry {
  id: number;
  tf: number;
  len: number;
}

export interface EncodedBlock {
  /** The first (smallest) chunk id in the block; part of the block's key. */
  first: number;
  /** Number of entries. */
  n: number;
  data: Uint8Array;
  /** How `data` holds the entries: absent for the varint codec (blocks stored before the packed one). */
  codec?: 'packed';
}

/** Entries a packed group holds (the last group of a block may hold fewer). */
export const GROUP = 128;
/**
 * The usual tf code, a single body occurrence (src/indexing.ts: tfCode(1, false, false, false)); packed
 * tf codes are stored xor this, so the usual one costs no bits. Part of the packed format: it must never
 * change (a block written with one value would decode wrong with another), whatever tfCode does later.
 */
export const USUAL_TF = 8;
/** Packed widths stop here (a wider value is an exception): the bit reader stays within 32 bits. */
const MAX_WIDTH = 24;
/** A stream header's flag: exceptions follow the packed values. */
const HAS_EXCEPTIONS = 0x20;
/** A group header that says: this (last, short) group is folded varints, not packed. */
const FOLDED = 0xff;
/** The first byte of a packed block's stored value (a varint block's value starts with its count, >= 1). */
const PACKED_MARKER = 0;

/** The length (in terms) of a section by chunk id: the norms, looked up while decoding. */
export type LengthOf = (id: number) => number;

const noLength: LengthOf = () => 0;

/** An entry takes at most 2 varints of 5 bytes (ids and tfs are 32-bit). */
const MAX_ENTRY_BYTES = 10;

function writeVarint(out: Uint8Array, pos: number, v: number): number {
  while (v >= 0x80) {
    out[pos++] = (v & 0x7f) | 0x80;
    v = Math.floor(v / 128);
  }
  out[pos++] = v;
  return pos;
}

function varintBytes(v: number): number {
  return v < 0x80 ? 1 : v < 0x4000 ? 2 : v < 0x20_0000 ? 3 : v < 0x1000_0000 ? 4 : v < 0x8_0000_0000 ? 5 : 6;
}

/** A cursor over varints (decoding never allocates per entry). */
class Reader {
  pos = 0;
  constructor(readonly d: Uint8Array) {}
  next(): number {
    const d = this.d;
    let v = 0;
    let shift = 1;
    let byte: number;
    do {
      byte = d[this.pos++]!;
      v += (byte & 0x7f) * shift;
      shift *= 128;
    } while (byte & 0x80);
    return v;
  }
  skip(): void {
    while (this.d[this.pos++]! & 0x80);
  }
}

/**
 * Varint codec (read only, and by the tests to make old blocks): entries[from, to) as (id delta, tf)
 * varints, deltas starting from `prev`.
 */
function encodeVarint(entries: readonly PostingEntry[], from: number, to: number, prev: number): Uint8Array {
  const buf = new Uint8Array((to - from) * MAX_ENTRY_BYTES);
  let pos = 0;
  for (let i = from; i < to; i++) {
    const e = entries[i]!;
    pos = writeVarint(buf, pos, e.id - prev);
    pos = writeVarint(buf, pos, e.tf);
    prev = e.id;
  }
  return buf.slice(0, pos);
}

/** A block in the varint codec, as blocks were stored before the packed codec (tests make old blocks with it). */
export function encodeVarintBlock(entries: readonly PostingEntry[], first = entries[0]?.id ?? 0): EncodedBlock {
  if (!entries.length) throw new Error('empty posting block');
  if (first > entries[0]!.id) throw new Error('block key above its first entry');
  return { first, n: entries.length, data: encodeVarint(entries, 0, entries.length, first) };
}

function decodeVarintInto(block: EncodedBlock, out: PostingList, offset: number, lenOf: LengthOf): number {
  const r = new Reader(block.data);
  let id = block.first;
  for (let i = 0; i < block.n; i++) {
    id += r.next();
    out.ids[offset] = id;
    out.tfs[offset] = r.next();
    out.lens[offset] = lenOf(id);
    offset++;
  }
  return offset;
}

// ---------------------------------------------------------------------------------------------
// The packed codec.

/** Bits needed for v (0 for 0); v a uint32. */
const bitLength = (v: number): number => 32 - Math.clz32(v);

/** Scratch for the encoder: one group's values and the histogram of their bit lengths. */
const scratch = new Uint32Array(GROUP);
const scratchTf = new Uint32Array(GROUP);
const hist = new Int32Array(33);

/** Bytes a stream of `g` values takes at width `b`, from the histogram of their bit lengths. */
function streamCost(g: number, b: number, top: number): number {
  let cost = 1 + ((g * b + 7) >> 3);
  let exceptions = 0;
  for (let k = b + 1; k <= top; k++) {
    if (!hist[k]) continue;
    exceptions += hist[k]!;
    cost += hist[k]! * (1 + Math.ceil((k - b) / 7)); // index byte, then the high bits as a varint
  }
  return exceptions ? cost + 1 : cost;
}

/** The cost bestWidth found for its width. */
let bestCost = 0;

/** The width that makes `vals[0, g)` (histogram in `hist`) cost least (its cost in `bestCost`). */
function bestWidth(g: number): number {
  let best = 0;
  bestCost = Infinity;
  let top = 32;
  while (top > 0 && !hist[top]) top--;
  for (let b = 0; b <= Math.min(top, MAX_WIDTH); b++) {
    const c = streamCost(g, b, top);
    if (c < bestCost) {
      best = b;
      bestCost = c;
    }
  }
  return best;
}

function histogram(vals: Uint32Array, g: number): void {
  hist.fill(0);
  for (let i = 0; i < g; i++) hist[bitLength(vals[i]!)]!++;
}

/** Writes `vals[0, g)` at width `b`: header byte, the low bits packed LSB first, then the exceptions. */
function writeStream(out: Uint8Array, pos: number, vals: Uint32Array, g: number, b: number): number {
  let exceptions = 0;
  for (let i = 0; i < g; i++) if (bitLength(vals[i]!) > b) exceptions++;
  out[pos++] = b | (exceptions ? HAS_EXCEPTIONS : 0);
  const mask = b === 0 ? 0 : 0xffffffff >>> (32 - b);
  let acc = 0;
  let have = 0;
  for (let i = 0; i < g && b; i++) {
    acc |= (vals[i]! & mask) << have;
    have += b;
    while (have >= 8) {
      out[pos++] = acc & 0xff;
      acc >>>= 8;
      have -= 8;
    }
  }
  if (have > 0) out[pos++] = acc & 0xff;
  if (exceptions) {
    out[pos++] = exceptions;
    for (let i = 0; i < g; i++) {
      const v = vals[i]!;
      if (bitLength(v) <= b) continue;
      out[pos++] = i;
      pos = writeVarint(out, pos, Math.floor(v / 2 ** b));
    }
  }
  return pos;
}

/**
 * Reads a stream without exceptions into `out[at, at + g)`: as running sums from `base` (`sum` 1: id
 * deltas), or each value xor `base` (`sum` 0: tf codes).
 */
function unpackPlain(d: Uint8Array, pos: number, out: Uint32Array, at: number, g: number, base: number, sum: number): number {
  const b = d[pos++]! & 0x1f;
  const end = at + g;
  if (b === 0) {
    out.fill(base, at, end);
    return pos;
  }
  const mask = 0xffffffff >>> (32 - b);
  let acc = 0;
  let have = 0;
  if (sum) {
    let id = base;
    for (let i = at; i < end; i++) {
      while (have < b) {
        acc |= d[pos++]! << have;
        have += 8;
      }
      out[i] = id += acc & mask;
      acc >>>= b;
      have -= b;
    }
  } else {
    for (let i = at; i < end; i++) {
      while (have < b) {
        acc |= d[pos++]! << have;
        have += 8;
      }
      out[i] = (acc & mask) ^ base;
      acc >>>= b;
      have -= b;
    }
  }
  return pos;
}

/**
 * Reads a stream of `g` values written by writeStream into `out[at, at + g)`. The block's layout was
 * checked when it was read (`packedLayout`), so this does no bounds checks of its own.
 */
function readStream(d: Uint8Array, pos: number, out: Uint32Array, at: number, g: number): number {
  const h = d[pos++]!;
  const b = h & 0x1f;
  if (b === 0) out.fill(0, at, at + g);
  else {
    const mask = 0xffffffff >>> (32 - b);
    let acc = 0;
    let have = 0;
    for (let i = at, end = at + g; i < end; i++) {
      while (have < b) {
        acc |= d[pos++]! << have;
        have += 8;
      }
      out[i] = acc & mask;
      acc >>>= b;
      have -= b;
    }
  }
  if (h & HAS_EXCEPTIONS) {
    const count = d[pos++]!;
    const scale = 2 ** b;
    for (let k = 0; k < count; k++) {
      const i = at + d[pos++]!;
      let v = 0;
      let shift = 1;
      let byte: number;
      do {
        byte = d[pos++]!;
        v += (byte & 0x7f) * shift;
        shift *= 128;
      } while (byte & 0x80);
      out[i] = out[i]! + v * scale;
    }
  }
  return pos;
}

/** Bytes folded varints of ids/tfs[from, to) take (the usual tf in the delta's low bit). */
function foldedCost(ids: Uint32Array, tfs: Uint32Array, from: number, to: number, prev: number): number {
  let n = 1;
  for (let i = from; i < to; i++) {
    const usual = tfs[i] === USUAL_TF;
    n += varintBytes((ids[i]! - prev) * 2 + (usual ? 1 : 0)) + (usual ? 0 : varintBytes(tfs[i]!));
    prev = ids[i]!;
  }
  return n;
}

/**
 * Where a block is encoded before its bytes are copied out. Per group at most: two stream headers,
 * GROUP values of MAX_WIDTH bits each, exception counts, and every value an exception (index byte and a
 * 5-byte varint) — or folded varints (11 bytes an entry).
 */
const encodeBuffer = new Uint8Array((BLOCK_SIZE / GROUP) * 4 + BLOCK_SIZE * (2 * (MAX_WIDTH / 8) + 12) + 8);

/**
 * The entries ids/tfs[from, n) in the packed codec (`from` a multiple of GROUP), deltas from `prev` (the
 * block's key for its first entry, else the entry before `from`).
 */
function encodePacked(ids: Uint32Array, tfs: Uint32Array, from: number, n: number, prev: number): Uint8Array {
  const buf = encodeBuffer;
  let pos = 0;
  for (let s = from; s < n; s += GROUP) {
    const g = Math.min(GROUP, n - s);
    let p = prev;
    for (let i = 0; i < g; i++) {
      const id = ids[s + i]!;
      scratch[i] = id - p;
      scratchTf[i] = (tfs[s + i]! ^ USUAL_TF) >>> 0;
      p = id;
    }
    histogram(scratch, g);
    const bd = bestWidth(g);
    const costD = bestCost;
    histogram(scratchTf, g);
    const bt = bestWidth(g);
    const costT = bestCost;
    if (g < GROUP && foldedCost(ids, tfs, s, s + g, prev) < costD + costT) {
      buf[pos++] = FOLDED;
      for (let i = s; i < s + g; i++) {
        const usual = tfs[i] === USUAL_TF;
        pos = writeVarint(buf, pos, (ids[i]! - prev) * 2 + (usual ? 1 : 0));
        if (!usual) pos = writeVarint(buf, pos, tfs[i]!);
        prev = ids[i]!;
      }
      continue;
    }
    pos = writeStream(buf, pos, scratch, g, bd);
    pos = writeStream(buf, pos, scratchTf, g, bt);
    prev = p;
  }
  return buf.slice(0, pos);
}

/** Where a block's entries are staged to be encoded (a block holds at most BLOCK_SIZE). */
const staged = emptyList(BLOCK_SIZE);

/** Stages entries[from, to) at `at`; throws unless ids ascend (from `after`) and fit uint32, tfs too. */
function stage(entries: readonly PostingEntry[], from: number, to: number, at: number, after: number): void {
  for (let i = from; i < to; i++, at++) {
    const e = entries[i]!;
    if (!(e.id > after && e.id <= 0xffff_ffff && e.tf >= 0 && e.tf <= 0xffff_ffff)) throw new Error(e.id <= after ? 'posting ids must grow' : 'posting out of range');
    staged.ids[at] = after = e.id;
    staged.tfs[at] = e.tf;
  }
}

/**
 * Walks a packed block's layout without decoding it: every header, width, exception index and varint
 * inside the data, every group where it should be, nothing after the last. Throws when it is not.
 * With `groups`, stops before that group and returns where it starts (an append re-encodes from there).
 */
function packedLayout(d: Uint8Array, n: number, groups = -1): number {
  const end = d.length;
  let pos = 0;
  for (let left = n, k = 0; left > 0; left -= GROUP, k++) {
    if (k === groups) return pos;
    const g = Math.min(GROUP, left);
    if (pos >= end) throw malformed('truncated');
    if (d[pos] === FOLDED) {
      if (left > GROUP) throw malformed('folded group before the last');
      pos++;
      for (let i = 0; i < g; i++) {
        const usual = d[pos]! & 1; // a varint's low bit is its first byte's
        pos = skipVarint(d, pos);
        if (!usual) pos = skipVarint(d, pos);
      }
      continue;
    }
    for (let stream = 0; stream < 2; stream++) {
      if (pos >= end) throw malformed('truncated');
      const h = d[pos++]!;
      const b = h & 0x1f;
      if (b > MAX_WIDTH || (h & ~(0x1f | HAS_EXCEPTIONS)) !== 0) throw malformed(`stream header ${h}`);
      pos += (g * b + 7) >> 3;
      if (pos > end) throw malformed('truncated');
      if (h & HAS_EXCEPTIONS) {
        if (pos >= end) throw malformed('truncated');
        const count = d[pos++]!;
        if (count < 1 || count > g) throw malformed(`exception count ${count}`);
        for (let e = 0; e < count; e++) {
          if (pos >= end) throw malformed('truncated');
          if (d[pos++]! >= g) throw malformed('exception index');
          pos = skipVarint(d, pos);
        }
      }
    }
  }
  if (groups < 0 && pos !== end) throw malformed(`${end - pos} bytes after the last group`);
  return pos;
}

function malformed(why: string): Error {
  return new Error(`malformed posting block (${why})`);
}

/** Past the varint at `pos` (at most 5 bytes, all inside `d`). */
function skipVarint(d: Uint8Array, pos: number): number {
  for (let k = 0; k < 5; k++) {
    if (pos >= d.length) throw malformed('truncated');
    if (!(d[pos++]! & 0x80)) return pos;
  }
  throw malformed('varint too long');
}

function decodePackedInto(block: EncodedBlock, out: PostingList, offset: number, lenOf: LengthOf): number {
  const d = block.data;
  let pos = 0;
  let id = block.first;
  const ids = out.ids;
  const tfs = out.tfs;
  for (let left = block.n; left > 0; left -= GROUP) {
    const g = Math.min(GROUP, left);
    const end = offset + g;
    if (d[pos] === FOLDED) {
      const r = new Reader(d);
      r.pos = pos + 1;
      for (let i = offset; i < end; i++) {
        const x = r.next();
        id += Math.floor(x / 2);
        ids[i] = id;
        tfs[i] = x % 2 ? USUAL_TF : r.next();
      }
      pos = r.pos;
    } else {
      // The usual group has no exceptions: its ids summed and its tf codes restored as they are unpacked.
      if (d[pos]! & HAS_EXCEPTIONS) {
        pos = readStream(d, pos, ids, offset, g);
        for (let i = offset; i < end; i++) ids[i] = id += ids[i]!;
      } else {
        pos = unpackPlain(d, pos, ids, offset, g, id, 1);
        id = ids[end - 1]!;
      }
      if (d[pos]! & HAS_EXCEPTIONS) {
        pos = readStream(d, pos, tfs, offset, g);
        for (let i = offset; i < end; i++) tfs[i] = (tfs[i]! ^ USUAL_TF) >>> 0;
      } else pos = unpackPlain(d, pos, tfs, offset, g, USUAL_TF, 0);
    }
    offset = end;
  }
  for (let i = offset - block.n; i < offset; i++) out.lens[i] = lenOf(ids[i]!);
  return offset;
}

/** `first` may be below the first entry's id (a block keeps its key when its first entry is removed). */
export function encodeBlock(entries: readonly PostingEntry[], first = entries[0]?.id ?? 0): EncodedBlock {
  if (!entries.length) throw new Error('empty posting block');
  if (entries.length > BLOCK_SIZE) throw new Error('posting block above BLOCK_SIZE');
  if (first > entries[0]!.id) throw new Error('block key above its first entry');
  stage(entries, 0, entries.length, 0, first - 1);
  return { first, n: entries.length, data: encodePacked(staged.ids, staged.tfs, 0, entries.length, first), codec: 'packed' };
}

/** The last (largest) chunk id in a block. */
export function lastId(block: EncodedBlock): number {
  if (block.codec === 'packed') {
    const list = emptyList(block.n);
    decodePackedInto(block, list, 0, noLength);
    return list.ids[block.n - 1]!;
  }
  const r = new Reader(block.data);
  let id = block.first;
  for (let i = 0; i < block.n; i++) {
    id += r.next();
    r.skip(); // tf
  }
  return id;
}

/** Decodes into `out` at `offset` (lengths from `lenOf`); returns the new offset. */
export function decodeInto(block: EncodedBlock, out: PostingList, offset: number, lenOf: LengthOf = noLength): number {
  return block.codec === 'packed' ? decodePackedInto(block, out, offset, lenOf) : decodeVarintInto(block, out, offset, lenOf);
}

export function decodeBlock(block: EncodedBlock, lenOf: LengthOf = noLength): PostingEntry[] {
  const list = emptyList(block.n);
  decodeInto(block, list, 0, lenOf);
  const out: PostingEntry[] = [];
  for (let i = 0; i < block.n; i++) out.push({ id: list.ids[i]!, tf: list.tfs[i]!, len: list.lens[i]! });
  return out;
}

export function emptyList(n: number): PostingList {
  return { ids: new Uint32Array(n), tfs: new Uint32Array(n), lens: new Uint32Array(n) };
}

/** Concatenates a term's blocks (in key order, i.e. ascending ids) into one posting list. */
export function decodeBlocks(blocks: readonly EncodedBlock[], lenOf: LengthOf = noLength): PostingList {
  let n = 0;
  for (const b of blocks) n += b.n;
  const list = emptyList(n);
  let off = 0;
  for (const b of blocks) off = decodeInto(b, list, off, lenOf);
  return list;
}

/**
 * Appends entries (ids all greater than the block's) to a term's last block. Returns the blocks to
 * write: the updated last block (same key) and any new blocks once it is full. A packed last block
 * keeps the bytes of its full groups; its short last group is encoded again with the new entries (a
 * varint block is encoded again whole, once), so the result is byte for byte what encoding all its
 * entries in one go gives, and an append costs the new postings and at most GROUP - 1 old ones.
 */
export function appendToBlock(last: EncodedBlock | undefined, entries: readonly PostingEntry[]): EncodedBlock[] {
  const out: EncodedBlock[] = [];
  let i = 0;
  if (last) {
    i = Math.min(Math.max(0, BLOCK_SIZE - last.n), entries.length);
    if (!i) out.push(last);
    else {
      decodeInto(last, staged, 0);
      stage(entries, 0, i, last.n, staged.ids[last.n - 1]!);
      // A packed block's full groups do not change: only its last, short group is encoded again, with
      // the new entries (what encoding the whole block gives: groups are encoded one by one).
      const keep = last.codec === 'packed' ? Math.floor(last.n / GROUP) : 0;
      const head = keep ? last.data.subarray(0, packedLayout(last.data, last.n, keep)) : null;
      const rest = encodePacked(staged.ids, staged.tfs, keep * GROUP, last.n + i, keep ? staged.ids[keep * GROUP - 1]! : last.first);
      let data = rest;
      if (head) {
        data = new Uint8Array(head.length + rest.length);
        data.set(head);
        data.set(rest, head.length);
      }
      out.push({ first: last.first, n: last.n + i, data, codec: 'packed' });
    }
    if (i < entries.length && entries[i]!.id <= (i ? entries[i - 1]!.id : lastId(last))) throw new Error('posting ids must grow');
  }
  for (; i < entries.length; i += BLOCK_SIZE) {
    if (i && entries[i]!.id <= entries[i - 1]!.id) throw new Error('posting ids must grow');
    out.push(encodeBlock(entries.slice(i, Math.min(entries.length, i + BLOCK_SIZE))));
  }
  return out;
}

/** Removes the entries whose id `drop` says; null when the block becomes empty, the block itself when nothing went. */
export function removeFromBlock(block: EncodedBlock, drop: ReadonlySet<number> | ((id: number) => boolean)): EncodedBlock | null {
  const gone = typeof drop === 'function' ? drop : (id: number) => drop.has(id);
  const all = decodeBlock(block);
  const kept = all.filter((e) => !gone(e.id));
  if (kept.length === all.length) return block;
  if (!kept.length) return null;
  // Keep the block's key (its `first`) stable even if the first entry went: the key only has to be
  // <= every id in the block for lookups by "greatest first <= id" to find it.
  return encodeBlock(kept, block.first);
}

/**
 * A block as stored (schema v3): a packed block is the marker byte 0, then the entry count, then the
 * groups; a varint block (as stored before) the entry count, then the entries. The first id lives in
 * the key.
 */
export function blockValue(block: EncodedBlock): Uint8Array {
  const packed = block.codec === 'packed' ? 1 : 0;
  const out = new Uint8Array(packed + varintBytes(block.n) + block.data.length);
  if (packed) out[0] = PACKED_MARKER;
  const pos = writeVarint(out, packed, block.n);
  out.set(block.data, pos);
  return out;
}

/**
 * Reads a stored block back in either codec (no copy: `data` is a view of `value`). Throws on a
 * malformed value: a packed block's layout is walked whole here, so decoding it needs no checks.
 */
export function blockFromValue(first: number, value: Uint8Array): EncodedBlock {
  if (!(value instanceof Uint8Array) || value.length === 0) throw new Error('malformed posting block');
  const packed = value[0] === PACKED_MARKER;
  const r = new Reader(value);
  r.pos = packed ? 1 : 0;
  if (r.pos >= value.length || value.length - r.pos > 1 << 20) throw new Error(`malformed posting block (${value.length} bytes)`);
  const n = r.next();
  if (!(n >= 1 && n <= BLOCK_SIZE)) throw new Error(`malformed posting block (n ${n}, ${value.length} bytes)`);
  const data = value.subarray(r.pos);
  if (packed) {
    packedLayout(data, n);
    return { first, n, data, codec: 'packed' };
  }
  // Every varint entry takes at least 2 bytes; a header that says otherwise would make decoding
  // allocate whatever `n` claims (or read garbage past the end).
  if (n * 2 > data.length) throw new Error(`malformed posting block (n ${n}, ${value.length} bytes)`);
  return { first, n, data };
}

// ---------------------------------------------------------------------------------------------
// Legacy blocks (schema v1/v2): entries were (id delta, tf, len). Read only while migrating.

export function decodeLegacyInto(block: EncodedBlock, out: PostingList, offset: number): number {
  const r = new Reader(block.data);
  let id = block.first;
  for (let i = 0; i < block.n; i++) {
    id += r.next();
    out.ids[offset] = id;
    out.tfs[offset] = r.next();
    out.lens[offset] = r.next();
    offset++;
  }
  return offset;
}

export function decodeLegacyBlocks(blocks: readonly EncodedBlock[]): PostingList {
  let n = 0;
  for (const b of blocks) n += b.n;
  const list = emptyList(n);
  let off = 0;
  for (const b of blocks) off = decodeLegacyInto(b, list, off);
  return list;
}

export function decodeLegacyBlock(block: EncodedBlock): PostingEntry[] {
  const list = decodeLegacyBlocks([block]);
  return Array.from(list.ids, (id, i) => ({ id, tf: list.tfs[i]!, len: list.lens[i]! }));
}

// ---------------------------------------------------------------------------------------------
// Segments: the postings of one write (a page, or a batch of pages), terms as strings, ids relative to
// the segment's first id. Written in the capture's transaction; merged into the blocks later.

export interface EncodedSegment {
  /** The terms, in the order their lists appear in `d`. */
  t: string[];
  /** For each term: entry count, then (id delta, tf) varints, ids relative to the segment's base. */
  d: Uint8Array;
}

/** `byTerm`: entries sorted by id, ids >= base. */
export function encodeSegment(byTerm: ReadonlyMap<string, readonly PostingEntry[]>, base: number): EncodedSegment {
  let size = 0;
  for (const list of byTerm.values()) size += 5 + list.length * MAX_ENTRY_BYTES;
  const buf = new Uint8Array(size);
  let pos = 0;
  const terms: string[] = [];
  for (const [term, list] of byTerm) {
    if (!list.length) continue;
    terms.push(term);
    pos = writeVarint(buf, pos, list.length);
    let prev = base;
    for (const e of list) {
      if (e.id < prev) throw new Error('segment ids must grow');
      pos = writeVarint(buf, pos, e.id - prev);
      pos = writeVarint(buf, pos, e.tf);
      prev = e.id;
    }
  }
  return { t: terms, d: buf.slice(0, pos) };
}

/** Calls `onTerm` with each term's entries (absolute ids, lengths from `lenOf`). Throws on malformed data. */
export function decodeSegment(seg: EncodedSegment, base: number, onTerm: (term: string, entries: PostingEntry[]) => void, lenOf: LengthOf = noLength): void {
  if (!Array.isArray(seg.t) || !(seg.d instanceof Uint8Array)) throw new Error('malformed segment');
  const r = new Reader(seg.d);
  for (const term of seg.t) {
    if (r.pos >= seg.d.length) throw new Error('malformed segment (truncated)');
    const n = r.next();
    if (n * 2 > seg.d.length - r.pos) throw new Error('malformed segment (count)');
    const out: PostingEntry[] = new Array(n);
    let id = base;
    for (let i = 0; i < n; i++) {
      id += r.next();
      out[i] = { id, tf: r.next(), len: lenOf(id) };
    }
    onTerm(term, out);
  }
  if (r.pos !== seg.d.length) throw new Error('malformed segment (trailing bytes)');
}

/**
 * One posting list for several terms that are one word (a word and its inflected forms, src/variants.ts):
 * each section once, its body counts added and its field bits joined (src/indexing.ts `tfCode`: body
 * count * 8 + field bits), so BM25 scores the word as if the index had stemmed it: a section saying
 * "Akkord" and "Akkorde" counts the word twice, not two words once each. The lists are sorted by id
 * and merged two at a time.
 */
export function mergeLists(lists: readonly PostingList[]): PostingList {
  let out: PostingList = emptyList(0);
  for (const l of lists) out = mergeTwo(out, l);
  return out;
}

function mergeTwo(a: PostingList, b: PostingList): PostingList {
  if (!b.ids.length) return a;
  if (!a.ids.length) return b;
  const out = emptyList(a.ids.length + b.ids.length);
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.ids.length || j < b.ids.length) {
    const x = i < a.ids.length ? a.ids[i]! : Infinity;
    const y = j < b.ids.length ? b.ids[j]! : Infinity;
    if (x < y) {
      out.ids[n] = x;
      out.tfs[n] = a.tfs[i]!;
      out.lens[n] = a.lens[i++]!;
    } else if (y < x) {
      out.ids[n] = y;
      out.tfs[n] = b.tfs[j]!;
      out.lens[n] = b.lens[j++]!;
    } else {
      const p = a.tfs[i]!;
      const q = b.tfs[j++]!;
      out.ids[n] = x;
      out.tfs[n] = (Math.floor(p / 8) + Math.floor(q / 8)) * 8 + ((p | q) & 7);
      out.lens[n] = a.lens[i++]!;
    }
    n++;
  }
  return { ids: out.ids.subarray(0, n), tfs: out.tfs.subarray(0, n), lens: out.lens.subarray(0, n) };
}
