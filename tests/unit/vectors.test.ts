import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dequantize, DenseIndex, normalize, quantize, type CodeReader, type DenseHit } from '../../src/vectors.js';

/** Deterministic PRNG (mulberry32) and a normal sample, for data too big for fast-check to shrink. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
function gaussian(r: () => number): number {
  return Math.sqrt(-2 * Math.log(r() + 1e-12)) * Math.cos(2 * Math.PI * r());
}

function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return dot / Math.sqrt(na * nb);
}

/** Brute force over the dequantised vectors: what the index's exact scan should return. */
function bruteForce(stored: Map<number, Float32Array>, q: Float32Array, k: number, allowed: ReadonlySet<number> | null = null): DenseHit[] {
  return [...stored]
    .filter(([id, v]) => (allowed === null || allowed.has(id)) && v.some((x) => x !== 0))
    .map(([id, v]) => ({ id, score: cosine(q, v) }))
    .sort((a, b) => b.score - a.score || a.id - b.id)
    .slice(0, k);
}

/** Same results up to float rounding: scores position by position, and each id's own score. */
function expectSameHits(got: DenseHit[], want: DenseHit[], all: Map<number, Float32Array>, q: Float32Array) {
  expect(got.length).toBe(want.length);
  for (let i = 0; i < got.length; i++) {
    expect(Math.abs(got[i]!.score - want[i]!.score)).toBeLessThan(1e-5);
    expect(Math.abs(got[i]!.score - cosine(q, all.get(got[i]!.id)!))).toBeLessThan(1e-5);
  }
  expect(new Set(got.map((h) => h.id)).size).toBe(got.length);
}

describe('normalize', () => {
  it('returns a unit vector', () => {
    const n = normalize([3, 4])!;
    expect(n[0]).toBeCloseTo(0.6, 6);
    expect(n[1]).toBeCloseTo(0.8, 6);
  });

  it('returns null for zero, empty and non-finite vectors', () => {
    expect(normalize([0, 0, 0])).toBeNull();
    expect(normalize([])).toBeNull();
    expect(normalize([1, Number.NaN])).toBeNull();
    expect(normalize([1, Number.POSITIVE_INFINITY])).toBeNull();
    expect(normalize([1e-300, 0])).toBeNull();
  });
});

describe('quantize / dequantize', { timeout: 30_000 }, () => {
  const vec = fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 1, maxLength: 256 });

  it('keeps every component within half a step, codes in [-127, 127] (property)', () => {
    fc.assert(
      fc.property(vec, (v) => {
        const q = quantize(v);
        const d = dequantize(q);
        for (let i = 0; i < v.length; i++) {
          expect(Math.abs(q.codes[i]!)).toBeLessThanOrEqual(127);
          expect(Math.abs(d[i]! - v[i]!)).toBeLessThanOrEqual(q.scale / 2 + 1e-7);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('keeps the direction of a normalised vector', () => {
    // Worst case: every component off by half a step of max/127, so |error| <= sqrt(dim) * max / 254.
    fc.assert(
      fc.property(fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 16, maxLength: 256 }), (v) => {
        const n = normalize(v);
        if (!n) return;
        expect(cosine(n, dequantize(quantize(n)))).toBeGreaterThan(0.995);
      }),
      { numRuns: 500 },
    );
    // Typical embeddings lose far less.
    const r = rng(1);
    for (let i = 0; i < 50; i++) {
      const n = normalize(Array.from({ length: 384 }, () => gaussian(r)))!;
      expect(cosine(n, dequantize(quantize(n)))).toBeGreaterThan(0.9999);
    }
  });

  it('maps the zero vector to zero codes', () => {
    const q = quantize([0, 0]);
    expect([...q.codes]).toEqual([0, 0]);
    expect(q.scale).toBeGreaterThan(0);
  });
});

describe('DenseIndex exact search', { timeout: 30_000 }, () => {
  const DIM = 12;
  const vecArb = fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: DIM, maxLength: DIM }).filter((v) => normalize(v) !== null);

  it('equals brute force over the dequantised vectors (property)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 100_000 }), { minLength: 1, maxLength: 80 }).chain((ids) => fc.tuple(fc.constant(ids), fc.array(vecArb, { minLength: ids.length, maxLength: ids.length }))),
        vecArb,
        fc.integer({ min: 1, max: 30 }),
        fc.boolean(),
        ([ids, vecs], qv, k, filter) => {
          const index = new DenseIndex(DIM, 4);
          const stored = new Map<number, Float32Array>();
          ids.forEach((id, i) => {
            const q = quantize(normalize(vecs[i]!)!);
            index.add(id, q.codes, q.scale);
            stored.set(id, dequantize(q));
          });
          const allowed = filter ? new Set(ids.filter((_, i) => i % 2 === 0)) : null;
          const q = normalize(qv)!;
          expectSameHits(index.search(q, { k, allowed }), bruteForce(stored, q, k, allowed), stored, q);
          expect(index.size).toBe(ids.length);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('re-adding an id replaces its vector', () => {
    const index = new DenseIndex(2);
    const a = quantize([1, 0]);
    const b = quantize([0, 1]);
    index.add(1, a.codes, a.scale);
    index.add(1, b.codes, b.scale);
    expect(index.size).toBe(1);
    const [hit] = index.search(new Float32Array([0, 1]), { k: 5 });
    expect(hit!.id).toBe(1);
    expect(hit!.score).toBeCloseTo(1, 5);
    expect([...index.entries()]).toHaveLength(1);
  });

  it('refuses a vector of the wrong dimension', () => {
    expect(() => new DenseIndex(3).add(1, new Int8Array(2), 1)).toThrow();
  });

  it('keeps results right through removes and compaction', () => {
    const r = rng(7);
    const DIMS = 16;
    const index = new DenseIndex(DIMS, 8);
    const stored = new Map<number, Float32Array>();
    const put = (id: number) => {
      const q = quantize(normalize(Array.from({ length: DIMS }, () => gaussian(r)))!);
      index.add(id, q.codes, q.scale);
      stored.set(id, dequantize(q));
    };
    for (let id = 1; id <= 5000; id++) put(id);
    const bytesBefore = index.residentBytes;
    // Remove 4000 (compaction runs once holes pass 1024 and a quarter of the slots).
    for (let id = 1; id <= 5000; id++) {
      if (id % 5 !== 0) {
        expect(index.remove(id)).toBe(true);
        stored.delete(id);
      }
    }
    expect(index.remove(1)).toBe(false);
    expect(index.size).toBe(1000);
    expect(index.count).toBeLessThan(5000); // compacted
    expect(index.has(5)).toBe(true);
    expect(index.has(4)).toBe(false);
    for (let i = 0; i < 20; i++) {
      const q = normalize(Array.from({ length: DIMS }, () => gaussian(r)))!;
      expectSameHits(index.search(q, { k: 10 }), bruteForce(stored, q, 10), stored, q);
    }
    // Removed ids come back cleanly.
    for (let id = 1; id <= 300; id++) put(id);
    expect(index.size).toBe(1000 + 300 - 60);
    const q = normalize(Array.from({ length: DIMS }, () => gaussian(r)))!;
    expectSameHits(index.search(q, { k: 25 }), bruteForce(stored, q, 25), stored, q);
    expect(new Set([...index.entries()].map((e) => e.id))).toEqual(new Set(stored.keys()));
    expect(index.residentBytes).toBeLessThanOrEqual(bytesBefore);
  });

  it('returns nothing for k <= 0 or an empty index', () => {
    const index = new DenseIndex(2);
    expect(index.search(new Float32Array([1, 0]), { k: 3 })).toEqual([]);
    const a = quantize([1, 0]);
    index.add(1, a.codes, a.scale);
    expect(index.search(new Float32Array([1, 0]), { k: 0 })).toEqual([]);
  });
});

describe('DenseIndex coarse path', () => {
  it('has recall@10 >= 0.95 against the exact scan on 30k clustered vectors of dim 100', { timeout: 60_000 }, () => {
    const r = rng(42);
    const DIM = 100;
    const N = 30_000;
    const centers = Array.from({ length: 200 }, () => Array.from({ length: DIM }, () => gaussian(r)));
    const index = new DenseIndex(DIM, N);
    const threshold = index.coarseThreshold;
    for (let id = 0; id < N; id++) {
      const c = centers[Math.floor(r() * centers.length)]!;
      const q = quantize(normalize(c.map((x) => x + 1.0 * gaussian(r)))!);
      index.add(id, q.codes, q.scale);
    }
    expect(index.size).toBeGreaterThan(threshold);
    let found = 0;
    const QUERIES = 60;
    for (let i = 0; i < QUERIES; i++) {
      const c = centers[Math.floor(r() * centers.length)]!;
      const q = normalize(c.map((x) => x + 0.6 * gaussian(r)))!;
      index.coarseThreshold = Number.POSITIVE_INFINITY;
      const want = new Set(index.search(q, { k: 10 }).map((h) => h.id));
      index.coarseThreshold = threshold;
      const got = index.search(q, { k: 10 });
      expect(got).toHaveLength(10);
      for (const h of got) if (want.has(h.id)) found++;
    }
    expect(found / (QUERIES * 10)).toBeGreaterThanOrEqual(0.95);
  });

  it('falls back to the exact scan when the filter is small', () => {
    const r = rng(3);
    const DIM = 8;
    const index = new DenseIndex(DIM);
    index.coarseThreshold = 100;
    const stored = new Map<number, Float32Array>();
    for (let id = 0; id < 1000; id++) {
      const q = quantize(normalize(Array.from({ length: DIM }, () => gaussian(r)))!);
      index.add(id, q.codes, q.scale);
      stored.set(id, dequantize(q));
    }
    const allowed = new Set(Array.from({ length: 50 }, (_, i) => i * 20));
    const q = normalize(Array.from({ length: DIM }, () => gaussian(r)))!;
    expectSameHits(index.search(q, { k: 10, allowed }), bruteForce(stored, q, 10, allowed), stored, q);
  });
});

/** Codes kept in a Map: the CodeReader interface over memory (the IndexedDB one is tested in tests/storage). */
class MapReader implements CodeReader {
  readonly codes = new Map<number, { codes: Int8Array; scale: number }>();
  reads = 0;
  async read(ids: readonly number[]): Promise<Map<number, { codes: Int8Array; scale: number }>> {
    this.reads++;
    await Promise.resolve();
    const out = new Map<number, { codes: Int8Array; scale: number }>();
    for (const id of ids) {
      const v = this.codes.get(id);
      if (v) out.set(id, v);
    }
    return out;
  }
}

function clustered(seed: number, dim: number, n: number, clusters: number) {
  const r = rng(seed);
  const centers = Array.from({ length: clusters }, () => Array.from({ length: dim }, () => gaussian(r)));
  const draw = (noise: number) => normalize(centers[Math.floor(r() * clusters)]!.map((x) => x + noise * gaussian(r)))!;
  return { vectors: Array.from({ length: n }, () => draw(1.0)), query: () => draw(0.6) };
}

function exactFloat(vectors: readonly Float32Array[], q: Float32Array, k: number, ids: (i: number) => number = (i) => i, allowed: ReadonlySet<number> | null = null): number[] {
  const scored: { id: number; score: number }[] = [];
  vectors.forEach((v, i) => {
    if (allowed && !allowed.has(ids(i))) return;
    let dot = 0;
    for (let j = 0; j < v.length; j++) dot += v[j]! * q[j]!;
    scored.push({ id: ids(i), score: dot });
  });
  return scored
    .sort((a, b) => b.score - a.score)
    .slice(0, k)
    .map((h) => h.id);
}

describe('DenseIndex storage tier', { timeout: 60_000 }, () => {
  it('has recall@10 >= 0.95 against exact float32 search on 40k clustered vectors of dim 128, reading codes through the reader', async () => {
    const DIM = 128;
    const { vectors, query } = clustered(11, DIM, 40_000, 300);
    const reader = new MapReader();
    const index = new DenseIndex(DIM, 1024);
    index.residentBudget = 1_000_000;
    index.attachReader(reader);
    vectors.forEach((v, id) => {
      const q = quantize(v);
      reader.codes.set(id, q);
      index.add(id, q.codes, q.scale);
    });
    expect(index.tier).toBe('storage');
    expect(index.residentBytes).toBeLessThan(40_000 * (DIM / 8 + 4 + 1 + 2) * 1.3);
    expect(() => index.search(vectors[0]!, { k: 10 })).toThrow(/searchAsync/);
    let found = 0;
    const QUERIES = 40;
    for (let i = 0; i < QUERIES; i++) {
      const q = query();
      const want = new Set(exactFloat(vectors, q, 10));
      const got = await index.searchAsync(q, { k: 10 });
      expect(got).toHaveLength(10);
      for (let j = 1; j < got.length; j++) expect(got[j]!.score).toBeLessThanOrEqual(got[j - 1]!.score);
      for (const h of got) if (want.has(h.id)) found++;
    }
    expect(found / (QUERIES * 10)).toBeGreaterThanOrEqual(0.95);
  });

  it('applies the allowed set before scoring, small or large (property)', async () => {
    const DIM = 32;
    const { vectors, query } = clustered(5, DIM, 3000, 20);
    const reader = new MapReader();
    const index = new DenseIndex(DIM);
    index.residentBudget = 0;
    index.attachReader(reader);
    const stored = new Map<number, Float32Array>();
    vectors.forEach((v, i) => {
      const id = i * 3 + 1;
      const q = quantize(v);
      reader.codes.set(id, q);
      index.add(id, q.codes, q.scale);
      stored.set(id, dequantize(q));
    });
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.integer({ min: 0, max: 9100 }), { minLength: 0, maxLength: 1500 }), fc.integer({ min: 1, max: 20 }), async (allowedIds, k) => {
        const allowed = new Set(allowedIds);
        const q = query();
        const got = await index.searchAsync(q, { k, allowed, rerank: 100, hamming: 400 });
        for (const h of got) expect(allowed.has(h.id)).toBe(true);
        const present = allowedIds.filter((id) => stored.has(id));
        expect(got.length).toBe(Math.min(k, present.length));
        // Few enough to be all rescored: exactly the brute force over the dequantised codes.
        if (present.length <= 100) expectSameHits(got, bruteForce(stored, q, k, allowed), stored, q);
      }),
      { numRuns: 60 },
    );
  });

  it('keeps add / remove / re-add consistent across the switch to the storage tier', async () => {
    const DIM = 24;
    const r = rng(9);
    const reader = new MapReader();
    const index = new DenseIndex(DIM, 4);
    index.residentBudget = 600 * DIM;
    index.attachReader(reader);
    const stored = new Map<number, Float32Array>();
    const put = (id: number) => {
      const q = quantize(normalize(Array.from({ length: DIM }, () => gaussian(r)))!);
      reader.codes.set(id, q);
      index.add(id, q.codes, q.scale);
      stored.set(id, dequantize(q));
    };
    const drop = (id: number) => {
      expect(index.remove(id)).toBe(stored.has(id));
      reader.codes.delete(id);
      stored.delete(id);
    };
    // Exhaustive parameters: the storage tier must then equal brute force.
    const check = async () => {
      for (let i = 0; i < 5; i++) {
        const q = normalize(Array.from({ length: DIM }, () => gaussian(r)))!;
        expectSameHits(await index.searchAsync(q, { k: 15, hamming: 1e9, rerank: 1e9 }), bruteForce(stored, q, 15), stored, q);
      }
      expect(index.size).toBe(stored.size);
      expect([...index.liveIds()]).toEqual([...stored.keys()].sort((a, b) => a - b));
    };
    for (let id = 1; id <= 500; id++) put(id * 2);
    for (let id = 1; id <= 500; id += 7) drop(id * 2);
    expect(index.tier).toBe('resident');
    await check();
    // Out of order (odd ids between the even ones), then over the budget.
    for (let id = 1; id <= 2000; id++) put(id < 500 ? id * 2 + 1 : id + 1000);
    expect(index.tier).toBe('storage');
    await check();
    for (let id = 1; id <= 3000; id += 3) drop(id);
    put(14); // removed above, comes back
    put(5000);
    drop(777_777);
    await check();
    // Many removes: compaction in the storage tier.
    const before = index.count;
    for (const id of [...stored.keys()]) if (id % 4 !== 0) drop(id);
    expect(index.count).toBeLessThan(before);
    await check();
    for (const id of [...stored.keys()]) drop(id);
    expect(await index.searchAsync(normalize([1, ...new Array<number>(DIM - 1).fill(0)])!, { k: 5 })).toEqual([]);
  });

  it('leaves out ids removed while their codes were being read', async () => {
    const reader = new MapReader();
    const index = new DenseIndex(2);
    index.residentBudget = 0;
    index.attachReader(reader);
    for (const [id, v] of [[1, [1, 0]], [2, [0.9, 0.1]], [3, [0, 1]]] as const) {
      const q = quantize(normalize(v)!);
      reader.codes.set(id, q);
      index.add(id, q.codes, q.scale);
    }
    const pending = index.searchAsync(new Float32Array([1, 0]), { k: 3 });
    index.remove(1);
    expect((await pending).map((h) => h.id)).toEqual([2, 3]);
  });

  it('picks the same candidates in the unrolled Hamming passes (100, 128, 384 dims) as in the general one', () => {
    // An allowed set holding every live id takes the general loop (per-slot checks); no filter takes the
    // unrolled pass for 4 and 12 words. Both must choose the same ids, holes (removed ids) included.
    for (const dim of [64, 100, 128, 200, 384]) {
      const r = rng(dim);
      const words = Math.ceil(dim / 32);
      const index = new DenseIndex(dim, 4000, 'storage');
      const bits = new Uint32Array(words);
      for (let id = 0; id < 4000; id++) {
        for (let w = 0; w < words; w++) bits[w] = Math.floor(r() * 2 ** 32) >>> 0;
        if (dim % 32) bits[words - 1]! &= 2 ** (dim % 32) - 1;
        index.addBits(id * 3, bits);
      }
      for (let id = 0; id < 4000; id += 7) index.remove(id * 3);
      const all = new Set(index.liveIds());
      for (let t = 0; t < 5; t++) {
        const q = Float32Array.from({ length: dim }, () => gaussian(r));
        const fast = index.candidates(q, null, 600, 150);
        expect(fast).toEqual(index.candidates(q, all, 600, 150));
        expect(fast.length).toBe(150);
        expect(fast.every((id) => all.has(id))).toBe(true);
      }
    }
  });

  it('refuses sign bits in the resident tier and of the wrong width', () => {
    expect(() => new DenseIndex(64).addBits(1, new Uint32Array(2))).toThrow(/storage tier/);
    expect(() => new DenseIndex(64, 8, 'storage').addBits(1, new Uint32Array(3))).toThrow(/words/);
  });
});

describe('DenseIndex.addBlock', () => {
  it('builds the same index as add() one vector at a time, in any id order, with skipped ids left out (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 70 }),
        fc.array(fc.array(fc.integer({ min: 0, max: 400 }), { minLength: 1, maxLength: 20 }), { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 2, max: 9 }),
        (dim, groups, skipMod) => {
          const skip = (id: number) => id % skipMod === 0;
          const vec = (id: number) => Int8Array.from({ length: dim }, (_, i) => (((id + 1) * 31 + i * 17) % 255) - 127);
          const one = new DenseIndex(dim, 4);
          const many = new DenseIndex(dim, 4);
          for (const g of groups) {
            const ids = Uint32Array.from(new Set(g)).sort();
            const codes = new Int8Array(ids.length * dim);
            ids.forEach((id, i) => codes.set(vec(id), i * dim));
            const scales = Float32Array.from(ids, (id) => 0.01 + (id % 5) / 100);
            ids.forEach((id, i) => !skip(id) && one.add(id, vec(id), scales[i]!));
            many.addBlock(ids, codes, scales, skip);
          }
          expect([...many.liveIds()]).toEqual([...one.liveIds()]);
          const q = normalize(Array.from({ length: dim }, (_, i) => Math.sin(i + 1)))!;
          expect(many.search(q, { k: 10 })).toEqual(one.search(q, { k: 10 }));
          const internals = (x: DenseIndex) => x as unknown as { bits: Uint32Array; invNorms: Float32Array; codes: Int8Array; count: number };
          const [a, b] = [internals(one), internals(many)];
          expect(b.count).toBe(a.count);
          expect([...b.bits.subarray(0, a.count * Math.ceil(dim / 32))]).toEqual([...a.bits.subarray(0, a.count * Math.ceil(dim / 32))]);
          expect([...b.invNorms.subarray(0, a.count)]).toEqual([...a.invNorms.subarray(0, a.count)]);
          expect([...b.codes.subarray(0, a.count * dim)]).toEqual([...a.codes.subarray(0, a.count * dim)]);
        },
      ),
      { numRuns: 200 },
    );
  });
});
