/**
 * Compact vectors and the dense lane's search.
 *
 * Storage: int8 codes with one float scale per vector (v ≈ codes * scale), 4x smaller than float32.
 * Search, in two tiers:
 * - resident: while the int8 codes fit `residentBudget`, they stay in memory; a flat scan over typed
 *   arrays (exact below `coarseThreshold`, above it a coarse pass over 1-bit sign codes — Hamming
 *   distance, 32x smaller than float32 — picks candidates rescored exactly on the int8 codes);
 * - storage: beyond the budget only the sign bits and the sorted ids stay resident (52 bytes a 384-d
 *   vector: 1M vectors in ~52 MB). A Hamming pass keeps the `hamming` nearest, an asymmetric estimate
 *   (float query against the ±1 bits) keeps `rerank` of those, and their int8 codes are read from
 *   storage through a CodeReader (one read-only IndexedDB transaction, see background/vectorStore.ts)
 *   and rescored exactly.
 * Filters are the same allowed-id set as the lexical lane, applied before any scoring in both tiers.
 */
import { TopK } from './bm25.js';

export interface Quantized {
  codes: Int8Array;
  scale: number;
}

/** L2-normalises a vector; returns null for a zero or non-finite vector (absent from the dense lane). */
export function normalize(v: ArrayLike<number>): Float32Array | null {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i]! * v[i]!;
  if (!(s > 1e-12) || !Number.isFinite(s)) return null;
  const inv = 1 / Math.sqrt(s);
  const out = new Float32Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = v[i]! * inv;
  return out;
}

export function quantize(v: ArrayLike<number>): Quantized {
  let max = 0;
  for (let i = 0; i < v.length; i++) max = Math.max(max, Math.abs(v[i]!));
  const scale = max > 0 ? max / 127 : 1;
  const codes = new Int8Array(v.length);
  for (let i = 0; i < v.length; i++) codes[i] = Math.round(v[i]! / scale);
  return { codes, scale };
}

export function dequantize(q: Quantized): Float32Array {
  const out = new Float32Array(q.codes.length);
  for (let i = 0; i < out.length; i++) out[i] = q.codes[i]! * q.scale;
  return out;
}

export interface DenseHit {
  id: number;
  /** Cosine similarity with the query. */
  score: number;
}

export interface DenseSearchOptions {
  k: number;
  allowed?: ReadonlySet<number> | null;
  /** Resident tier: candidates kept by the coarse pass per requested result (only used above `coarseThreshold`). */
  rescoreFactor?: number;
  /** Storage tier: candidates kept by Hamming distance (default: n / 100, clamped to 2,000..20,000). */
  hamming?: number;
  /** Storage tier: of those, how many the asymmetric estimate sends to exact rescoring (default 400, at least 20k). */
  rerank?: number;
}

/** Where the storage tier reads int8 codes for exact rescoring. */
export interface CodeReader {
  /** The codes and scales of these ids (ascending); ids no longer stored are simply absent. */
  read(ids: readonly number[]): Promise<Map<number, { codes: Int8Array; scale: number }>>;
}

/** int8 codes kept resident up to this many bytes (48 MB: 125,000 vectors of 384 dims). */
export const DEFAULT_RESIDENT_BUDGET = 48 * 1024 * 1024;
export const DEFAULT_RERANK = 400;
export const DENSE_STORAGE_DEFAULTS = { hammingPerVector: 1 / 100, hammingMin: 2_000, hammingMax: 20_000 };

export type DenseTier = 'resident' | 'storage';

function popcount32(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/** Sign bits of int8 codes (bit i set when code i > 0), `words` 32-bit words written at out[off]. */
export function signBits(codes: ArrayLike<number>, out: Uint32Array, off: number): void {
  const words = Math.ceil(codes.length / 32);
  for (let w = 0; w < words; w++) {
    let word = 0;
    for (let j = 0; j < 32; j++) {
      const i = w * 32 + j;
      if (i < codes.length && codes[i]! > 0) word |= 1 << j;
    }
    out[off + w] = word >>> 0;
  }
}

/** Cosine of a unit query with int8 codes (the scale cancels out); NaN for zero codes (absent from the lane). */
export function cosineInt8(q: Float32Array, codes: Int8Array): number {
  let dot = 0;
  let norm = 0;
  for (let i = 0; i < codes.length; i++) {
    const c = codes[i]!;
    dot += q[i]! * c;
    norm += c * c;
  }
  return norm > 0 ? dot / Math.sqrt(norm) : Number.NaN;
}

const EXCLUDED = 0xffff;

/** Keeps the `k` slots of highest score (typed arrays, no objects: it sees thousands of pushes a query). */
class SlotHeap {
  private readonly ids: Uint32Array;
  private readonly scores: Float64Array;
  private n = 0;
  constructor(private readonly k: number) {
    this.ids = new Uint32Array(k);
    this.scores = new Float64Array(k);
  }
  push(id: number, score: number): void {
    const { ids, scores } = this;
    let i: number;
    if (this.n < this.k) {
      i = this.n++;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (scores[p]! <= score) break;
        ids[i] = ids[p]!;
        scores[i] = scores[p]!;
        i = p;
      }
    } else {
      if (score <= scores[0]!) return;
      i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= this.n) break;
        const c = l + 1 < this.n && scores[l + 1]! < scores[l]! ? l + 1 : l;
        if (scores[c]! >= score) break;
        ids[i] = ids[c]!;
        scores[i] = scores[c]!;
        i = c;
      }
    }
    ids[i] = id;
    scores[i] = score;
  }
  slots(): Uint32Array {
    return this.ids.slice(0, this.n);
  }
}

/**
 * The dense index for one model: parallel typed arrays sorted by id (chunk ids only grow, so adds
 * append), removed slots marked dead and compacted lazily, no per-vector objects (a Map of a million
 * ids alone would cost ~40 MB). Vectors are stored normalised, so the dot product is the cosine.
 *
 * Tiers: resident while `size * dim <= residentBudget` or no CodeReader is attached; once a reader is
 * attached and the codes outgrow the budget, the codes are dropped and searches read them from the
 * reader (`searchAsync`). The switch is one way for this object's life; `loadDenseIndex` picks the
 * tier afresh at each start.
 */
export class DenseIndex {
  /** Slots in use (live and dead). */
  count = 0;
  private ids: Uint32Array;
  private alive: Uint8Array;
  private codes: Int8Array | null;
  private scales: Float32Array | null;
  /** Inverse norms of the dequantised vectors (quantisation changes the norm slightly). */
  private invNorms: Float32Array | null;
  private bits: Uint32Array;
  private readonly words: number;
  private live = 0;
  private holes = 0;
  private dists: Uint16Array | null = null;
  private reader: CodeReader | null = null;
  /** Resident tier: below this many vectors, exact int8 scan; above, coarse binary pass then exact rescoring. */
  coarseThreshold = 20_000;
  /** Bytes of int8 codes kept resident before switching to the storage tier (needs a reader). */
  residentBudget = DEFAULT_RESIDENT_BUDGET;

  constructor(readonly dim: number, capacity = 1024, tier: DenseTier = 'resident') {
    capacity = Math.max(1, capacity);
    this.words = Math.ceil(dim / 32);
    this.ids = new Uint32Array(capacity);
    this.alive = new Uint8Array(capacity);
    this.bits = new Uint32Array(capacity * this.words);
    const resident = tier === 'resident';
    this.codes = resident ? new Int8Array(capacity * dim) : null;
    this.scales = resident ? new Float32Array(capacity) : null;
    this.invNorms = resident ? new Float32Array(capacity) : null;
  }

  get size(): number {
    return this.live;
  }

  get tier(): DenseTier {
    return this.codes ? 'resident' : 'storage';
  }

  /** Binary search over the sorted ids: the slot, or -(insertion point) - 1. */
  private find(id: number): number {
    let lo = 0;
    let hi = this.count - 1;
    const ids = this.ids;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = ids[mid]!;
      if (v < id) lo = mid + 1;
      else if (v > id) hi = mid - 1;
      else return mid;
    }
    return -lo - 1;
  }

  has(id: number): boolean {
    const s = this.find(id);
    return s >= 0 && this.alive[s] === 1;
  }

  /** Bytes held by the typed arrays, search scratch included. */
  get residentBytes(): number {
    let b = this.ids.byteLength + this.alive.byteLength + this.bits.byteLength + (this.dists?.byteLength ?? 0);
    if (this.codes) b += this.codes.byteLength + this.scales!.byteLength + this.invNorms!.byteLength;
    return b;
  }

  /** Attaches where codes can be read back from; switches to the storage tier if over budget. */
  attachReader(reader: CodeReader): void {
    this.reader = reader;
    this.maybeDemote();
  }

  private maybeDemote(): void {
    if (this.codes && this.reader && this.live * this.dim > this.residentBudget) {
      this.codes = null;
      this.scales = null;
      this.invNorms = null;
    }
  }

  private ensure(n: number): void {
    const cap = this.ids.length;
    if (n <= cap) return;
    // Grow by a quarter (not doubling: at a million vectors the slack is what breaks a memory budget).
    const next = Math.max(n, cap + Math.max(1024, cap >> 2));
    const grow = <T extends Uint32Array | Uint8Array | Int8Array | Float32Array>(a: T, len: number): T => {
      const b = new (a.constructor as new (len: number) => T)(len);
      b.set(a.subarray(0, Math.min(a.length, len)) as never);
      return b;
    };
    this.ids = grow(this.ids, next);
    this.alive = grow(this.alive, next);
    this.bits = grow(this.bits, next * this.words);
    if (this.codes) {
      this.codes = grow(this.codes, next * this.dim);
      this.scales = grow(this.scales!, next);
      this.invNorms = grow(this.invNorms!, next);
    }
    this.dists = null;
  }

  /** Makes (or finds) the slot for id, keeping ids sorted; returns it, marked alive. */
  private slotFor(id: number): number {
    let s = this.find(id);
    if (s >= 0) {
      if (this.alive[s] === 0) {
        // A removed id coming back: its hole is filled.
        this.alive[s] = 1;
        this.live++;
        this.holes--;
      }
      return s;
    }
    s = -s - 1;
    this.ensure(this.count + 1);
    if (s < this.count) {
      // Out-of-order add (rare: chunk ids only grow): shift the tail up one slot.
      const { dim, words } = this;
      this.ids.copyWithin(s + 1, s, this.count);
      this.alive.copyWithin(s + 1, s, this.count);
      this.bits.copyWithin((s + 1) * words, s * words, this.count * words);
      if (this.codes) {
        this.codes.copyWithin((s + 1) * dim, s * dim, this.count * dim);
        this.scales!.copyWithin(s + 1, s, this.count);
        this.invNorms!.copyWithin(s + 1, s, this.count);
      }
    }
    this.count++;
    this.ids[s] = id;
    this.alive[s] = 1;
    this.live++;
    return s;
  }

  add(id: number, codes: Int8Array, scale: number): void {
    if (codes.length !== this.dim) throw new Error(`vector of ${codes.length} dims in a ${this.dim}-dim index`);
    const s = this.slotFor(id);
    signBits(codes, this.bits, s * this.words);
    if (this.codes) {
      this.codes.set(codes, s * this.dim);
      this.scales![s] = scale;
      let norm = 0;
      for (let i = 0; i < codes.length; i++) norm += codes[i]! * codes[i]!;
      this.invNorms![s] = norm > 0 ? 1 / (Math.sqrt(norm) * scale) : 0;
    }
    this.maybeDemote();
  }

  /**
   * Adds a stored block's vectors (ids ascending, `dim` codes each, one scale each), as add() does each
   * one, but without a view per vector and, for ids past the last one (a load in id order), without
   * the search for the slot: the load's inner loop.
   */
  addBlock(ids: Uint32Array, codes: Int8Array, scales: Float32Array, skip?: (id: number) => boolean): void {
    const { dim, words } = this;
    if (codes.length !== ids.length * dim) throw new Error(`block of ${codes.length} codes for ${ids.length} vectors of ${dim} dims`);
    for (let v = 0; v < ids.length; v++) {
      const id = ids[v]!;
      if (skip?.(id)) continue;
      const base = v * dim;
      if (!this.codes || (this.count > 0 && this.ids[this.count - 1]! >= id)) {
        this.add(id, codes.subarray(base, base + dim), scales[v]!);
        continue;
      }
      this.ensure(this.count + 1);
      const s = this.count++;
      this.ids[s] = id;
      this.alive[s] = 1;
      this.live++;
      const out = this.codes;
      out.set(codes.subarray(base, base + dim), s * dim);
      let norm = 0;
      const bits = this.bits;
      let b = s * words;
      for (let w = 0; w < words; w++, b++) {
        let word = 0;
        const end = Math.min(dim, (w + 1) * 32);
        for (let i = w * 32, j = 0; i < end; i++, j++) {
          const c = codes[base + i]!;
          norm += c * c;
          if (c > 0) word |= 1 << j;
        }
        bits[b] = word >>> 0;
      }
      const scale = scales[v]!;
      this.scales![s] = scale;
      this.invNorms![s] = norm > 0 ? 1 / (Math.sqrt(norm) * scale) : 0;
      this.maybeDemote();
    }
  }

  /** Storage tier only: adds a vector by its sign bits (`words` 32-bit words), as stored coarse codes give them. */
  addBits(id: number, bits: Uint32Array): void {
    if (this.codes) throw new Error('addBits needs the storage tier (the resident tier keeps the int8 codes)');
    if (bits.length !== this.words) throw new Error(`${bits.length} words of sign bits in a ${this.dim}-dim index`);
    const s = this.slotFor(id);
    this.bits.set(bits, s * this.words);
  }

  remove(id: number): boolean {
    const s = this.find(id);
    if (s < 0 || this.alive[s] === 0) return false;
    this.alive[s] = 0;
    this.live--;
    this.holes++;
    if (this.holes > 1024 && this.holes > this.count / 4) this.compact();
    return true;
  }

  private compact(): void {
    let w = 0;
    const { dim, words } = this;
    for (let r = 0; r < this.count; r++) {
      if (this.alive[r] === 0) continue;
      if (w !== r) {
        this.ids[w] = this.ids[r]!;
        this.alive[w] = 1;
        this.bits.copyWithin(w * words, r * words, (r + 1) * words);
        if (this.codes) {
          this.codes.copyWithin(w * dim, r * dim, (r + 1) * dim);
          this.scales![w] = this.scales![r]!;
          this.invNorms![w] = this.invNorms![r]!;
        }
      }
      w++;
    }
    this.alive.fill(0, w, this.count);
    this.count = w;
    this.holes = 0;
  }

  private exact(s: number, q: Float32Array): number {
    const codes = this.codes!;
    const base = s * this.dim;
    let dot = 0;
    for (let i = 0; i < this.dim; i++) dot += q[i]! * codes[base + i]!;
    return dot * this.scales![s]! * this.invNorms![s]!;
  }

  private queryBits(query: Float32Array): Uint32Array {
    const qbits = new Uint32Array(this.words);
    for (let i = 0; i < this.dim; i++) if (query[i]! > 0) qbits[i >> 5] = (qbits[i >> 5]! | (1 << (i & 31))) >>> 0;
    return qbits;
  }

  /**
   * Resident tier search (synchronous). `query` must be L2-normalised and of this index's dimension.
   * Throws in the storage tier: use searchAsync, which works in both.
   */
  search(query: Float32Array, options: DenseSearchOptions): DenseHit[] {
    if (!this.codes) throw new Error('dense index is in the storage tier: use searchAsync');
    const { k } = options;
    const allowed = options.allowed ?? null;
    if (k <= 0 || this.live === 0) return [];
    const alive = this.alive;
    const ids = this.ids;
    const live = (s: number) => alive[s] === 1 && this.invNorms![s]! > 0 && (allowed === null || allowed.has(ids[s]!));
    const heap = new TopK(k);
    if (this.live <= this.coarseThreshold || (allowed !== null && allowed.size <= this.coarseThreshold)) {
      if (allowed !== null && allowed.size < this.live / 8) {
        for (const id of allowed) {
          const s = this.find(id);
          if (s >= 0 && live(s)) heap.push(id, this.exact(s, query));
        }
      } else for (let s = 0; s < this.count; s++) if (live(s)) heap.push(ids[s]!, this.exact(s, query));
      return heap.sorted().map((e) => ({ id: e.id, score: e.score }));
    }
    // Coarse pass: Hamming distance between sign codes, keep the best candidates.
    const qbits = this.queryBits(query);
    const nCand = Math.max(k * (options.rescoreFactor ?? 100), 100); // 100: recall@10 0.994 at 100k (20: 0.932), npm run bench
    const coarse = new TopK(nCand);
    const words = this.words;
    const bits = this.bits;
    for (let s = 0; s < this.count; s++) {
      if (!live(s)) continue;
      let dist = 0;
      const base = s * words;
      for (let w = 0; w < words; w++) dist += popcount32((bits[base + w]! ^ qbits[w]!) >>> 0);
      coarse.push(s, -dist);
    }
    for (const c of coarse.sorted()) heap.push(ids[c.id]!, this.exact(c.id, query));
    return heap.sorted().map((e) => ({ id: e.id, score: e.score }));
  }

  /**
   * Search in either tier. In the storage tier: Hamming pass over the resident sign bits, asymmetric
   * estimate, then the int8 codes of the `rerank` best read through the reader and rescored exactly.
   * Ids removed while the read was in flight are left out.
   */
  async searchAsync(query: Float32Array, options: DenseSearchOptions): Promise<DenseHit[]> {
    if (this.codes) return this.search(query, options);
    const { k } = options;
    if (k <= 0 || this.live === 0) return [];
    const rerank = Math.max(options.rerank ?? DEFAULT_RERANK, k);
    const d = DENSE_STORAGE_DEFAULTS;
    const hamming = Math.max(options.hamming ?? Math.min(d.hammingMax, Math.max(d.hammingMin, Math.round(this.live * d.hammingPerVector))), rerank);
    const ids = this.candidates(query, options.allowed ?? null, hamming, rerank);
    if (!ids.length) return [];
    const got = await this.reader!.read(ids);
    const heap = new TopK(k);
    for (const id of ids) {
      const v = got.get(id);
      if (!v || v.codes.length !== this.dim || !this.has(id)) continue;
      const score = cosineInt8(query, v.codes);
      if (!Number.isNaN(score)) heap.push(id, score);
    }
    return heap.sorted().map((e) => ({ id: e.id, score: e.score }));
  }

  /**
   * The ids (ascending) worth reading for exact rescoring: every allowed live vector if they are few,
   * else the `hamming` nearest by Hamming distance narrowed to `rerank` by the asymmetric estimate.
   */
  candidates(query: Float32Array, allowed: ReadonlySet<number> | null, hamming: number, rerank: number): number[] {
    const { words, dim, alive, ids, bits } = this;
    // The slots to consider: from the filter when it is small, else all.
    let subset: Uint32Array | null = null;
    if (allowed !== null && allowed.size < this.live / 8) {
      subset = new Uint32Array(allowed.size);
      let n = 0;
      for (const id of allowed) {
        const s = this.find(id);
        if (s >= 0 && alive[s] === 1) subset[n++] = s;
      }
      subset = subset.subarray(0, n).sort();
      if (n <= rerank) return Array.from(subset, (s) => ids[s]!);
    }
    const qb = this.queryBits(query);
    if (!this.dists || this.dists.length < this.count) this.dists = new Uint16Array(this.ids.length);
    const dists = this.dists;
    const hist = new Uint32Array(dim + 2);
    const hamOf = (s: number): number => {
      const b = s * words;
      let d = 0;
      for (let w = 0; w < words; w++) d += popcount32(bits[b + w]! ^ qb[w]!);
      return d;
    };
    let considered = 0;
    /** An unrolled pass below reads every slot, dead ones too: they are excluded after it. */
    let unrolled = false;
    if (subset) {
      for (let c = 0; c < subset.length; c++) {
        const s = subset[c]!;
        const d = hamOf(s);
        dists[s] = d;
        hist[d]!++;
      }
      considered = subset.length;
    } else if (words === 12 && allowed === null) {
      // 384 dims (the common case), unrolled: this loop is most of a storage-tier query. Dead slots
      // (holes) are excluded afterwards, so the loop itself reads nothing but the bits.
      const [q0, q1, q2, q3, q4, q5, q6, q7, q8, q9, q10, q11] = qb as unknown as number[];
      const n = this.count;
      for (let s = 0, b = 0; s < n; s++, b += 12) {
        const d =
          popcount32(bits[b]! ^ q0!) + popcount32(bits[b + 1]! ^ q1!) + popcount32(bits[b + 2]! ^ q2!) + popcount32(bits[b + 3]! ^ q3!) +
          popcount32(bits[b + 4]! ^ q4!) + popcount32(bits[b + 5]! ^ q5!) + popcount32(bits[b + 6]! ^ q6!) + popcount32(bits[b + 7]! ^ q7!) +
          popcount32(bits[b + 8]! ^ q8!) + popcount32(bits[b + 9]! ^ q9!) + popcount32(bits[b + 10]! ^ q10!) + popcount32(bits[b + 11]! ^ q11!);
        dists[s] = d;
        hist[d]!++;
      }
      considered = n;
      unrolled = true;
    } else if (words === 4 && allowed === null) {
      // 100 dims (the bundled model) and up to 128: the same unrolled pass.
      const [q0, q1, q2, q3] = qb as unknown as number[];
      const n = this.count;
      for (let s = 0, b = 0; s < n; s++, b += 4) {
        const d = popcount32(bits[b]! ^ q0!) + popcount32(bits[b + 1]! ^ q1!) + popcount32(bits[b + 2]! ^ q2!) + popcount32(bits[b + 3]! ^ q3!);
        dists[s] = d;
        hist[d]!++;
      }
      considered = n;
      unrolled = true;
    } else {
      for (let s = 0; s < this.count; s++) {
        if (alive[s] === 0 || (allowed !== null && !allowed.has(ids[s]!))) {
          dists[s] = EXCLUDED;
          continue;
        }
        const d = hamOf(s);
        dists[s] = d;
        hist[d]!++;
        considered++;
      }
    }
    if (unrolled && this.holes > 0) {
      for (let s = 0; s < this.count; s++) {
        if (alive[s] === 0) {
          hist[dists[s]!]!--;
          dists[s] = EXCLUDED;
          considered--;
        }
      }
    }
    // Threshold: the smallest distance T with at least `hamming` vectors at or under it.
    let T = 0;
    let acc = 0;
    while (T <= dim && acc + hist[T]! < hamming) acc += hist[T++]!;
    let atT = T <= dim ? Math.min(hist[T]!, hamming - acc) : 0;
    const cand = new Uint32Array(Math.min(hamming, considered));
    let nc = 0;
    const m = subset ? subset.length : this.count;
    for (let c = 0; c < m && nc < cand.length; c++) {
      const s = subset ? subset[c]! : c;
      const d = dists[s]!;
      if (d < T) cand[nc++] = s;
      else if (d === T && atT > 0) {
        cand[nc++] = s;
        atT--;
      }
    }
    let chosen: Uint32Array = cand.subarray(0, nc);
    if (nc > rerank) {
      // Asymmetric estimate: the float query against ±1 bits, a byte of bits at a time via tables.
      const nbytes = words * 4;
      const lut = new Float32Array(nbytes * 256);
      for (let byte = 0; byte < nbytes; byte++) {
        for (let v = 0; v < 256; v++) {
          let e = 0;
          for (let j = 0; j < 8; j++) {
            const i = byte * 8 + j;
            if (i < dim) e += v & (1 << j) ? query[i]! : -query[i]!;
          }
          lut[byte * 256 + v] = e;
        }
      }
      const heap = new SlotHeap(rerank);
      for (let c = 0; c < nc; c++) {
        const s = cand[c]!;
        const b = s * words;
        let est = 0;
        for (let w = 0; w < words; w++) {
          const x = bits[b + w]!;
          const o = w * 1024;
          est += lut[o + (x & 255)]! + lut[o + 256 + ((x >>> 8) & 255)]! + lut[o + 512 + ((x >>> 16) & 255)]! + lut[o + 768 + (x >>> 24)]!;
        }
        heap.push(s, est);
      }
      chosen = heap.slots().sort();
    }
    return Array.from(chosen, (s) => ids[s]!);
  }

  /** Every live vector's id and, in the resident tier, its codes and scale (for tests and recall measurements). */
  *entries(): Generator<{ id: number; codes: Int8Array; scale: number }> {
    for (let s = 0; s < this.count; s++) {
      if (this.alive[s] === 0) continue;
      yield { id: this.ids[s]!, codes: this.codes ? this.codes.slice(s * this.dim, (s + 1) * this.dim) : new Int8Array(0), scale: this.scales ? this.scales[s]! : 0 };
    }
  }

  /** Every live id, ascending. */
  *liveIds(): Generator<number> {
    for (let s = 0; s < this.count; s++) if (this.alive[s] === 1) yield this.ids[s]!;
  }
}
