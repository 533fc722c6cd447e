/**
 * Deterministic clustered vectors shaped roughly like sentence embeddings: a shared mean direction
 * (embeddings are anisotropic: random pairs have cosine ~0.1, not 0), topics (clusters), sub-topics
 * within them, and per-text noise; L2-normalised. Queries are drawn the same way, never copied from
 * the data.
 */
import { Rng } from '../rng.js';

export interface VectorSet {
  dim: number;
  n: number;
  /** n * dim float32, row-major, each row unit length. */
  data: Float32Array;
}

export interface GenParams {
  clusters: number;
  subPerCluster: number;
  /** Weights of the mean direction, the cluster centre, the sub-cluster centre and the noise. */
  mean: number;
  cluster: number;
  sub: number;
  noise: number;
}

export const DEFAULT_GEN: GenParams = { clusters: 2000, subPerCluster: 20, mean: 0.35, cluster: 0.6, sub: 0.45, noise: 0.55 };

function unit(rng: Rng, dim: number): Float32Array {
  const v = new Float32Array(dim);
  let s = 0;
  for (let i = 0; i < dim; i++) {
    v[i] = rng.normal();
    s += v[i]! * v[i]!;
  }
  const inv = 1 / Math.sqrt(s);
  for (let i = 0; i < dim; i++) v[i] = v[i]! * inv;
  return v;
}

export class Generator {
  private readonly mu: Float32Array;
  private readonly centres: Float32Array[];
  private readonly subs: Float32Array[];

  /** `dim` must be even. */
  constructor(
    readonly dim: number,
    seed: number,
    readonly p: GenParams = DEFAULT_GEN,
  ) {
    const rng = new Rng(seed);
    this.mu = unit(rng, dim);
    this.centres = Array.from({ length: p.clusters }, () => unit(rng, dim));
    this.subs = Array.from({ length: p.clusters * p.subPerCluster }, () => unit(rng, dim));
  }

  /** Normal quantiles: two table look-ups per random u32 (a million vectors are 384M samples). */
  private static table: Float32Array | null = null;
  private static normals(): Float32Array {
    if (!Generator.table) {
      const rng = new Rng(12345);
      const t = new Float32Array(65536);
      for (let i = 0; i < t.length; i++) t[i] = rng.normal();
      Generator.table = t.sort();
    }
    return Generator.table;
  }

  /** Writes one vector into out at offset. */
  private draw(rng: Rng, out: Float32Array, off: number): void {
    const table = Generator.normals();
    const c = rng.int(this.p.clusters);
    const s = c * this.p.subPerCluster + rng.int(this.p.subPerCluster);
    const cv = this.centres[c]!;
    const sv = this.subs[s]!;
    const { mean, cluster, sub } = this.p;
    const noise = this.p.noise / Math.sqrt(this.dim);
    let norm = 0;
    for (let i = 0; i < this.dim; i += 2) {
      const u = rng.u32();
      const x = mean * this.mu[i]! + cluster * cv[i]! + sub * sv[i]! + noise * table[u & 0xffff]!;
      const y = mean * this.mu[i + 1]! + cluster * cv[i + 1]! + sub * sv[i + 1]! + noise * table[u >>> 16]!;
      out[off + i] = x;
      out[off + i + 1] = y;
      norm += x * x + y * y;
    }
    const inv = 1 / Math.sqrt(norm);
    for (let i = 0; i < this.dim; i++) out[off + i] = out[off + i]! * inv;
  }

  vectors(n: number, seed: number): VectorSet {
    const rng = new Rng(seed);
    const data = new Float32Array(n * this.dim);
    for (let r = 0; r < n; r++) this.draw(rng, data, r * this.dim);
    return { dim: this.dim, n, data };
  }
}

export function row(set: VectorSet, r: number): Float32Array {
  return set.data.subarray(r * set.dim, (r + 1) * set.dim);
}
