/**
 * Dense-search contestants written for the benchmark: the machine's limit (one pass over the bytes),
 * a plain float32 scan (also the exact ground truth), and the prototype of a compact index that meets
 * the 1M target: resident centred sign bits (1 bit a dimension), candidates by Hamming distance,
 * re-ranked by an asymmetric estimate (float query against the sign bits), then rescored exactly on
 * int8 codes fetched from storage (or held resident, for the 100k variant).
 */
import { openSync, readSync, writeSync, closeSync, unlinkSync } from 'node:fs';
import { quantize } from '../../../src/vectors.js';
import { TypedTopK } from '../lexical/plain.js';
import type { VectorSet } from './data.js';

/**
 * The machine's limit: sums every element once (the least work that reads all the bytes). One
 * function per element type so each loop stays monomorphic.
 */
export function sumF32(a: Float32Array): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  const n = a.length - (a.length % 4);
  for (let i = 0; i < n; i += 4) {
    s0 += a[i]!;
    s1 += a[i + 1]!;
    s2 += a[i + 2]!;
    s3 += a[i + 3]!;
  }
  return s0 + s1 + s2 + s3;
}

export function sumI8(a: Int8Array): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  const n = a.length - (a.length % 4);
  for (let i = 0; i < n; i += 4) {
    s0 += a[i]!;
    s1 += a[i + 1]!;
    s2 += a[i + 2]!;
    s3 += a[i + 3]!;
  }
  return s0 + s1 + s2 + s3;
}

export function sumU32(a: Uint32Array): number {
  let s0 = 0;
  let s1 = 0;
  const n = a.length - (a.length % 2);
  for (let i = 0; i < n; i += 2) {
    s0 += a[i]!;
    s1 += a[i + 1]!;
  }
  return s0 + s1;
}

/** Exact top-k by dot product (rows are unit length, so this is the cosine). */
export function floatScan(set: VectorSet, q: Float32Array, heap: TypedTopK): { id: number; score: number }[] {
  const { data, dim, n } = set;
  heap.reset();
  for (let r = 0, o = 0; r < n; r++, o += dim) {
    let d0 = 0;
    let d1 = 0;
    let d2 = 0;
    let d3 = 0;
    for (let i = 0; i < dim; i += 4) {
      d0 += q[i]! * data[o + i]!;
      d1 += q[i + 1]! * data[o + i + 1]!;
      d2 += q[i + 2]! * data[o + i + 2]!;
      d3 += q[i + 3]! * data[o + i + 3]!;
    }
    heap.push(r, d0 + d1 + d2 + d3);
  }
  return heap.sorted();
}

function popcount32(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/** Where the exact rescoring reads int8 codes from. */
export interface CodeSource {
  /** Writes the codes of slot `s` into out, returns the factor scale / ‖dequantised‖. */
  read(s: number, out: Int8Array): number;
  /** Bytes this source keeps in memory. */
  residentBytes(): number;
  close(): void;
}

/** int8 codes held in memory (the current design's resident data). */
export class ResidentCodes implements CodeSource {
  readonly codes: Int8Array;
  readonly factors: Float32Array;
  constructor(
    readonly dim: number,
    n: number,
  ) {
    this.codes = new Int8Array(n * dim);
    this.factors = new Float32Array(n);
  }
  set(s: number, codes: Int8Array, factor: number): void {
    this.codes.set(codes, s * this.dim);
    this.factors[s] = factor;
  }
  read(s: number, out: Int8Array): number {
    out.set(this.codes.subarray(s * this.dim, (s + 1) * this.dim));
    return this.factors[s]!;
  }
  residentBytes(): number {
    return this.codes.byteLength + this.factors.byteLength;
  }
  close(): void {}
}

/**
 * int8 codes in a file, one fixed-size record a vector (codes, then the float factor), read with one
 * positioned read per candidate: storage that the OS caches, as IndexedDB's files are.
 */
export class FileCodes implements CodeSource {
  private readonly fd: number;
  private readonly rec: number;
  private readonly buf: Buffer;
  constructor(
    readonly path: string,
    readonly dim: number,
  ) {
    this.fd = openSync(path, 'w+');
    this.rec = dim + 4;
    this.buf = Buffer.alloc(this.rec);
  }
  /** Appends records in slot order. */
  writeAll(codes: Int8Array, factors: Float32Array, n: number): void {
    const chunk = 4096;
    const out = Buffer.alloc(chunk * this.rec);
    for (let s = 0; s < n; s += chunk) {
      const m = Math.min(chunk, n - s);
      for (let j = 0; j < m; j++) {
        out.set(new Uint8Array(codes.buffer, codes.byteOffset + (s + j) * this.dim, this.dim), j * this.rec);
        out.writeFloatLE(factors[s + j]!, j * this.rec + this.dim);
      }
      writeSync(this.fd, out, 0, m * this.rec, s * this.rec);
    }
  }
  read(s: number, out: Int8Array): number {
    readSync(this.fd, this.buf, 0, this.rec, s * this.rec);
    out.set(new Int8Array(this.buf.buffer, this.buf.byteOffset, this.dim));
    return this.buf.readFloatLE(this.dim);
  }
  residentBytes(): number {
    return 0;
  }
  close(): void {
    closeSync(this.fd);
    unlinkSync(this.path);
  }
}

export interface BinaryParams {
  /** Candidates kept by Hamming distance. */
  hamming: number;
  /** Of those, how many the asymmetric estimate passes on to exact rescoring (0: rescore all). */
  rerank: number;
}

/**
 * The prototype. Resident: sign bits of (v - mean) (dim / 8 bytes a vector), the slot -> id map and
 * the mean. Everything else (int8 codes for the exact pass) comes from a CodeSource.
 */
export class BinaryIndex {
  readonly words: number;
  readonly bits: Uint32Array;
  readonly ids: Uint32Array;
  readonly mean: Float32Array;
  private readonly dists: Uint16Array;
  private readonly hist: Uint32Array;
  private readonly cand: Uint32Array;
  private readonly code: Int8Array;
  private n = 0;

  constructor(
    readonly dim: number,
    capacity: number,
    mean: Float32Array,
  ) {
    this.words = Math.ceil(dim / 32);
    this.bits = new Uint32Array(capacity * this.words);
    this.ids = new Uint32Array(capacity);
    this.mean = mean;
    this.dists = new Uint16Array(capacity);
    this.hist = new Uint32Array(dim + 1);
    this.cand = new Uint32Array(capacity);
    this.code = new Int8Array(dim);
  }

  /** Resident bytes a search needs (scratch for distances included). */
  residentBytes(): number {
    return this.bits.byteLength + this.ids.byteLength + this.mean.byteLength + this.dists.byteLength;
  }

  add(id: number, v: Float32Array): void {
    const s = this.n++;
    this.ids[s] = id;
    const base = s * this.words;
    for (let w = 0; w < this.words; w++) {
      let word = 0;
      for (let j = 0; j < 32; j++) {
        const i = w * 32 + j;
        if (i < this.dim && v[i]! > this.mean[i]!) word |= 1 << j;
      }
      this.bits[base + w] = word >>> 0;
    }
  }

  search(q: Float32Array, k: number, p: BinaryParams, codes: CodeSource): { id: number; score: number }[] {
    const { words, bits, dists, hist, cand, dim } = this;
    const n = this.n;
    // Query bits against the same centring.
    const qb = new Uint32Array(words);
    for (let i = 0; i < dim; i++) if (q[i]! > this.mean[i]!) qb[i >> 5] = (qb[i >> 5]! | (1 << (i & 31))) >>> 0;
    // Pass 1: Hamming distances and their histogram (distances are small integers: no heap needed).
    hist.fill(0);
    if (words === 12) {
      const [q0, q1, q2, q3, q4, q5, q6, q7, q8, q9, q10, q11] = qb as unknown as number[];
      for (let s = 0, b = 0; s < n; s++, b += 12) {
        const d =
          popcount32(bits[b]! ^ q0!) + popcount32(bits[b + 1]! ^ q1!) + popcount32(bits[b + 2]! ^ q2!) + popcount32(bits[b + 3]! ^ q3!) +
          popcount32(bits[b + 4]! ^ q4!) + popcount32(bits[b + 5]! ^ q5!) + popcount32(bits[b + 6]! ^ q6!) + popcount32(bits[b + 7]! ^ q7!) +
          popcount32(bits[b + 8]! ^ q8!) + popcount32(bits[b + 9]! ^ q9!) + popcount32(bits[b + 10]! ^ q10!) + popcount32(bits[b + 11]! ^ q11!);
        dists[s] = d;
        hist[d]!++;
      }
    } else {
      for (let s = 0, b = 0; s < n; s++, b += words) {
        let d = 0;
        for (let w = 0; w < words; w++) d += popcount32(bits[b + w]! ^ qb[w]!);
        dists[s] = d;
        hist[d]!++;
      }
    }
    // Threshold: the smallest distance T with at least `hamming` vectors at or under it.
    let T = 0;
    let acc = 0;
    while (T <= dim && acc + hist[T]! < p.hamming) acc += hist[T++]!;
    let atT = Math.min(hist[T] ?? 0, p.hamming - acc);
    let nc = 0;
    for (let s = 0; s < n; s++) {
      const d = dists[s]!;
      if (d < T) cand[nc++] = s;
      else if (d === T && atT > 0) {
        cand[nc++] = s;
        atT--;
      }
    }
    // Pass 2 (optional): asymmetric estimate, float query against ±1 bits, via per-byte tables.
    let chosen = cand.subarray(0, nc);
    if (p.rerank > 0 && p.rerank < nc) {
      const nbytes = Math.ceil(dim / 8);
      const lut = new Float32Array(nbytes * 256);
      for (let byte = 0; byte < nbytes; byte++) {
        for (let v = 0; v < 256; v++) {
          let s = 0;
          for (let j = 0; j < 8; j++) {
            const i = byte * 8 + j;
            if (i < dim) s += v & (1 << j) ? q[i]! : -q[i]!;
          }
          lut[byte * 256 + v] = s;
        }
      }
      const heap = new TypedTopK(p.rerank);
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
      chosen = heap.ids.slice(0, heap.size);
    }
    // Pass 3: exact on int8 codes from the source.
    const top = new TypedTopK(k);
    const code = this.code;
    for (let c = 0; c < chosen.length; c++) {
      const s = chosen[c]!;
      const f = codes.read(s, code);
      let dot = 0;
      for (let i = 0; i < dim; i++) dot += q[i]! * code[i]!;
      top.push(this.ids[s]!, dot * f);
    }
    return top.sorted();
  }
}

/** int8 codes and factors (scale / ‖dequantised‖) for every row, as src/vectors.ts quantize makes them. */
export function quantizeAll(set: VectorSet): { codes: Int8Array; scales: Float32Array; factors: Float32Array } {
  const { n, dim, data } = set;
  const codes = new Int8Array(n * dim);
  const scales = new Float32Array(n);
  const factors = new Float32Array(n);
  for (let r = 0; r < n; r++) {
    const q = quantize(data.subarray(r * dim, (r + 1) * dim));
    codes.set(q.codes, r * dim);
    scales[r] = q.scale;
    let norm = 0;
    for (let i = 0; i < dim; i++) norm += q.codes[i]! * q.codes[i]!;
    factors[r] = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  }
  return { codes, scales, factors };
}

export function meanOf(set: VectorSet): Float32Array {
  const m = new Float64Array(set.dim);
  for (let r = 0, o = 0; r < set.n; r++, o += set.dim) for (let i = 0; i < set.dim; i++) m[i] = m[i]! + set.data[o + i]!;
  return Float32Array.from(m, (x) => x / set.n);
}

export function recallAt(got: readonly { id: number }[], truth: readonly { id: number }[], k: number): number {
  const t = new Set(truth.slice(0, k).map((x) => x.id));
  let hit = 0;
  for (const g of got.slice(0, k)) if (t.has(g.id)) hit++;
  return hit / Math.min(k, t.size);
}
