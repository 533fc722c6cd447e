/**
 * Posting blocks: how one term's postings are cut and encoded for storage.
 *
 * A term's postings are stored as blocks keyed by (term, first chunk id in the block), each holding up
 * to BLOCK_SIZE entries sorted by chunk id. Chunk ids only grow, so a new chunk is always appended to
 * the term's last block; deleting a chunk rewrites only the one block that holds it (found by key, no
 * scan). Adding or deleting a page therefore costs work proportional to the page, not to the index.
 *
 * Entry encoding (LEB128 varints): id delta from the previous entry (first entry: delta from `first`),
 * term frequency, chunk length. Typically 3–5 bytes an entry.
 */

import type { PostingList } from './bm25.js';

export const BLOCK_SIZE = 512;

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

/** An entry takes at most 3 varints of 5 bytes (ids, tfs and lengths are 32-bit). */
const MAX_ENTRY_BYTES = 15;

function writeVarint(out: Uint8Array, pos: number, v: number): number {
  while (v >= 0x80) {
    out[pos++] = (v & 0x7f) | 0x80;
    v = Math.floor(v / 128);
  }
  out[pos++] = v;
  return pos;
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
    pos = writeVarint(buf, pos, e.len);
    prev = e.id;
  }
  return buf.slice(0, pos);
}

/** `first` may be below the first entry's id (a block keeps its key when its first entry is deleted). */
export function encodeBlock(entries: readonly PostingEntry[], first = entries[0]?.id ?? 0): EncodedBlock {
  if (!entries.length) throw new Error('empty posting block');
  if (first > entries[0]!.id) throw new Error('block key above its first entry');
  return { first, n: entries.length, data: encodeAfter(null, entries, 0, entries.length, first) };
}

/** The last (largest) chunk id in a block: its key plus the id deltas, every third varint. */
export function lastId(block: EncodedBlock): number {
  const d = block.data;
  let pos = 0;
  let id = block.first;
  for (let i = 0; i < block.n; i++) {
    let shift = 1;
    let byte: number;
    do {
      byte = d[pos++]!;
      id += (byte & 0x7f) * shift;
      shift *= 128;
    } while (byte & 0x80);
    while (d[pos++]! & 0x80); // tf
    while (d[pos++]! & 0x80); // len
  }
  return id;
}

/** Decodes into `out` at `offset`; returns the new offset. */
export function decodeInto(block: EncodedBlock, out: PostingList, offset: number): number {
  const d = block.data;
  let pos = 0;
  let id = block.first;
  for (let i = 0; i < block.n; i++) {
    let shift = 1;
    let delta = 0;
    let byte: number;
    do {
      byte = d[pos++]!;
      delta += (byte & 0x7f) * shift;
      shift *= 128;
    } while (byte & 0x80);
    id += delta;
    let tf = 0;
    shift = 1;
    do {
      byte = d[pos++]!;
      tf += (byte & 0x7f) * shift;
      shift *= 128;
    } while (byte & 0x80);
    let len = 0;
    shift = 1;
    do {
      byte = d[pos++]!;
      len += (byte & 0x7f) * shift;
      shift *= 128;
    } while (byte & 0x80);
    out.ids[offset] = id;
    out.tfs[offset] = tf;
    out.lens[offset] = len;
    offset++;
  }
  return offset;
}

export function decodeBlock(block: EncodedBlock): PostingEntry[] {
  const list = emptyList(block.n);
  decodeInto(block, list, 0);
  const out: PostingEntry[] = [];
  for (let i = 0; i < block.n; i++) out.push({ id: list.ids[i]!, tf: list.tfs[i]!, len: list.lens[i]! });
  return out;
}

export function emptyList(n: number): PostingList {
  return { ids: new Uint32Array(n), tfs: new Uint32Array(n), lens: new Uint32Array(n) };
}

/** Concatenates a term's blocks (in key order, i.e. ascending ids) into one posting list. */
export function decodeBlocks(blocks: readonly EncodedBlock[]): PostingList {
  let n = 0;
  for (const b of blocks) n += b.n;
  const list = emptyList(n);
  let off = 0;
  for (const b of blocks) off = decodeInto(b, list, off);
  return list;
}

/**
 * Appends entries (ids all greater than the block's) to a term's last block. Returns the blocks to
 * write: the updated last block (same key) and any new blocks once it is full. The last block's bytes
 * are kept as they are and the new entries encoded after them (byte for byte what encoding all its
 * entries in one go gives), so a page's write costs the page's postings, not the blocks they land in.
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

/** Removes the given chunk ids from a block; null when the block becomes empty. */
export function removeFromBlock(block: EncodedBlock, ids: ReadonlySet<number>): EncodedBlock | null {
  const kept = decodeBlock(block).filter((e) => !ids.has(e.id));
  if (!kept.length) return null;
  // Keep the block's key (its `first`) stable even if the first entry went: the key only has to be
  // <= every id in the block for lookups by "greatest first <= id" to find it.
  return encodeBlock(kept, block.first);
}

/**
 * One term's posting list after a committed write: `removed` ids taken out, `added` entries (ascending
 * ids, each above every id the list keeps) appended. Returns a new list (a search in progress may hold
 * the old one), or null when `added` does not fit after what the list keeps (the caller reads the term
 * again instead). This is what lets an in-memory copy of a posting list follow the writes instead of
 * being dropped and read again from storage after every page stored.
 */
export function patchPostingList(list: PostingList, removed: readonly number[] | undefined, added: readonly PostingEntry[] | undefined): PostingList | null {
  const drop = removed?.length ? new Set(removed) : null;
  const add = added ?? [];
  let kept = list.ids.length;
  let lastKept = -1;
  if (drop) {
    kept = 0;
    for (let i = 0; i < list.ids.length; i++) {
      if (drop.has(list.ids[i]!)) continue;
      kept++;
      lastKept = list.ids[i]!;
    }
  } else if (kept) lastKept = list.ids[kept - 1]!;
  for (let j = 0; j < add.length; j++) if (add[j]!.id <= (j ? add[j - 1]!.id : lastKept)) return null;
  if (!add.length && kept === list.ids.length) return list;
  const out = emptyList(kept + add.length);
  let o = 0;
  for (let i = 0; i < list.ids.length; i++) {
    if (drop?.has(list.ids[i]!)) continue;
    out.ids[o] = list.ids[i]!;
    out.tfs[o] = list.tfs[i]!;
    out.lens[o] = list.lens[i]!;
    o++;
  }
  for (const e of add) {
    out.ids[o] = e.id;
    out.tfs[o] = e.tf;
    out.lens[o] = e.len;
    o++;
  }
  return out;
}
