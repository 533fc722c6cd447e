/**
 * Dense benchmark in Node: top-10 over 384-dim vectors at 100k and 1M. Reread's DenseIndex
 * (src/vectors.ts) against Orama's vector search, a plain float32 scan and the machine's limit (one
 * pass over the same float32 bytes); recall@10 against exact float32 search; resident bytes. Then
 * prototypes of what would meet the targets (resident sign bits, exact rescoring from storage).
 */
import 'fake-indexeddb/auto';
import { openDB } from 'idb';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { create, insertMultiple, search as oramaSearch, type AnyOrama } from '@orama/orama';
import { DenseIndex, type CodeReader } from '../../src/vectors.js';
import { DB_VERSION, upgrade, type DB, type RereadDB } from '../../background/db.js';
import { IdbCodeReader, loadDenseIndex, vectorRecords } from '../../background/vectorStore.js';
import { DEFAULT_GEN, Generator, row, type GenParams, type VectorSet } from './dense/data.js';
import { BinaryIndex, FileCodes, floatScan, meanOf, quantizeAll, recallAt, ResidentCodes, sumF32, sumI8, sumU32, type BinaryParams, type CodeSource } from './dense/methods.js';
import { TypedTopK } from './lexical/plain.js';
import { dist, gc, heldBytes, mb, mean, ms, num, now, targetTable, type Dist, type Report, type Target } from './report.js';

/**
 * Few, large topics with sub-topics and strong per-text noise: neighbours are graded (for a query,
 * top-1 ≈ 0.58, top-10 ≈ 0.48, top-100 ≈ 0.39, a random text ≈ 0.1), so finding the true top 10 among
 * hundreds of near ties is what is measured, as with real sentence embeddings.
 */
export const GEN: GenParams = { ...DEFAULT_GEN, clusters: 100, subPerCluster: 20, mean: 0.35, cluster: 0.5, sub: 0.35, noise: 0.8 };

export interface DenseRow {
  method: string;
  n: number;
  queries: number;
  latency: Dist;
  recall: number;
  residentBytes: number;
  /** Bytes read from storage per query (prototypes with codes outside memory). */
  storageBytesPerQuery?: number;
  note?: string;
}

export interface DenseOptions {
  sizes: number[];
  quick: boolean;
}

const DIM = 384;
const K = 10;

/**
 * Times every method on every query, interleaved in rotating order, keeping each answer. Methods in
 * `every` (passes that do not depend on the query) run on every `every`-th query only.
 */
function interleave<T>(methods: Record<string, (q: number) => T>, nq: number, every: Record<string, number> = {}): { times: Record<string, number[]>; answers: Record<string, T[]> } {
  const names = Object.keys(methods);
  const times: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  const answers: Record<string, T[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (let q = 0; q < nq; q++) {
    for (let j = 0; j < names.length; j++) {
      const name = names[(q + j) % names.length]!;
      if (q % (every[name] ?? 1) !== 0) continue;
      const t = now();
      const a = methods[name]!(q);
      times[name]!.push(now() - t);
      answers[name]![q] = a;
    }
  }
  return { times, answers };
}

async function benchSize(report: Report, gen: Generator, n: number, opts: DenseOptions): Promise<{ rows: DenseRow[]; extra: Record<string, unknown> }> {
  report.sub(`${num(n)} vectors × ${DIM} dims`);
  let t = now();
  const set: VectorSet = gen.vectors(n, 6);
  const nq = opts.quick ? 20 : n >= 500_000 ? 30 : 100;
  const qs = gen.vectors(nq, 99);
  const genMs = now() - t;
  const heap = new TypedTopK(K);

  // Ground truth: the exact float32 scan's answers, taken from the timed pass below.
  const profile = (() => {
    const h = new TypedTopK(100);
    const s = floatScan(set, row(qs, 0), h);
    return { top1: s[0]!.score, top10: s[9]!.score, top100: s[99]!.score };
  })();

  // Reread's DenseIndex, filled the way loadDenseIndex fills it (quantize, then add).
  t = now();
  const qa = quantizeAll(set);
  const di = new DenseIndex(DIM, n);
  for (let r = 0; r < n; r++) {
    const codes = qa.codes.subarray(r * DIM, (r + 1) * DIM);
    di.add(r, codes, qa.scales[r]!);
  }
  const buildMs = now() - t;

  // Prototypes: centred sign bits; exact rescoring on int8 codes, resident or read from a file.
  const meanV = meanOf(set);
  const bin = new BinaryIndex(DIM, n, meanV);
  for (let r = 0; r < n; r++) bin.add(r, row(set, r));
  const resident = new ResidentCodes(DIM, n);
  for (let r = 0; r < n; r++) resident.set(r, qa.codes.subarray(r * DIM, (r + 1) * DIM), qa.factors[r]!);
  const file = new FileCodes(join(tmpdir(), `reread-bench-codes-${process.pid}-${n}.bin`), DIM);
  file.writeAll(qa.codes, qa.factors, n);
  const int8Bytes = qa.codes;

  const protoResident: BinaryParams = { hamming: 5000, rerank: 200 };
  const protoStorage: BinaryParams[] = n >= 500_000 ? [{ hamming: 5000, rerank: 200 }, { hamming: 10000, rerank: 400 }] : [{ hamming: 2000, rerank: 100 }, { hamming: 5000, rerank: 200 }];
  const reads = new Map<string, number>();
  const counting = (name: string, src: CodeSource): CodeSource => ({
    read: (s, out) => {
      reads.set(name, (reads.get(name) ?? 0) + 1);
      return src.read(s, out);
    },
    residentBytes: () => src.residentBytes(),
    close: () => src.close(),
  });

  const methods: Record<string, (q: number) => { id: number }[] | number> = {
    'machine limit: sum of the float32 bytes': () => sumF32(set.data),
    'one pass over int8 codes (sum)': () => sumI8(int8Bytes),
    'one pass over sign bits (sum)': () => sumU32(bin.bits),
    'plain float32 scan (exact)': (q) => floatScan(set, row(qs, q), heap),
    'Reread DenseIndex (src, rescoreFactor 20)': (q) => di.search(row(qs, q), { k: K, rescoreFactor: 20 }),
    'Reread DenseIndex (src, rescoreFactor 100)': (q) => di.search(row(qs, q), { k: K, rescoreFactor: 100 }),
    [`PROTO resident int8 + centred bits, H=${protoResident.hamming} → ${protoResident.rerank}`]: (q) => bin.search(row(qs, q), K, protoResident, resident),
  };
  for (const p of protoStorage) {
    const name = `PROTO bits resident, int8 from file, H=${p.hamming} → ${p.rerank}`;
    const src = counting(name, file);
    methods[name] = (q) => bin.search(row(qs, q), K, p, src);
  }

  // Warm-up (JIT, page cache for the file), then interleaved timing.
  const passes = Object.keys(methods).filter((m) => m.includes('(sum)') || m.startsWith('machine'));
  for (let q = 0; q < Math.min(3, nq); q++) for (const [name, f] of Object.entries(methods)) if (q === 0 || !passes.includes(name)) f(q);
  gc();
  reads.clear();
  const every = Object.fromEntries(passes.map((m) => [m, n >= 500_000 ? 3 : 1]));
  const { times: lat, answers } = interleave(methods, nq, every);
  const readsPerQuery = Object.fromEntries([...reads].map(([k, v]) => [k, v / nq]));
  const truth = answers['plain float32 scan (exact)'] as { id: number; score: number }[][];
  const truthMs = dist(lat['plain float32 scan (exact)']!).median;

  const recallOf = (name: string): number => mean(Array.from({ length: nq }, (_, q) => recallAt(answers[name]![q] as { id: number }[], truth[q]!, K)));
  const rows: DenseRow[] = [];
  let storageExtra: Record<string, unknown> = {};
  const resBytes: Record<string, number> = {
    'machine limit: sum of the float32 bytes': set.data.byteLength,
    'one pass over int8 codes (sum)': int8Bytes.byteLength,
    'one pass over sign bits (sum)': bin.bits.byteLength,
    'plain float32 scan (exact)': set.data.byteLength,
    'Reread DenseIndex (src, rescoreFactor 20)': di.residentBytes,
    'Reread DenseIndex (src, rescoreFactor 100)': di.residentBytes,
  };
  for (const name of Object.keys(methods)) {
    const isProto = name.startsWith('PROTO');
    const isPass = name.includes('(sum)') || name.startsWith('machine');
    const storage = name.includes('from file');
    rows.push({
      method: name,
      n,
      queries: lat[name]!.length,
      latency: dist(lat[name]!),
      recall: isPass ? NaN : recallOf(name),
      residentBytes: resBytes[name] ?? (storage ? bin.residentBytes() : bin.residentBytes() + resident.residentBytes()),
      ...(storage ? { storageBytesPerQuery: (readsPerQuery[name] ?? 0) * (DIM + 4) } : {}),
      ...(isProto ? { note: 'tests/bench/dense/methods.ts BinaryIndex' } : {}),
    });
  }

  // The tiered DenseIndex's storage tier through the real code path: vectorStore's record layout in
  // fake-indexeddb (Node), loadDenseIndex (coarse blocks only), searchAsync reading candidates with
  // IdbCodeReader; beside it the same index reading codes from memory (the algorithm alone).
  {
    let idb: DB | null = await openDB<RereadDB>(`reread-bench-dense-${process.pid}-${n}`, DB_VERSION, { upgrade: (d, old, _n, tx) => upgrade(d, old, tx) });
    t = now();
    const entries = Array.from({ length: n }, (_, r) => ({ id: r + 1, codes: qa.codes.subarray(r * DIM, (r + 1) * DIM), scale: qa.scales[r]! }));
    const records = vectorRecords('bench', DIM, entries);
    entries.length = 0;
    for (let i = 0; i < records.length; i += 2000) {
      const tx = idb.transaction('vectors', 'readwrite');
      for (const rec of records.slice(i, i + 2000)) void tx.store.put(rec);
      await tx.done;
    }
    records.length = 0;
    const writeMs = now() - t;
    gc();
    t = now();
    const tiered = await loadDenseIndex(idb, 'bench', DIM, { residentBudget: Math.min(48 * 1048576, n * DIM - 1) });
    const loadMs = now() - t;
    const idbReader = new IdbCodeReader(idb, 'bench');
    const memReader: CodeReader = {
      read: (ids) => Promise.resolve(new Map(ids.map((id) => [id, { codes: qa.codes.subarray((id - 1) * DIM, id * DIM), scale: qa.scales[id - 1]! }]))),
    };
    const byOne = (hits: { id: number; score: number }[]) => hits.map((h) => ({ id: h.id - 1, score: h.score }));
    const settings = n >= 500_000 ? [{ rerank: 200 }, { rerank: 400 }] : [{ rerank: 200 }, { rerank: 400 }];
    const variants: { name: string; run: (q: number) => Promise<{ id: number }[]>; reader: 'idb' | 'mem' }[] = [];
    for (const p of settings) {
      const hamming = Math.min(20_000, Math.max(2_000, Math.round(n / 100)));
      variants.push({ name: `Reread DenseIndex storage tier, codes from IndexedDB (fake-indexeddb), H=${hamming} → ${p.rerank}`, reader: 'idb', run: async (q) => byOne(await tiered.searchAsync(row(qs, q), { k: K, ...p })) });
    }
    variants.push({ name: `Reread DenseIndex storage tier, codes from memory (algorithm alone), → 400`, reader: 'mem', run: async (q) => byOne(await tiered.searchAsync(row(qs, q), { k: K, rerank: 400 })) });
    const readerOf = (v: (typeof variants)[number]) => (v.reader === 'idb' ? idbReader : memReader);
    for (const v of variants) {
      tiered.attachReader(readerOf(v));
      await v.run(0);
    }
    const vt: Record<string, number[]> = Object.fromEntries(variants.map((v) => [v.name, []]));
    const vr: Record<string, number[]> = Object.fromEntries(variants.map((v) => [v.name, []]));
    const blocksRead: Record<string, number> = Object.fromEntries(variants.map((v) => [v.name, 0]));
    for (let q = 0; q < nq; q++) {
      for (let j = 0; j < variants.length; j++) {
        const v = variants[(q + j) % variants.length]!;
        tiered.attachReader(readerOf(v));
        const before = idbReader.records;
        const t0 = now();
        const hits = await v.run(q);
        vt[v.name]!.push(now() - t0);
        blocksRead[v.name]! += idbReader.records - before;
        vr[v.name]!.push(recallAt(hits, truth[q]!, K));
      }
    }
    for (const v of variants) {
      rows.push({
        method: v.name,
        n,
        queries: nq,
        latency: dist(vt[v.name]!),
        recall: mean(vr[v.name]!),
        residentBytes: tiered.residentBytes,
        // A block read is 16 vectors' codes (id-aligned VECTOR_BLOCK), ids and scales.
        ...(v.reader === 'idb' ? { storageBytesPerQuery: (blocksRead[v.name]! / nq) * 16 * (DIM + 8) } : {}),
        note: `src/vectors.ts + background/vectorStore.ts; ${num(n)} vectors written in ${ms(writeMs)} ms, loadDenseIndex (coarse blocks only) ${ms(loadMs)} ms${n * DIM <= 48 * 1048576 ? '; budget lowered to force the storage tier (the default 48 MB keeps this size resident)' : ''}`,
      });
    }
    storageExtra = { writeMs, loadMs, tieredResidentBytes: tiered.residentBytes, idbReads: idbReader.reads, idbRecords: idbReader.records };
    idb.close();
    idb = null;
    gc();
  }

  // Orama (100k only: at 1M it would hold ~1.6 GB of per-document Float32Arrays and take minutes to insert).
  if (n <= 200_000) {
    const before = heldBytes();
    t = now();
    let db: AnyOrama | null = create({ schema: { v: `vector[${DIM}]` } as const });
    const docs = Array.from({ length: n }, (_, r) => ({ id: String(r), v: Array.from(row(set, r)) }));
    await insertMultiple(db, docs, 1000);
    docs.length = 0;
    const oramaBuild = now() - t;
    const bytes = heldBytes() - before;
    const oq = Math.min(nq, opts.quick ? 10 : 30);
    const run = async (q: number, similarity: number) => {
      const r = await oramaSearch(db!, { mode: 'vector', vector: { value: Array.from(row(qs, q)), property: 'v' }, similarity, limit: K });
      return r.hits.map((h) => ({ id: Number(h.id) }));
    };
    for (const similarity of [0.8, 0]) {
      await run(0, similarity);
      const times: number[] = [];
      const rec: number[] = [];
      for (let q = 0; q < oq; q++) {
        const t0 = now();
        const hits = await run(q, similarity);
        times.push(now() - t0);
        rec.push(recallAt(hits, truth[q]!, K));
      }
      rows.push({ method: `Orama 3.1 vector search (similarity ≥ ${similarity}${similarity === 0.8 ? ', its default' : ''})`, n, queries: oq, latency: dist(times), recall: mean(rec), residentBytes: bytes, note: `build ${ms(oramaBuild)} ms` });
    }
    db = null;
    gc();
  }
  file.close();

  const limit = dist(lat['machine limit: sum of the float32 bytes']!).median;
  report.table(
    ['method', 'queries', 'median ms', 'p95 ms', '× machine limit', 'recall@10', 'resident', 'storage read / query'],
    rows.map((r) => [r.method, r.queries, ms(r.latency.median), ms(r.latency.p95), (r.latency.median / limit).toFixed(2), Number.isFinite(r.recall) ? r.recall.toFixed(3) : '', mb(r.residentBytes), r.storageBytesPerQuery ? `${num(r.storageBytesPerQuery / 1024, 0)} KB` : '']),
  );
  report.text(
    `Data: ${GEN.clusters} topics × ${GEN.subPerCluster} sub-topics, unit vectors; similarity profile of a query: top-1 ${profile.top1.toFixed(3)}, top-10 ${profile.top10.toFixed(3)}, top-100 ${profile.top100.toFixed(3)}. ` +
      `Generation ${ms(genMs)} ms; quantize + DenseIndex.add ${ms(buildMs)} ms (${num((n / buildMs) * 1000)} vectors/s); exact float32 scan ${ms(truthMs)} ms/query (median). ` +
      `DenseIndex resident ${mb(di.residentBytes)} (int8 codes ${mb(n * DIM)}, sign bits ${mb(n * 48)}). ` +
      `Storage prototypes read ${Object.values(readsPerQuery).map((x) => num(x, 0)).join(' / ')} records of ${DIM + 4} B per query from a file (one positioned read each, page cache warm).\n`,
  );
  return { rows, extra: { profile, genMs, buildMs, truthMsPerQuery: truthMs, readsPerQuery, storageTier: storageExtra } };
}

export async function runDense(report: Report, opts: DenseOptions): Promise<{ gen: GenParams; sizes: { n: number; rows: DenseRow[]; extra: Record<string, unknown> }[]; targets: Target[] }> {
  report.heading('Dense (Node)');
  report.text(
    'Top-10 by cosine over unit vectors, single thread, queries drawn from the same distribution (not copies of indexed vectors). ' +
      'Methods timed interleaved query by query; recall@10 against the exact float32 scan; resident = bytes the method holds in memory to answer.',
  );
  const gen = new Generator(DIM, 5, GEN);
  const sizes: { n: number; rows: DenseRow[]; extra: Record<string, unknown> }[] = [];
  for (const n of opts.sizes) {
    sizes.push({ n, ...(await benchSize(report, gen, n, opts)) });
    gc();
  }
  const targets: Target[] = [];
  for (const { n, rows } of sizes) {
    // The product's default (src/vectors.ts: rescoreFactor 100).
    const src = rows.find((r) => r.method.startsWith('Reread DenseIndex (src, rescoreFactor 100)'));
    const limit = n >= 500_000 ? 100 : 10;
    if (src) {
      const recallOk = n >= 500_000 || src.recall >= 0.95;
      const memOk = n < 500_000 || src.residentBytes <= 64 * 1048576;
      targets.push({
        what: `${num(n)} vectors: Reread DenseIndex resident tier (default rescoreFactor 100)`,
        target: n >= 500_000 ? '< 100 ms median, ≤ 64 MB resident' : '< 10 ms median, recall@10 ≥ 0.95',
        measured: `${ms(src.latency.median)} ms, recall ${src.recall.toFixed(3)}, ${mb(src.residentBytes)}`,
        met: src.latency.median < limit && recallOk && memOk,
      });
    }
    const protos = rows.filter((r) => r.method.startsWith('PROTO bits resident'));
    const best = protos.filter((r) => r.recall >= 0.95).sort((a, b) => a.latency.median - b.latency.median)[0] ?? protos[0];
    if (best) {
      targets.push({
        what: `${num(n)} vectors: prototype (${best.method.replace('PROTO ', '')})`,
        target: n >= 500_000 ? '< 100 ms median, ≤ 64 MB resident' : '< 10 ms median, recall@10 ≥ 0.95',
        measured: `${ms(best.latency.median)} ms, recall ${best.recall.toFixed(3)}, ${mb(best.residentBytes)}`,
        met: best.latency.median < limit && (n >= 500_000 ? best.residentBytes <= 64 * 1048576 : best.recall >= 0.95),
      });
    }
  }
  for (const { n, rows } of sizes) {
    const tiered = rows.filter((r) => r.method.includes('storage tier, codes from IndexedDB'));
    const best = tiered.filter((r) => r.recall >= 0.95).sort((a, b) => a.latency.median - b.latency.median)[0] ?? tiered[0];
    if (!best || n < 500_000) continue;
    targets.push({
      what: `${num(n)} vectors: Reread tiered DenseIndex, storage tier (${best.method.replace(/^.*storage tier, /, '')})`,
      target: '< 100 ms median, ≤ 64 MB resident, recall@10 ≥ 0.95',
      measured: `${ms(best.latency.median)} ms (fake-indexeddb reads), recall ${best.recall.toFixed(3)}, ${mb(best.residentBytes)}`,
      met: best.latency.median < 100 && best.residentBytes <= 64 * 1048576 && best.recall >= 0.95,
    });
  }
  targetTable(report, targets);
  return { gen: GEN, sizes, targets };
}
