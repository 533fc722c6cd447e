/**
 * Capture write per page on a kept, loaded profile (issue #17: flat capture cost), one build or several
 * side by side: `npm run bench -- capture --scale-profile=DIR --capture-dists=A,B --capture-runs=2`.
 *
 * DIR is a profile kept by the scale part (`--scale-profile`, tests/bench/scale.ts); each run launches
 * Chromium on it with one build (copied into DIR/extension, so the extension id and its database stay
 * the same), lets index maintenance finish what is pending, then sends fresh pages (never captured
 * before: their own seed and URLs per run) through engine.capture in the worker, ten per evaluation,
 * timed around each call exactly as scale.ts's captureAt does, and lets the background merge them after
 * (its cost is reported apart). Builds alternate run by run (A, B, A, B…) in one sitting, so load on
 * the shared machine falls on both alike; `uptime` is noted before each run.
 *
 * While the pages are captured the worker records, by patching IndexedDB's prototypes and the engine's
 * write lock from the outside (the same for every build), when each transaction was created, when its
 * first request answered (it had started by then) and when it committed, and when each holder of the
 * write lock asked for it and got it. From those: where a capture's time goes (waiting for the lock,
 * preparing, its write transaction waiting to start, running) and how long the background's
 * transactions that overlapped it ran.
 */
import { execSync } from 'node:child_process';
import { resolve } from 'node:path';
import { until } from '../e2e/harness.js';
import { launchSnapshot, type BenchExtension } from './chromium.js';
import { makeVocabulary, synthPageStream, toPayload, type SynthPage } from './corpus.js';
import { dist, ms, num, type Dist, type Report } from './report.js';

export interface CaptureOptions {
  profileDir: string;
  dists: string[];
  runs: number;
  pages: number;
  /** The dense lane on while capturing (default off, as scale.ts's loading run). */
  dense: boolean;
}

interface TxRec {
  stores: string;
  mode: string;
  created: number;
  first: number | null;
  end: number | null;
  outcome: string | null;
}

interface LockRec {
  called: number;
  start: number;
  end: number | null;
}

interface Trace {
  captures: { t0: number; t1: number; outcome: string }[];
  txs: TxRec[];
  locks: LockRec[];
}

export interface CaptureRun {
  dist: string;
  run: number;
  uptime: string;
  sections: number;
  perPage: Dist;
  /** From the call until the capture asked for the write lock (settings, cutting the sections). */
  beforeLock: Dist;
  lockWait: Dist;
  /** Holding the lock, before its write transaction was created (headroom check, page read, tokenizing, compressing). */
  inLockBeforeTx: Dist;
  inLockReads: Dist;
  inLockEstimate: Dist;
  txQueued: Dist;
  txRun: Dist;
  /** Background transactions (merge steps etc.) that overlapped the captures: durations by kind. */
  background: Record<string, Dist>;
  mergeMsPerPage: number;
}

/** Installs the tracing in the worker (idempotent within one worker life). */
const INSTRUMENT = `(() => {
  if (globalThis.__capTrace) return 'already';
  const T = (globalThis.__capTrace = { txs: [], locks: [], on: false });
  const recOf = new WeakMap();
  const origTx = IDBDatabase.prototype.transaction;
  IDBDatabase.prototype.transaction = function (stores, mode, opts) {
    const tx = origTx.call(this, stores, mode, opts);
    if (T.on) {
      const rec = { stores: (typeof stores === 'string' ? [stores] : [...stores]).sort().join(','), mode: mode || 'readonly', created: performance.now(), first: null, end: null, outcome: null };
      T.txs.push(rec);
      recOf.set(tx, rec);
      tx.addEventListener('complete', () => { rec.end = performance.now(); rec.outcome = 'complete'; });
      tx.addEventListener('abort', () => { rec.end = performance.now(); rec.outcome = 'abort'; });
    }
    return tx;
  };
  for (const proto of [IDBObjectStore.prototype, IDBIndex.prototype]) {
    for (const m of ['get', 'getAll', 'getAllKeys', 'getKey', 'count', 'openCursor', 'openKeyCursor', 'put', 'add', 'delete', 'clear']) {
      const orig = proto[m];
      if (typeof orig !== 'function') continue;
      proto[m] = function (...args) {
        const req = orig.apply(this, args);
        const rec = recOf.get(req.transaction);
        if (rec && rec.first === null) req.addEventListener('success', () => { if (rec.first === null) rec.first = performance.now(); });
        return req;
      };
    }
  }
  const est = navigator.storage && navigator.storage.estimate ? navigator.storage.estimate.bind(navigator.storage) : null;
  if (est) navigator.storage.estimate = async () => {
    const rec = { stores: 'storage.estimate()', mode: 'estimate', created: performance.now(), first: null, end: null, outcome: null };
    if (T.on) T.txs.push(rec);
    try { return await est(); } finally { rec.end = performance.now(); rec.first = rec.end; }
  };
  const ex = engine.exclusive.bind(engine);
  engine.exclusive = (fn) => {
    if (!T.on) return ex(fn);
    const rec = { called: performance.now(), start: 0, end: null };
    T.locks.push(rec);
    return ex(async () => {
      rec.start = performance.now();
      try { return await fn(); } finally { rec.end = performance.now(); }
    });
  };
  return 'installed';
})()`;

function kindOf(t: TxRec): string {
  if (t.mode === 'estimate') return 'read storage.estimate()';
  if (t.mode !== 'readwrite') return `read ${t.stores}`;
  if (t.stores.includes('segments') && t.stores.includes('pages')) return 'capture write';
  if (t.stores === 'meta,postings,terms') return 'merge step';
  if (t.stores === 'meta,segments') return 'merge finish';
  if (t.stores === 'meta,pages') return 'page table snapshot';
  return `write ${t.stores}`;
}

function uptime(): string {
  try {
    return execSync('uptime').toString().trim().replace(/^.*load average: /, '');
  } catch {
    return '?';
  }
}

async function oneRun(dist_: string, dense: boolean, profileDir: string, run: number, pages: readonly SynthPage[], tag: string, log: (s: string) => void): Promise<CaptureRun> {
  const load = uptime();
  const ext: BenchExtension = await launchSnapshot({ evalTimeoutMs: 600_000, keepDir: profileDir, dist: dist_ });
  try {
    await until(() => ext.evalSw<number>('engine.stats().then((s) => s.pages + 1)').catch(() => 0), 'the worker', 120_000);
    // The dense lane as asked (off: as scale.ts's loading run measures captures; on: captured pages are
    // embedded meanwhile, their vectors written beside the captures).
    await ext.evalSw(`engine.updateSettings({ denseEnabled: ${dense} })`);
    // What a stop or an earlier run left (merges, the page table snapshot) is done before the captures.
    await ext.evalSw('globalThis.rereadDebug.maintain(false)');
    const stats = await ext.evalSw<{ chunks: number }>('engine.stats()');
    await ext.evalSw(INSTRUMENT);
    const before = await ext.evalSw<{ mergeMs: number }>('globalThis.rereadDebug.maintenanceStatus()');
    await ext.evalSw('(() => { globalThis.__capTrace.txs = []; globalThis.__capTrace.locks = []; globalThis.__capTrace.on = true; return 1; })()');
    const captures: Trace['captures'] = [];
    for (let i = 0; i < pages.length; i += 10) {
      const slice = pages.slice(i, i + 10).map((p) => ({ url: `${p.url}-cap-${tag}`, now: p.date, payload: toPayload(p) }));
      const r = await ext.evalSw<Trace['captures']>(
        `(async (pages) => { const out = []; for (const p of pages) { const t0 = performance.now(); const res = await engine.capture(p.url, p.payload, p.now); out.push({ t0, t1: performance.now(), outcome: res.outcome }); } return out; })(${JSON.stringify(slice)})`,
      );
      if (r.some((c) => c.outcome !== 'new')) throw new Error(`capture outcomes: ${r.map((c) => c.outcome).join(', ')}`);
      captures.push(...r);
    }
    await ext.evalSw('globalThis.__capTrace.on = false');
    const trace = await ext.evalSw<{ txs: TxRec[]; locks: LockRec[] }>('({ txs: globalThis.__capTrace.txs, locks: globalThis.__capTrace.locks })');
    await ext.evalSw('globalThis.rereadDebug.maintain(false)');
    const after = await ext.evalSw<{ mergeMs: number }>('globalThis.rereadDebug.maintenanceStatus()');

    const lockWait: number[] = [];
    const txQueued: number[] = [];
    const txRun: number[] = [];
    const beforeLock: number[] = [];
    const inLockBeforeTx: number[] = [];
    /** Of that: waiting for IndexedDB reads (their transactions' lives, summed) and for storage.estimate(). */
    const inLockReads: number[] = [];
    const inLockEstimate: number[] = [];
    for (const c of captures) {
      const w = trace.txs.filter((t) => kindOf(t) === 'capture write' && t.created >= c.t0 && t.created <= c.t1).pop();
      // The capture's hold of the write lock: the one its write transaction was created in (names are minified).
      const lock = w && trace.locks.find((l) => l.start <= w.created && l.end !== null && l.end >= w.created && l.called >= c.t0);
      if (lock) {
        beforeLock.push(lock.called - c.t0);
        lockWait.push(lock.start - lock.called);
      }
      if (w && w.first !== null && w.end !== null) {
        if (lock) {
          inLockBeforeTx.push(w.created - lock.start);
          // The capture's own: a merge step's read-ahead (terms and postings) runs beside it, not in it.
          const inside = trace.txs.filter((t) => t !== w && t.created >= lock.start && t.created < w.created && t.end !== null && t.stores !== 'postings,terms');
          inLockReads.push(inside.filter((t) => t.mode !== 'estimate').reduce((n, t) => n + (t.end! - t.created), 0));
          inLockEstimate.push(inside.filter((t) => t.mode === 'estimate').reduce((n, t) => n + (t.end! - t.created), 0));
        }
        txQueued.push(w.first - w.created);
        txRun.push(w.end - w.first);
      }
    }
    const first = captures[0]!.t0;
    const last = captures[captures.length - 1]!.t1;
    const bg = new Map<string, number[]>();
    for (const t of trace.txs) {
      const k = kindOf(t);
      if (k === 'capture write' || t.end === null || t.created > last || t.end < first) continue;
      if (!bg.has(k)) bg.set(k, []);
      bg.get(k)!.push(t.end - t.created);
    }
    const perPage = dist(captures.map((c) => c.t1 - c.t0));
    const out: CaptureRun = {
      dist: dist_,
      run,
      uptime: load,
      sections: stats.chunks,
      perPage,
      beforeLock: dist(beforeLock),
      lockWait: dist(lockWait),
      inLockBeforeTx: dist(inLockBeforeTx),
      inLockReads: dist(inLockReads),
      inLockEstimate: dist(inLockEstimate),
      txQueued: dist(txQueued),
      txRun: dist(txRun),
      background: Object.fromEntries([...bg].map(([k, xs]) => [k, dist(xs)])),
      mergeMsPerPage: (after.mergeMs - before.mergeMs) / pages.length,
    };
    log(
      `  run ${run} ${dist_} (load ${load}; ${num(stats.chunks)} sections): capture median ${ms(perPage.median)} ms, p95 ${ms(perPage.p95)} ms; before lock ${ms(out.beforeLock.median)}/${ms(out.beforeLock.p95)}, lock wait ${ms(out.lockWait.median)}/${ms(out.lockWait.p95)}, in lock before tx ${ms(out.inLockBeforeTx.median)}/${ms(out.inLockBeforeTx.p95)} (reads ${ms(out.inLockReads.median)}/${ms(out.inLockReads.p95)}, estimate ${ms(out.inLockEstimate.median)}/${ms(out.inLockEstimate.p95)}), write tx queued ${ms(out.txQueued.median)}/${ms(out.txQueued.p95)}, running ${ms(out.txRun.median)}/${ms(out.txRun.p95)}; ` +
        Object.entries(out.background)
          .filter(([k]) => !k.startsWith('read'))
          .map(([k, d]) => `${k} ×${d.n} ${ms(d.median)}/${ms(d.p95)}/${ms(d.max)}`)
          .join(', '),
    );
    return out;
  } finally {
    await ext.close();
  }
}

export async function runCapture(report: Report, opts: CaptureOptions): Promise<{ runs: CaptureRun[] }> {
  report.heading('Capture write per page on a kept profile');
  const log = (s: string) => console.log(s);
  const v = makeVocabulary(1);
  const tag = Date.now().toString(36);
  const runs: CaptureRun[] = [];
  for (let r = 0; r < opts.runs; r++) {
    for (const [i, d] of opts.dists.entries()) {
      // Fresh pages per run: their own seed (and URLs tagged with this sitting and run).
      const stream = synthPageStream(v, 9_000 + r * 97 + i * 13 + (Date.now() % 1000), opts.pages * 30, [18, 22]);
      const pages = Array.from({ length: opts.pages }, () => stream.next().value as SynthPage);
      runs.push(await oneRun(resolve(d), opts.dense, opts.profileDir, r, pages, `${tag}-${r}-${i}`, log));
    }
  }
  report.text(`${opts.pages} fresh pages a run through engine.capture on ${opts.profileDir}, dense lane ${opts.dense ? 'on' : 'off'}; builds alternated run by run. Before lock: from the call until the capture asked for the engine's write lock (settings, cutting); lock wait: until it got it; in lock before tx: holding it until its write transaction was created (headroom, page read, tokenizing, compressing); write tx queued: its transaction created until its first request answered; running: from then to commit. median/p95 ms.`);
  report.table(
    ['build', 'run', 'load (1/5/15 min)', 'sections', 'capture median', 'p95', 'before lock', 'lock wait', 'in lock before tx', 'tx queued', 'tx running', 'merge ms a page after'],
    runs.map((x) => [x.dist, String(x.run), x.uptime, num(x.sections), ms(x.perPage.median), ms(x.perPage.p95), `${ms(x.beforeLock.median)} / ${ms(x.beforeLock.p95)}`, `${ms(x.lockWait.median)} / ${ms(x.lockWait.p95)}`, `${ms(x.inLockBeforeTx.median)} / ${ms(x.inLockBeforeTx.p95)}`, `${ms(x.txQueued.median)} / ${ms(x.txQueued.p95)}`, `${ms(x.txRun.median)} / ${ms(x.txRun.p95)}`, ms(x.mergeMsPerPage)]),
  );
  const kinds = [...new Set(runs.flatMap((x) => Object.keys(x.background)))].filter((k) => !k.startsWith('read'));
  report.table(
    ['build', 'run', ...kinds.map((k) => `${k}: n, median / p95 / max ms`)],
    runs.map((x) => [x.dist, String(x.run), ...kinds.map((k) => (x.background[k] ? `${x.background[k]!.n}, ${ms(x.background[k]!.median)} / ${ms(x.background[k]!.p95)} / ${ms(x.background[k]!.max)}` : '–'))]),
  );
  return { runs };
}
