/**
 * The posting codec: how a term's postings are cut into blocks and encoded for storage, and how the
 * postings of one capture are packed into a segment (a small immutable delta, see background/delta.ts).
 *
 * A term's postings are stored as blocks keyed by (term id, first chunk id in the block), each holding up
 * to BLOCK_SIZE entries sorted by chunk id. Chunk ids only grow, so new postings are always appended to
 * the term's last block; a block is found by key ("greatest first <= id"), never by a scan.
 *
 * Entry encoding (LEB128 varints): id delta from the previous entry (first entry: delta from `first`),
 * then the term frequency. A section's length in terms (BM25's document length) is not repeated in
 * every posting of the section: it is stored once, with the page (the page record's `lens`, the norms),
 * and filled in by the reader while decoding. Typically 2–3 bytes an entry (4–5 with the length, as
 * schema v1/v2 stored them: `decodeLegacyBlocks` still reads those during the migration).
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
}

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
  let n = 1;
  while (v >= 0x80) {
    v = Math.floor(v / 128);
    n++;
  }
  return n;
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
 * Encodes entries[from, to) after the bytes `prefix` (deltas starting from `prev`, the id of the entry
 * before `from`). Varint deltas are append-only, so a block grows without re-encoding what it holds.
 */
function encodeAfter(prefix: Uint8Array | null, entries: readonly PostingEntry[], from: number, to: number, prev: number): Uint8Array {
  const pre = prefix ? prefix.length : 0;
  const buf = new Uint8Array(pre + (to - from) * MAX_ENTRY_BYTES);
  if (prefix) buf.set(prefix);
  let pos = pre;
  for (let i = from; i < to; i++) {
    const e = entries[i]!;
    pos = writeVarint(buf, pos, e.id - prev);
    pos = writeVarint(buf, pos, e.tf);
    prev = e.id;
  }
  return buf.slice(0, pos);
}

/** `first` may be below the first entry's id (a block keeps its key when its first entry is removed). */
export function encodeBlock(entries: readonly PostingEntry[], first = entries[0]?.id ?? 0): EncodedBlock {
  if (!entries.length) throw new Error('empty posting block');
  if (first > entries[0]!.id) throw new Error('block key above its first entry');
  return { first, n: entries.length, data: encodeAfter(null, entries, 0, entries.length, first) };
}

/** The last (largest) chunk id in a block: its key plus the id deltas. */
export function lastId(block: EncodedBlock): number {
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
 * write: the updated last block (same key) and any new blocks once it is full. The last block's bytes
 * are kept as they are and the new entries encoded after them (byte for byte what encoding all its
 * entries in one go gives), so an append costs the new postings, not the block they land in.
 */
export function appendToBlock(last: EncodedBlock | undefined, entries: readonly PostingEntry[]): EncodedBlock[] {
  const out: EncodedBlock[] = [];
  let i = 0;
  if (last) {
    const prev = lastId(last);
    if (entries.length && entries[0]!.id <= prev) throw new Error('posting ids must grow');
    i = Math.min(Math.max(0, BLOCK_SIZE - last.n), entries.length);
    out.push(i ? { first: last.first, n: last.n + i, data: encodeAfter(last.data, entries, 0, i, prev) } : last);
  }
  for (; i < entries.length; i += BLOCK_SIZE) {
    const end = Math.min(entries.length, i + BLOCK_SIZE);
    out.push({ first: entries[i]!.id, n: end - i, data: encodeAfter(null, entries, i, end, entries[i]!.id) });
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

/** A block as stored (schema v3): the entry count, then the entries; the first id lives in the key. */
export function blockValue(block: EncodedBlock): Uint8Array {
  const out = new Uint8Array(varintBytes(block.n) + block.data.length);
  const pos = writeVarint(out, 0, block.n);
  out.set(block.data, pos);
  return out;
}

/** Reads a stored block back (no copy: `data` is a view of `value`). Throws on a malformed header. */
export function blockFromValue(first: number, value: Uint8Array): EncodedBlock {
  if (!(value instanceof Uint8Array) || value.length === 0) throw new Error('malformed posting block');
  const r = new Reader(value);
  const n = r.next();
  // Every entry takes at least 2 bytes; a header that says otherwise would make decoding allocate
  // whatever `n` claims (or read garbage past the end).
  if (!(n >= 1 && n <= BLOCK_SIZE && n * 2 <= value.length - r.pos)) throw new Error(`malformed posting block (n ${n}, ${value.length} bytes)`);
  return { first, n, data: value.subarray(r.pos) };
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
