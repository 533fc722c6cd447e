/**
 * The lexical core's hot paths as they were before issue #9 (src/ at fd1e2da), kept only so that the
 * benchmark measures the product code beside them in one run. Not product code; nothing imports it
 * but tests/bench/lexical.ts.
 *
 * - bm25SearchBefore: a Uint32 term mask per touched chunk beside its score, and a heap of objects
 *   allocated for every touched chunk.
 * - appendToBlockBefore: decodes the term's last block into objects and re-encodes all of it.
 * - makeSnippetBefore: tokenizes every word of the chunk on its own, without the index's tokenizer
 *   options (so it did not stem: the engine passed stemmed query terms).
 */
import { DEFAULT_BM25, idf, MAX_QUERY_TERMS, type Bm25SearchOptions, type CorpusStats, type LexicalHit, type QueryTerm } from '../../../src/bm25.js';
import { BLOCK_SIZE, decodeBlock, type EncodedBlock, type PostingEntry } from '../../../src/postings.js';
import type { SnippetSegment } from '../../../src/snippet.js';
import { tokenize } from '../../../src/tokenizer.js';

// ---------------------------------------------------------------------------------------------
// src/bm25.ts

/** Reusable scratch space: allocating score arrays per query would dominate latency. */
class Scratch {
  scores = new Float64Array(1024);
  masks = new Uint32Array(1024);
  touched = new Uint32Array(1024);
  nTouched = 0;
  ensure(maxId: number, total: number): void {
    if (maxId >= this.scores.length) {
      const size = Math.max(maxId + 1, this.scores.length * 2);
      this.scores = new Float64Array(size);
      this.masks = new Uint32Array(size);
    }
    if (total > this.touched.length) this.touched = new Uint32Array(Math.max(total, this.touched.length * 2));
  }
}
const scratch = new Scratch();

/** Dense accumulation when ids are compact; a Map when they are sparse (ids far above the corpus size). */
export function bm25SearchBefore(query: readonly QueryTerm[], stats: CorpusStats, options: Bm25SearchOptions): LexicalHit[] {
  const { k1, b } = options.params ?? DEFAULT_BM25;
  const allowed = options.allowed ?? null;
  // Drop absent terms before capping, so words the index lacks do not use up the 32 mask bits.
  const terms = query.filter((q) => q.postings.ids.length > 0).slice(0, MAX_QUERY_TERMS);
  if (!terms.length || stats.N <= 0 || options.k <= 0) return [];
  const avgLen = stats.totalLength / stats.N || 1;
  let maxId = 0;
  let total = 0;
  for (const q of terms) {
    const ids = q.postings.ids;
    total += ids.length;
    if (ids[ids.length - 1]! > maxId) maxId = ids[ids.length - 1]!;
  }
  const dense = maxId < 4 * total + 65536;
  const sparseScores = dense ? null : new Map<number, number>();
  const sparseMasks = dense ? null : new Map<number, number>();
  if (dense) scratch.ensure(maxId, total);
  const { scores, masks, touched } = scratch;
  let nTouched = 0;
  const k1p1 = k1 + 1;
  const norm0 = k1 * (1 - b);
  const normL = (k1 * b) / avgLen;
  for (let t = 0; t < terms.length; t++) {
    const q = terms[t]!;
    const { ids, tfs, lens } = q.postings;
    const w = (q.weight ?? 1) * idf(stats.N, ids.length);
    const bit = 1 << t;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      if (allowed !== null && !allowed.has(id)) continue;
      const tf = tfs[i]!;
      const s = (w * tf * k1p1) / (tf + norm0 + normL * lens[i]!);
      if (dense) {
        if (masks[id] === 0) touched[nTouched++] = id;
        scores[id] = scores[id]! + s;
        masks[id] = masks[id]! | bit;
      } else {
        sparseScores!.set(id, (sparseScores!.get(id) ?? 0) + s);
        sparseMasks!.set(id, (sparseMasks!.get(id) ?? 0) | bit);
      }
    }
  }
  const heap = new TopK(options.k);
  if (dense) {
    for (let i = 0; i < nTouched; i++) {
      const id = touched[i]!;
      heap.push(id, scores[id]!, masks[id]!);
      scores[id] = 0;
      masks[id] = 0;
    }
  } else {
    for (const [id, s] of sparseScores!) heap.push(id, s, sparseMasks!.get(id)!);
  }
  return heap.sorted().map((e) => ({ id: e.id, score: e.score, terms: termsOf(e.mask, terms) }));
}

function termsOf(mask: number, terms: readonly QueryTerm[]): string[] {
  const out: string[] = [];
  for (let t = 0; t < terms.length; t++) if (mask & (1 << t)) out.push(terms[t]!.term);
  return out;
}

interface HeapEntry {
  id: number;
  score: number;
  mask: number;
}

/**
 * A bounded min-heap keeping the k best (score desc, then id asc so results are deterministic).
 */
class TopK {
  private readonly items: HeapEntry[] = [];
  constructor(private readonly k: number) {}

  private static worse(a: HeapEntry, b: HeapEntry): boolean {
    return a.score < b.score || (a.score === b.score && a.id > b.id);
  }

  push(id: number, score: number, mask = 0): void {
    const items = this.items;
    if (items.length < this.k) {
      items.push({ id, score, mask });
      let i = items.length - 1;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (!TopK.worse(items[i]!, items[p]!)) break;
        [items[i], items[p]] = [items[p]!, items[i]!];
        i = p;
      }
      return;
    }
    const root = items[0]!;
    const cand = { id, score, mask };
    if (!TopK.worse(root, cand)) return;
    items[0] = cand;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < items.length && TopK.worse(items[l]!, items[m]!)) m = l;
      if (r < items.length && TopK.worse(items[r]!, items[m]!)) m = r;
      if (m === i) break;
      [items[i], items[m]] = [items[m]!, items[i]!];
      i = m;
    }
  }

  get size(): number {
    return this.items.length;
  }

  /** Best first. */
  sorted(): HeapEntry[] {
    return [...this.items].sort((a, b) => (TopK.worse(a, b) ? 1 : TopK.worse(b, a) ? -1 : 0));
  }
}

// ---------------------------------------------------------------------------------------------
// src/postings.ts

function writeVarint(out: number[], v: number): void {
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
}

function encodeBlock(entries: readonly PostingEntry[], first = entries[0]?.id ?? 0): EncodedBlock {
  if (!entries.length) throw new Error('empty posting block');
  if (first > entries[0]!.id) throw new Error('block key above its first entry');
  const bytes: number[] = [];
  let prev = first;
  // Entries as stored today (id delta, tf: lengths moved to the norms with schema 3); the algorithm
  // around it is the one from before issue #9.
  for (const e of entries) {
    writeVarint(bytes, e.id - prev);
    writeVarint(bytes, e.tf);
    prev = e.id;
  }
  return { first, n: entries.length, data: Uint8Array.from(bytes) };
}

export function appendToBlockBefore(last: EncodedBlock | undefined, entries: readonly PostingEntry[]): EncodedBlock[] {
  const existing = last ? decodeBlock(last) : [];
  if (existing.length && entries.length && entries[0]!.id <= existing[existing.length - 1]!.id) {
    throw new Error('posting ids must grow');
  }
  const all = existing.concat(entries);
  const out: EncodedBlock[] = [];
  for (let i = 0; i < all.length; i += BLOCK_SIZE) {
    out.push(encodeBlock(all.slice(i, i + BLOCK_SIZE), i === 0 && last ? last.first : undefined));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// src/snippet.ts

const WORD = /[\p{L}\p{N}\p{M}_]+(?:(?:[.\-]|::)[\p{L}\p{N}\p{M}_]+)*/gu;

/** Splits text into segments, marking the words whose terms are among `terms`. */
function highlight(text: string, terms: ReadonlySet<string>): SnippetSegment[] {
  const out: SnippetSegment[] = [];
  let last = 0;
  for (const m of text.matchAll(WORD)) {
    const start = m.index ?? 0;
    if (!tokenize(m[0]).some((t) => terms.has(t))) continue;
    if (start > last) out.push({ text: text.slice(last, start), match: false });
    out.push({ text: m[0], match: true });
    last = start + m[0].length;
  }
  if (last < text.length) out.push({ text: text.slice(last), match: false });
  return out;
}

/**
 * The window of about `maxWords` words with the most distinct matched terms, with ellipses where it
 * was cut. Skips the heading path line (shown separately).
 */
export function makeSnippetBefore(body: string, terms: ReadonlySet<string>, maxWords = 36): SnippetSegment[] {
  const text = body.replace(/\s+/g, ' ').trim();
  const words = [...text.matchAll(/\S+/g)];
  if (words.length <= maxWords) return highlight(text, terms);
  const hits = words.map((w) => (terms.size && tokenize(w[0]).some((t) => terms.has(t)) ? 1 : 0));
  let best = 0;
  let bestStart = 0;
  let cur = 0;
  for (let i = 0; i < words.length; i++) {
    cur += hits[i]!;
    if (i >= maxWords) cur -= hits[i - maxWords]!;
    if (i >= maxWords - 1 && cur > best) {
      best = cur;
      bestStart = i - maxWords + 1;
    }
  }
  // The first window with the most matches ends on a match. Start a little before its first match
  // instead, for context, but never so early that its last match falls out of the window.
  let start = 0;
  if (best > 0) {
    let first = bestStart;
    while (!hits[first]) first++;
    let last = bestStart + maxWords - 1;
    while (!hits[last]) last--;
    start = Math.max(0, last - maxWords + 1, first - 4);
    start = Math.max(0, Math.min(start, words.length - maxWords));
  }
  const end = Math.min(words.length, start + maxWords);
  const from = words[start]!.index ?? 0;
  const lastWord = words[end - 1]!;
  const to = (lastWord.index ?? 0) + lastWord[0].length;
  const segs = highlight(text.slice(from, to), terms);
  if (start > 0) segs.unshift({ text: '… ', match: false });
  if (end < words.length) segs.push({ text: ' …', match: false });
  return segs;
}
