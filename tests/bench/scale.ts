/**
 * A million sections in Chromium (issue #17): the real extension (dist/chrome) with about 48,000 pages
 * of the benchmark's synthetic corpus (18–22 sections a page, Zipf vocabulary, identifiers) in its
 * IndexedDB, written as the product stores them once merged (bulkLoad.ts), with 100-dim vectors for
 * every section (the bundled model's size; random values, the storage tier of the dense index).
 *
 * On the way, at 10,000 and 52,000 sections and at the end, 30 new pages go through engine.capture in
 * the worker (the write path, merges running in the background as they do for a user) so the capture
 * cost is measured at three sizes in the same run. At the end, in one run: the lexical lane with its
 * postings read from IndexedDB (cache dropped before each query), warm, and first after a worker stop;
 * engine.search; the dense lane (query embedded by the offscreen document, storage tier); keystroke →
 * results on screen in search.html; the first answer after a worker stop; the worker's memory; bytes.
 *
 * `npm run build && npm run bench -- scale` (about 45 minutes here; `--scale-sections=` for less).
 *
 * `--scale-profile=DIR` keeps the loaded browser profile in DIR: the first run loads it as above and
 * notes what it loaded in DIR/loaded.json; a later run with the same DIR and size skips the loading,
 * the vectors and the captures on the way (their figures are the loading run's, noted in the JSON as
 * `reusedProfile`) and goes straight to the query measurements, which leave the index as it was.
 * `--scale-dist=PATH` loads another build (e.g. main's dist/chrome built in another checkout) into
 * the same profile: before/after on one loaded index, back to back.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { until } from '../e2e/harness.js';
import { launchSnapshot, type BenchExtension } from './chromium.js';
import { BulkIndex, finishLoad, writeBatch, writeVectors } from './bulkLoad.js';
import { afterRestart, duBytes, keystrokeBreakdown, keystrokes, openSearch, settledDisk, storageUsage } from './browser.js';
import { makeVocabulary, pagesToDocs, sampleQueries, synthPageStream, toPayload, type Query, type SynthPage } from './corpus.js';
import { queryTerms } from '../../src/tokenizer.js';
import { TOKENIZER } from '../../src/indexing.js';
import { parseRequest } from '../../src/search.js';
import { DEFAULT_SETTINGS } from '../../src/settings.js';
import { modelInfo } from '../../src/models.js';
import { dist, machine, mb, ms, now, num, targetTable, type Dist, type Report, type Target } from './report.js';

export interface ScaleOptions {
  sections: number;
  quick: boolean;
  /** Sizes (sections) to measure capture at on the way, besides the end (default 10,000 and 52,000). */
  checkpoints?: readonly number[];
  /** Keep (and reuse when it holds this size) the loaded profile in this directory. */
  profileDir?: string;
  /** The build to measure (default dist/chrome). */
  dist?: string;
}

/** What a loading run leaves in the profile directory's loaded.json for later runs. */
interface Loaded {
  sections: number;
  pages: number;
  terms: number;
  textChars: number;
  loadMs: number;
  vectors: number;
  vectorMs: number;
  usage0: number;
  du0: number;
  captures: CaptureTiming[];
  queries: Query[];
}

/** Pages captured through engine.capture at each checkpoint. */
const CAPTURE_PAGES = 30;

interface CaptureTiming {
  sections: number;
  perPage: Dist;
  /** Background merge cost of the captured pages, per page (ms of merge steps / pages). */
  mergeMsPerPage: number;
}

async function captureAt(ext: BenchExtension, pages: readonly SynthPage[], sections: number, log: (s: string) => void): Promise<CaptureTiming> {
  const before = await ext.evalSw<{ mergeMs: number }>('globalThis.rereadDebug.maintenanceStatus()');
  const times: number[] = [];
  for (let i = 0; i < pages.length; i += 10) {
    const slice = pages.slice(i, i + 10).map((p) => ({ url: `${p.url}-captured`, now: p.date, payload: toPayload(p) }));
    const r = await ext.evalSw<{ times: number[]; outcomes: string[] }>(
      `(async (pages) => { const times = []; const outcomes = []; for (const p of pages) { const t = performance.now(); const res = await engine.capture(p.url, p.payload, p.now); times.push(performance.now() - t); outcomes.push(res.outcome); } return { times, outcomes }; })(${JSON.stringify(slice)})`,
    );
    if (r.outcomes.some((o) => o !== 'new')) throw new Error(`capture outcomes: ${r.outcomes.join(', ')}`);
    times.push(...r.times);
  }
  // Let the background merge what they left, and note what it cost.
  await ext.evalSw('globalThis.rereadDebug.maintain(false)');
  const after = await ext.evalSw<{ mergeMs: number; pendingSegments: number }>('globalThis.rereadDebug.maintenanceStatus()');
  const t = { sections, perPage: dist(times), mergeMsPerPage: (after.mergeMs - before.mergeMs) / pages.length };
  log(`  capture at ${num(sections)} sections: median ${ms(t.perPage.median)} ms, p95 ${ms(t.perPage.p95)} ms a page; merge ${ms(t.mergeMsPerPage)} ms a page in the background`);
  return t;
}

/** The worker's memory: JS heap after a full GC, plus array buffers (the dense index, caches) where the protocol reports them. */
async function workerMemory(ext: BenchExtension): Promise<{ heapUsedBytes: number; heapTotalBytes: number; backingStorageBytes: number | null; arrays: Record<string, number> }> {
  const [, heap] = await ext.workerCdp<unknown>([{ method: 'HeapProfiler.collectGarbage' }, { method: 'Runtime.getHeapUsage' }]);
  const h = heap as { usedSize: number; totalSize: number; backingStorageSize?: number };
  const arrays = await ext.evalSw<Record<string, number>>(
    `({ denseIndex: dense.index ? dense.index.residentBytes : 0, postingCache: (engine.lexical.cachedEntries ?? 0) * 12, idTables: engine.pages.idTableBytes ?? 0 })`,
  );
  return { heapUsedBytes: h.usedSize, heapTotalBytes: h.totalSize, backingStorageBytes: h.backingStorageSize ?? null, arrays };
}

/** Lexical lane timings in the worker: warm, and with the posting cache dropped before each query. */
async function lexicalTimings(ext: BenchExtension, items: { q: string; terms: string[] }[]): Promise<{ warm: number[]; cold: number[]; search: number[]; searchTimings: (Record<string, number> | null)[]; results: number }> {
  return ext.evalSw(`(async (items) => {
    const out = { warm: [], cold: [], search: [], searchTimings: [], results: 0 };
    for (const it of items) await globalThis.rereadDebug.lexicalLane(it.terms, 90);
    for (const it of items) {
      let t = performance.now();
      await globalThis.rereadDebug.lexicalLane(it.terms, 90);
      out.warm.push(performance.now() - t);
      engine.lexical.invalidate('all');
      t = performance.now();
      const hits = await globalThis.rereadDebug.lexicalLane(it.terms, 90);
      out.cold.push(performance.now() - t);
      out.results += hits.length;
      t = performance.now();
      const res = await engine.search({ q: it.q, limit: 30 });
      out.search.push(performance.now() - t);
      out.searchTimings.push(res.timings || null);
    }
    return out;
  })(${JSON.stringify(items)})`);
}

export interface ScaleResult {
  chromium: string;
  json: Record<string, unknown>;
}

export async function runScale(report: Report, opts: ScaleOptions): Promise<ScaleResult> {
  const started = now();
  const startMachine = machine();
  report.heading('A million sections in Chromium');
  const log = (s: string) => console.log(s);
  const v = makeVocabulary(1);
  const stream = synthPageStream(v, 424242, opts.sections, [18, 22]);
  const fresh = synthPageStream(v, 777, 100_000, [18, 22]);
  const freshPages = (n: number) => Array.from({ length: n }, () => fresh.next().value as SynthPage);
  const checkpoints = [...(opts.checkpoints ?? [10_000, 52_000]), opts.sections].sort((a, b) => a - b).filter((c, i, a) => c <= opts.sections && a.indexOf(c) === i);
  const model = modelInfo(DEFAULT_SETTINGS.model)!;

  const loadedFile = opts.profileDir ? join(opts.profileDir, 'loaded.json') : null;
  const reuse = loadedFile && existsSync(loadedFile) ? (JSON.parse(readFileSync(loadedFile, 'utf8')) as Loaded) : null;
  if (reuse && reuse.sections !== opts.sections) throw new Error(`${opts.profileDir} holds a profile loaded for ${reuse.sections} sections, not ${opts.sections}: use another directory`);
  if (opts.profileDir && !reuse) log(`loading into ${opts.profileDir} (kept for later runs)`);
  if (reuse) log(`reusing the profile in ${opts.profileDir}: ${num(reuse.pages)} pages loaded earlier`);
  const ext = await launchSnapshot({ evalTimeoutMs: 600_000, ...(opts.profileDir ? { keepDir: opts.profileDir } : {}), ...(opts.dist ? { dist: opts.dist } : {}) });
  const chromium = ext.ctx.browser()?.version() ?? 'unknown';
  /** Stops the worker and waits until it is gone (a target still closing would take an evaluation and never answer). */
  const stop = async () => {
    await ext.stopWorker();
    await until(async () => !(await ext.workerRunning()), 'worker stopped', 30_000, 50);
  };
  try {
    await until(() => ext.evalSw<number>('engine.stats().then((s) => s.pages + 1)').catch(() => 0), 'the worker');
    const admin = await openSearch(ext);
    const idbDir = join(ext.profile, 'Default', 'IndexedDB');
    const loaded = reuse ?? (await load());
    const { pages, loadMs, textChars, usage0, du0, captures } = loaded;
    const index = { terms: loaded.terms };
    const allIds = { length: loaded.vectors };
    const vec = { ms: loaded.vectorMs };
    await ext.evalSw('engine.updateSettings({ denseEnabled: true })');
    if (reuse) await stop();
    await until(async () => (await ext.evalSw<{ pendingEmbeddings: number }>('engine.stats()')).pendingEmbeddings === 0, 'the embedding queue', 600_000, 2000);
    const stats = await ext.evalSw<{ pages: number; chunks: number }>('engine.stats()');
    if (reuse) log(`${num(stats.chunks)} sections in ${num(stats.pages)} pages`);
    const qs = loaded.queries;
    const items = qs.map((q) => ({ q: q.text, terms: queryTerms(parseRequest({ q: q.text }).text, TOKENIZER) }));

    /** Bulk-loads the profile, captures on the way, writes the vectors; notes it all in loaded.json. */
    async function load(): Promise<Loaded> {
      // Loading with the dense lane off (its vectors are written directly at the end).
      await ext.evalSw('engine.updateSettings({ denseEnabled: false })');
      const usage0 = await storageUsage(admin);
      const du0 = duBytes(idbDir);

      const index = new BulkIndex();
      const sample: SynthPage[] = [];
      let loaded = 0;
      let textChars = 0;
      let loadMs = 0;
      const captures: CaptureTiming[] = [];
      for (const target of checkpoints) {
        const t0 = now();
        let batch: SynthPage[] = [];
        const flush = async () => {
          if (!batch.length) return;
          const b = index.add(batch);
          textChars += b.textChars;
          if (opts.quick) log(`  batch of ${batch.length} pages: ${b.blocks.length} blocks, ${b.terms.length} new terms`);
          await writeBatch(admin, b);
          batch = [];
        };
        while (loaded < target) {
          const r = stream.next();
          if (r.done) break;
          const p = r.value;
          batch.push(p);
          loaded += p.sections.length;
          if (sample.length < 1500 && (index.pages + batch.length) % 30 === 0) sample.push(p);
          if (batch.length >= 300) {
            await flush();
            if ((index.pages / 300) % 20 === 0) log(`  ${num(loaded)} sections written (${ms(now() - t0)} ms)`);
          }
        }
        await flush();
        if (opts.quick) log('  last blocks and statistics…');
        await finishLoad(admin, index);
        loadMs += now() - t0;
        // The worker reads the database afresh (a stop, as Chrome does when it idles).
        await stop();
        await until(() => ext.evalSw<number>('engine.stats().then((s) => s.pages + 1)').catch(() => 0), 'the worker');
        log(`checkpoint ${num(loaded)} sections (${num(index.pages)} pages, ${num(index.terms)} terms) after ${ms(loadMs / 1000)} s of loading; capturing…`);
        captures.push(await captureAt(ext, freshPages(CAPTURE_PAGES), loaded, log));
        // Bulk loading goes on after what the captures and merges stored.
        const s = await ext.evalSw<{ N: number; totalLength: number; nextChunkId: number; terms: [string, number][]; next: number }>(`(async () => {
          const db = await engine.db();
          const stats = await db.get('meta', 'stats');
          const tx = db.transaction('terms');
          const [keys, values] = await Promise.all([tx.store.getAllKeys(), tx.store.getAll()]);
          return { ...stats, terms: keys.map((k, i) => [k, values[i]]).filter(([, id]) => id >= ${index.termIdsNext}), next: (await db.get('meta', 'termIds')).next };
        })()`);
        index.resume(s);
        if (opts.quick) log(`  resumed at chunk id ${s.nextChunkId}, ${s.terms.length} terms added by the captures`);
      }
      const pages = index.pages;

      // Vectors for every section, then the dense lane on.
      log('vectors…');
      const allIds = await ext.evalSw<number[]>('engine.pages.all().then((m) => [...m.values()].flatMap((p) => p.chunkIds))');
      log(`  ${num(allIds.length)} sections to give vectors`);
      const vec = await writeVectors(admin, model.id, model.dim, allIds);
      log(`  written in ${ms(vec.ms)} ms; turning the dense lane on…`);
      await ext.evalSw('engine.updateSettings({ denseEnabled: true })');
      await stop();
      await until(async () => (await ext.evalSw<{ pendingEmbeddings: number }>('engine.stats()')).pendingEmbeddings === 0, 'the embedding queue', 600_000, 2000);
      const stats = await ext.evalSw<{ pages: number; chunks: number }>('engine.stats()');
      log(`${num(stats.chunks)} sections in ${num(stats.pages)} pages; vectors written in ${ms(vec.ms / 1000)} s`);

      // Queries from the corpus's own words (a sample of its pages).
      const docs = pagesToDocs(sample);
      const dfMap = new Map<string, number>();
      for (const d of docs) for (const w of new Set(d.text.toLowerCase().split(/[^\p{L}\p{N}_]+/u))) dfMap.set(w, (dfMap.get(w) ?? 0) + 1);
      const queries = sampleQueries(docs, opts.quick ? 60 : 200, 99, (w) => ((dfMap.get(w.toLowerCase()) ?? 0) * stats.chunks) / docs.length).filter((q) => q.text.length >= 3);
      const out: Loaded = { sections: opts.sections, pages, terms: index.terms, textChars, loadMs, vectors: allIds.length, vectorMs: vec.ms, usage0, du0, captures, queries };
      if (loadedFile) writeFileSync(loadedFile, JSON.stringify(out));
      return out;
    }

    // First query after a worker stop, the lexical lane alone (dense off for this part).
    log('lexical after worker stops…');
    await ext.evalSw('engine.updateSettings({ denseEnabled: false })');
    const afterStop: number[] = [];
    for (let r = 0; r < (opts.quick ? 3 : 8); r++) {
      await stop();
      const it = items[(r * 7) % items.length]!;
      afterStop.push(await ext.evalSw<number>(`(async () => { const t = performance.now(); await globalThis.rereadDebug.lexicalLane(${JSON.stringify(it.terms)}, 90); return performance.now() - t; })()`));
    }
    log('lexical warm and from IndexedDB…');
    const lex = await lexicalTimings(ext, items);
    const memLexical = await workerMemory(ext);

    // Dense lane on: the storage tier (1M × 100 dims is over the resident budget).
    log('dense lane…');
    await ext.evalSw('engine.updateSettings({ denseEnabled: true })');
    const denseRuns = await ext.evalSw<{ embedded: number[]; scan: number[]; search: number[]; tier: string; resident: number }>(`(async (items) => {
      const out = { embedded: [], scan: [], search: [], tier: '', resident: 0 };
      await dense.search(items[0].q, 90, null);
      for (const it of items) {
        const text = it.q;
        for (const key of [...dense.queryCache.keys()]) if (key.endsWith('\\u0000' + text)) dense.queryCache.delete(key);
        let t = performance.now();
        await dense.search(text, 90, null);
        out.embedded.push(performance.now() - t);
        t = performance.now();
        await dense.search(text, 90, null);
        out.scan.push(performance.now() - t);
        t = performance.now();
        await engine.search({ q: text, limit: 30 });
        out.search.push(performance.now() - t);
      }
      out.tier = dense.index ? dense.index.tier : 'none';
      out.resident = dense.index ? dense.index.residentBytes : 0;
      return out;
    })(${JSON.stringify(items.slice(0, opts.quick ? 30 : 100))})`);
    const memDense = await workerMemory(ext);

    log('keystrokes and first answers after a stop (search.html, dense on)…');
    // As a person types, each keystroke's query is new: none of its embeddings is cached from the dense part above.
    await ext.evalSw('dense.queryCache.clear()');
    const ks = await keystrokes(admin, qs.slice(0, opts.quick ? 10 : 40));
    const restart = await afterRestart(ext, admin, qs.slice(Math.floor(qs.length / 2)), opts.quick ? 2 : 5);
    const memAfter = await workerMemory(ext);

    // Bytes, with the database at rest.
    await stop();
    const du1 = await settledDisk(idbDir, 60_000);
    const usage1 = await storageUsage(admin);

    const memMB = (m: Awaited<ReturnType<typeof workerMemory>>) => (m.heapUsedBytes + (m.backingStorageBytes ?? Object.values(m.arrays).reduce((a, b) => a + b, 0))) / 1048576;
    const workerMemoryMB = Math.max(memMB(memLexical), memMB(memDense), memMB(memAfter));
    const at = (n: number) => captures.find((c) => c.sections >= n - 1 && c.sections <= n + 1000) ?? captures[0]!;
    const cap10k = at(10_000);
    const cap52k = at(52_000);
    const cap1k = captures.find((c) => c.sections <= 2_000);
    const cap1M = captures[captures.length - 1]!;
    const lexCold = dist(lex.cold);
    const lexWarm = dist(lex.warm);
    const search = dist(lex.search);
    const denseEmbedded = dist(denseRuns.embedded);
    const denseScan = dist(denseRuns.scan);
    const denseSearch = dist(denseRuns.search);
    const ksFrame = dist(ks.map((k) => k.toFrame));
    const firstAnswer = dist(restart.keystroke.map((k) => k.toFrame));
    // The hybrid answer that replaced a words-only first answer (search box's second ask), when there was one.
    const hybridAfterStop = restart.hybrid.filter((x): x is number => x !== null);
    const firstHybrid = hybridAfterStop.length ? dist(hybridAfterStop) : null;
    const bytesPerPage = (usage1 - usage0) / pages;
    const diskPerPage = (du1 - du0) / pages;
    const textPerPage = textChars / pages;
    const endMachine = machine();
    const runSeconds = (now() - started) / 1000;

    report.text(
      `Chromium ${chromium}, headless. ${num(stats.chunks)} sections in ${num(stats.pages)} synthetic pages (18–22 sections, ${num(textPerPage / 1024, 1)} KB of section text a page) written as the product stores them once merged (bulkLoad.ts) in ${num(loadMs / 1000)} s, ${num(index.terms)} terms; ` +
        `${num(allIds.length)} vectors of ${model.dim} dims (random, written through vectorStore's vectorRecords in ${num(vec.ms / 1000)} s). ${CAPTURE_PAGES} new pages through engine.capture at each of ${captures.map((c) => num(c.sections)).join(', ')} sections. ` +
        `${items.length} queries sampled from the corpus's words (common, mid, rare, identifiers). Load average ${startMachine.loadAvg.join(' ')} at the start, ${endMachine.loadAvg.join(' ')} at the end; run ${num(runSeconds / 60, 1)} min.`,
    );
    report.table(
      ['measure', 'median ms', 'p95 ms', 'note'],
      [
        ...captures.map((c) => [`capture write per page at ${num(c.sections)} sections (engine.capture)`, ms(c.perPage.median), ms(c.perPage.p95), `${c.perPage.n} pages; merged in the background afterwards: ${ms(c.mergeMsPerPage)} ms a page of merge steps`]),
        ['lexical lane, postings from IndexedDB (cache dropped per query)', ms(lexCold.median), ms(lexCold.p95), `${lexCold.n} queries; term ids, blocks and BM25 top 90`],
        ['lexical lane, warm', ms(lexWarm.median), ms(lexWarm.p95), `posting cache ${num(memLexical.arrays.postingCache! / 12)} entries after the run`],
        ['lexical lane, first query after a worker stop', ms(dist(afterStop).median), ms(dist(afterStop).p95), `${afterStop.length} stops; loads the page table (norms) and the delta first`],
        ['engine.search, lexical only (warm cache, present included)', ms(search.median), ms(search.p95), 'result cards: sections read and decompressed, snippets'],
        ['dense lane, query embedded (offscreen document + storage tier)', ms(denseEmbedded.median), ms(denseEmbedded.p95), `${denseEmbedded.n} queries; tier ${denseRuns.tier}, ${mb(denseRuns.resident)} resident`],
        ['dense lane, query vector cached (storage tier scan + rescoring from IndexedDB)', ms(denseScan.median), ms(denseScan.p95), ''],
        ['engine.search, hybrid (dense on)', ms(denseSearch.median), ms(denseSearch.p95), ''],
        ['keystroke → next frame (search.html, dense on)', ms(ksFrame.median), ms(ksFrame.p95), `${ks.length} queries${ks.failed ? `, ${ks.failed} timed out` : ''}`],
        ['first answer after a worker stop: keystroke → frame', ms(firstAnswer.median), ms(firstAnswer.p95), `${restart.keystroke.length} stops; offscreen document kept (an idle stop leaves it)`],
        ['  … its words + meaning answer replacing it: keystroke → DOM', firstHybrid ? ms(firstHybrid.median) : '—', firstHybrid ? ms(firstHybrid.p95) : '—', `${hybridAfterStop.length} of ${restart.keystroke.length} first answers were words-only (dense index loading)`],
      ],
    );
    // engine.search, lexical only (posting cache warm), by phase: where its slow queries spend their time.
    const lexPhases = phaseTable(lex.searchTimings);
    report.text(`engine.search with the dense lane off (${lex.search.length} queries, postings cached), by phase:`);
    report.table(['phase', 'median ms', 'p95 ms', 'mean ms'], lexPhases.map((p) => [p.phase, ms(p.median), ms(p.p95), ms(p.mean)]));
    const breakdown = keystrokeBreakdown(ks);
    report.text(`One keystroke taken apart (search.html, dense on; ${ks.length} queries; engine phases from the reply's timings):`);
    report.table(
      ['part of a keystroke', 'median ms', 'p95 ms'],
      breakdown.map((b) => [b.part.replace(/^ +/, (sp) => '\u00a0'.repeat(sp.length * 2)), ms(b.median), ms(b.p95)]),
    );
    report.table(
      ['bytes', 'total', 'per page', '÷ section text'],
      [
        ['storage.estimate()', mb(usage1 - usage0), `${num(bytesPerPage / 1024, 1)} KB`, `${(bytesPerPage / textPerPage).toFixed(2)}x`],
        ['LevelDB files on disk', mb(du1 - du0), `${num(diskPerPage / 1024, 1)} KB`, `${(diskPerPage / textPerPage).toFixed(2)}x`],
      ],
    );
    report.table(
      ['worker memory', 'JS heap used (after GC)', 'array buffers', 'of which'],
      [
        ['lexical, after the queries', mb(memLexical.heapUsedBytes), memLexical.backingStorageBytes === null ? '–' : mb(memLexical.backingStorageBytes), Object.entries(memLexical.arrays).map(([k, b]) => `${k} ${mb(b)}`).join(', ')],
        ['dense on, after the queries', mb(memDense.heapUsedBytes), memDense.backingStorageBytes === null ? '–' : mb(memDense.backingStorageBytes), Object.entries(memDense.arrays).map(([k, b]) => `${k} ${mb(b)}`).join(', ')],
        ['after keystrokes and restarts', mb(memAfter.heapUsedBytes), memAfter.backingStorageBytes === null ? '–' : mb(memAfter.backingStorageBytes), Object.entries(memAfter.arrays).map(([k, b]) => `${k} ${mb(b)}`).join(', ')],
      ],
    );
    const ratio = cap1M.perPage.median / cap10k.perPage.median;
    const targets: Target[] = [
      { what: 'lexical query from IndexedDB, median', target: '< 50 ms', measured: `${ms(lexCold.median)} ms`, met: lexCold.median < 50 },
      { what: 'lexical query from IndexedDB, p95', target: '< 150 ms', measured: `${ms(lexCold.p95)} ms`, met: lexCold.p95 < 150 },
      { what: 'dense query (storage tier, query embedded), median', target: '< 100 ms', measured: `${ms(denseEmbedded.median)} ms`, met: denseEmbedded.median < 100 },
      { what: 'keystroke → results on screen, median', target: '< 100 ms', measured: `${ms(ksFrame.median)} ms`, met: ksFrame.median < 100 },
      { what: 'first answer after a worker stop, median', target: '< 500 ms', measured: `${ms(firstAnswer.median)} ms`, met: firstAnswer.median < 500 },
      { what: `capture write per page at ${num(cap1M.sections)} sections, median`, target: '< 100 ms', measured: `${ms(cap1M.perPage.median)} ms`, met: cap1M.perPage.median < 100 },
      { what: 'capture write at the end ÷ at 10,000 sections', target: '≤ 1.5x', measured: `${ratio.toFixed(2)}x (${ms(cap1M.perPage.median)} vs ${ms(cap10k.perPage.median)} ms)`, met: ratio <= 1.5 },
      { what: 'worker memory (JS heap + array buffers)', target: '≤ 150 MB', measured: `${num(workerMemoryMB, 1)} MB`, met: workerMemoryMB <= 150 },
      { what: 'bytes per page ÷ section text (synthetic pages, with vectors)', target: '≤ 0.6x', measured: `${(bytesPerPage / textPerPage).toFixed(2)}x (${num(bytesPerPage / 1024, 1)} KB a page of ${num(textPerPage / 1024, 1)} KB text)`, met: bytesPerPage / textPerPage <= 0.6 },
    ];
    targetTable(report, targets);

    // The first answer after a stop, in parts (tests/bench/browser.ts firstAnswerParts): medians over the stops.
    const partKeys = [...new Set(restart.parts.flatMap((p) => Object.keys(p)))];
    const firstAnswerParts = Object.fromEntries(partKeys.map((k) => [k, Math.round(dist(restart.parts.map((p) => p[k]).filter((x): x is number => x !== undefined)).median * 10) / 10]));
    const starts = partKeys.filter((k) => k.startsWith('at:')).sort((a, b) => firstAnswerParts[a]! - firstAnswerParts[b]!);
    report.table(
      ['first answer after a stop: step (first search of the worker)', 'starts at ms from keydown (median)', 'takes ms (median)'],
      starts.map((k) => {
        const name = k.slice(3);
        const d = firstAnswerParts[`ms:${name}`];
        return [name, ms(firstAnswerParts[k]!), d === undefined ? '' : ms(d)];
      }),
    );

    const round = (x: number) => Math.round(x * 10) / 10;
    const json = {
      date: new Date().toISOString(),
      machine: { ...endMachine, chromium, loadAvgStart: startMachine.loadAvg, loadAvgEnd: endMachine.loadAvg },
      runSeconds: Math.round(runSeconds),
      ...(reuse ? { reusedProfile: true } : {}),
      sections: stats.chunks,
      pages: stats.pages,
      terms: index.terms,
      lexicalP50Ms: round(lexCold.median),
      lexicalP95Ms: round(lexCold.p95),
      lexicalWarmP50Ms: round(lexWarm.median),
      lexicalWarmP95Ms: round(lexWarm.p95),
      lexicalFirstAfterStopMs: round(dist(afterStop).median),
      searchP50Ms: round(search.median),
      denseP50Ms: round(denseEmbedded.median),
      denseP95Ms: round(denseEmbedded.p95),
      denseScanP50Ms: round(denseScan.median),
      denseTier: denseRuns.tier,
      hybridSearchP50Ms: round(denseSearch.median),
      keystrokeMs: round(ksFrame.median),
      keystrokeP95Ms: round(ksFrame.p95),
      lexicalSearchPhases: lexPhases.map((p) => ({ ...p, median: round(p.median), p95: round(p.p95), mean: round(p.mean) })),
      keystrokeBreakdown: breakdown.map((b) => ({ part: b.part.trim(), median: round(b.median), p95: round(b.p95) })),
      firstAnswerAfterStopMs: round(firstAnswer.median),
      firstHybridAfterStopMs: firstHybrid ? round(firstHybrid.median) : null,
      firstAnswersWordsOnly: hybridAfterStop.length,
      firstAnswerParts,
      firstAnswerTraces: restart.parts,
      captureMsPerPage: round(cap1M.perPage.median),
      captureP95MsPerPage: round(cap1M.perPage.p95),
      ...(cap1k ? { captureMsPerPageAt1k: round(cap1k.perPage.median), captureSectionsAt1k: cap1k.sections } : {}),
      captureMsPerPageAt10k: round(cap10k.perPage.median),
      captureMsPerPageAt52k: round(cap52k.perPage.median),
      captureRatioTo10k: Math.round(ratio * 100) / 100,
      mergeMsPerPage: Object.fromEntries(captures.map((c) => [c.sections, round(c.mergeMsPerPage)])),
      bytesPerPage: Math.round(bytesPerPage),
      diskBytesPerPage: Math.round(diskPerPage),
      textBytesPerPage: Math.round(textPerPage),
      bytesPerText: Math.round((bytesPerPage / textPerPage) * 100) / 100,
      workerMemoryMB: round(workerMemoryMB),
      workerMemory: { lexical: memLexical, dense: memDense, after: memAfter },
      captures,
      targets,
    };
    return { chromium, json };
  } finally {
    await ext.close();
  }
}

/** Phase durations of engine.search replies (SearchResponse.timings offsets turned into durations). */
function phaseTable(ts: readonly (Record<string, number> | null)[]): { phase: string; median: number; p95: number; mean: number }[] {
  const seq = ['filtersAt', 'postingsAt', 'typosAt', 'bm25At', 'proximityReadAt', 'lexicalAt', 'fusedAt', 'sectionsAt', 'presentAt'];
  const names: Record<string, string> = { filtersAt: 'filters', postingsAt: 'postings', typosAt: 'typos', bm25At: 'BM25', proximityReadAt: 'proximity: sections read', lexicalAt: 'proximity: rescoring', fusedAt: 'fusion', sectionsAt: 'result sections read', presentAt: 'snippets and cards' };
  const rows = seq.map((key, i) => {
    const xs: number[] = [];
    for (const t of ts) {
      if (!t || t[key] === undefined) continue;
      let prev = 0;
      for (let j = i - 1; j >= 0; j--) if (t[seq[j]!] !== undefined) {
        prev = t[seq[j]!]!;
        break;
      }
      xs.push(t[key]! - prev);
    }
    const d = dist(xs);
    return { phase: names[key]!, median: d.median, p95: d.p95, mean: d.mean };
  });
  const total = dist(ts.filter((t) => t?.engineMs !== undefined).map((t) => t!.engineMs!));
  return [...rows, { phase: 'engine.search', median: total.median, p95: total.p95, mean: total.mean }];
}
