/**
 * The storage tier's IndexedDB read in real Chromium (fake-indexeddb in Node is far slower): in the
 * extension's service worker, a separate database with the `vectors` store's key path ([m, f]) and
 * VectorBlockRecord values, `n` random int8 vectors of 384 dims written in id-aligned blocks of B
 * vectors. Per layout: the time to read `reads` scattered candidates (one read-only transaction, one
 * get per distinct block, all in flight; what IdbCodeReader does), and a full getAll of the model's
 * blocks (a resident-tier start); plus the coarse blocks' getAll (a storage-tier start).
 *
 * `node --expose-gc --import tsx tests/bench/dense/chromium.ts [n] [reads]` (after `npm run build`); writes
 * bench/results/dense-chromium.json.
 */
import { launchSnapshot, type BenchExtension } from '../chromium.js';
import { dist, machine, ms, num, writeJson, type Dist } from '../report.js';

export interface LayoutResult {
  block: number;
  n: number;
  records: number;
  writeMs: number;
  reads: number;
  readMs: Dist;
  blocksPerRead: number;
  getAllMs: number;
}

const WRITE = `async (name, n, block, dim, m) => {
  await new Promise((res) => { const r = indexedDB.deleteDatabase(name); r.onsuccess = r.onerror = r.onblocked = () => res(); });
  const db = await new Promise((res, rej) => { const r = indexedDB.open(name, 1); r.onupgradeneeded = () => r.result.createObjectStore('vectors', { keyPath: ['m', 'f'] }); r.onsuccess = () => res(r.result); r.onerror = () => rej(r.error); });
  let seed = 7;
  const t0 = performance.now();
  let records = 0;
  const per = Math.max(1, Math.floor(4096 / block));
  for (let f0 = 0; f0 < n; f0 += per * block) {
    const tx = db.transaction('vectors', 'readwrite');
    const st = tx.objectStore('vectors');
    for (let f = f0; f < Math.min(n, f0 + per * block); f += block) {
      const k = Math.min(block, n - f);
      const ids = new Uint32Array(k);
      const codes = new Int8Array(k * dim);
      const scales = new Float32Array(k);
      for (let i = 0; i < k; i++) { ids[i] = f + i; scales[i] = 0.01; }
      for (let i = 0; i < codes.length; i++) { seed = (Math.imul(seed, 1103515245) + 12345) >>> 0; codes[i] = (seed >>> 24) - 128; }
      st.put({ m, f, dim, ids, codes, scales });
      records++;
    }
    await new Promise((res, rej) => { tx.oncomplete = res; tx.onerror = () => rej(tx.error); });
  }
  const writeMs = performance.now() - t0;
  db.close();
  return { writeMs, records };
}`;

const READ = `async (name, n, block, reads, rounds, m) => {
  const db = await new Promise((res, rej) => { const r = indexedDB.open(name, 1); r.onsuccess = () => res(r.result); r.onerror = () => rej(r.error); });
  let seed = 12345;
  const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
  const times = [];
  let blocks = 0;
  const req = (r) => new Promise((res, rej) => { r.onsuccess = () => res(r.result); r.onerror = () => rej(r.error); });
  for (let r = 0; r < rounds; r++) {
    const ids = Array.from({ length: reads }, rnd).sort((a, b) => a - b);
    const t = performance.now();
    const st = db.transaction('vectors').objectStore('vectors');
    const keys = [...new Set(ids.map((id) => id - (id % block)))];
    const got = await Promise.all(keys.map((f) => req(st.get([m, f]))));
    let found = 0;
    const byKey = new Map(keys.map((f, i) => [f, got[i]]));
    for (const id of ids) { const b = byKey.get(id - (id % block)); if (b && b.ids[id - b.f] === id) found++; }
    times.push(performance.now() - t);
    if (found !== ids.length) throw new Error('missing ' + (ids.length - found));
    blocks += keys.length;
  }
  const t1 = performance.now();
  const all = await req(db.transaction('vectors').objectStore('vectors').getAll(IDBKeyRange.bound([m, 0], [m, Infinity])));
  const getAllMs = performance.now() - t1;
  if (all.length === 0) throw new Error('empty');
  db.close();
  await new Promise((res) => { const r = indexedDB.deleteDatabase(name); r.onsuccess = r.onerror = r.onblocked = () => res(); });
  return { times, blocksPerRead: blocks / rounds, getAllMs };
}`;

/** Evaluates an async expression in the worker (not through evalSw: this needs no engine). */
async function inWorker<T>(ext: BenchExtension, expression: string): Promise<T> {
  await ext.sw();
  const [res] = await ext.workerCdp<{ result: { value?: unknown }; exceptionDetails?: { exception?: { description?: string }; text: string } }>([
    { method: 'Runtime.evaluate', params: { expression, awaitPromise: true, returnByValue: true } },
  ]);
  if (!res) throw new Error('no answer from the service worker');
  if (res.exceptionDetails) throw new Error(res.exceptionDetails.exception?.description ?? res.exceptionDetails.text);
  return res.result.value as T;
}

export async function runChromiumLayouts(n: number, reads: number, blocks: number[], rounds = 30, log: (s: string) => void = console.log): Promise<{ chromium: string; layouts: LayoutResult[] }> {
  const ext = await launchSnapshot({ evalTimeoutMs: 600_000 });
  const layouts: LayoutResult[] = [];
  try {
    const chromium = ext.ctx.browser()?.version() ?? '';
    for (const block of blocks) {
      const name = `reread-bench-layout-${block}`;
      // Coarse blocks are written like exact ones with dim 48 (the sign bits' bytes): B = 1024.
      const dim = block === 1024 ? 48 : 384;
      const w = await inWorker<{ writeMs: number; records: number }>(ext, `(${WRITE})(${JSON.stringify(name)}, ${n}, ${block}, ${dim}, 'm')`);
      const r = await inWorker<{ times: number[]; blocksPerRead: number; getAllMs: number }>(ext, `(${READ})(${JSON.stringify(name)}, ${n}, ${block}, ${reads}, ${rounds}, 'm')`);
      const res = { block, n, records: w.records, writeMs: w.writeMs, reads, readMs: dist(r.times), blocksPerRead: r.blocksPerRead, getAllMs: r.getAllMs };
      layouts.push(res);
      log(`B=${block}${dim === 48 ? ' (coarse bits, 48 B a vector)' : ''}: ${num(w.records)} records written in ${ms(w.writeMs)} ms; ${reads} scattered candidates: ${ms(res.readMs.median)} ms median, ${ms(res.readMs.p95)} p95 (${num(r.blocksPerRead, 0)} gets); getAll of all ${ms(r.getAllMs)} ms`);
    }
    return { chromium, layouts };
  } finally {
    await ext.close();
  }
}

if (process.argv[1]?.endsWith('dense/chromium.ts')) {
  const n = Number(process.argv[2] ?? 200_000);
  const reads = Number(process.argv[3] ?? 400);
  runChromiumLayouts(n, reads, [1, 16, 64, 256, 1024])
    .then((r) => {
      const m = machine();
      m.chromium = r.chromium;
      console.log(`wrote ${writeJson('dense-chromium', { machine: m, results: { reads, layouts: r.layouts } })}`);
    })
    .catch((e: unknown) => {
      console.error(e);
      process.exit(1);
    });
}
