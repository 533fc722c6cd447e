/**
 * Day one (#14) in the real extension (Chromium, dist/chrome with `history` granted):
 * - history title import: 50,000 history entries (chrome.history.addUrl) imported as title-only
 *   entries, entries/s, and the search latency in the worker while the import runs against after it;
 * - backfill: pages read per second from a local server (five site names, 15 ms answers), and the
 *   search latency while it runs against idle;
 * - PDFs: extraction time per page (pdf.js in the offscreen document) and bytes stored per PDF page.
 */
import { createServer, type Server } from 'node:http';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DIST, launch, type Extension } from '../e2e/harness.js';
import { makePdf, pageLines } from '../fixtures/makePdf.js';
import { dist, ms, num, table, type Dist, type Report } from './report.js';

// The samplers run as long as the job they watch: no 15 s cap on one evaluation.
process.env.HARNESS_EVAL_TIMEOUT ??= '900000';

const HOSTS = ['alpha.bench', 'bravo.bench', 'charlie.bench', 'delta.bench', 'echo.bench'];
const QUERIES = ['notes', 'page word', 'reading documents', 'site', 'topic', 'alpha', 'guide', 'ordinary prose', 'section', 'history'];

export interface DayOneOptions {
  entries: number;
  backfillPages: number;
  pdfPages: number[];
}

export interface DayOneResult {
  chromium: string;
  history: { entries: number; seconds: number; perSecond: number; batchLockMs: Dist; searchDuring: Dist; searchAfter: Dist };
  backfill: { pages: number; stored: number; seconds: number; perSecond: number; searchDuring: SearchSide; searchIdle: SearchSide; pageWrites: Dist; otherWrites: Dist };
  pdf: { pages: number; fileBytes: number; msPerPage: number; storedBytesPerPage: number; sections: number }[];
}

export function snapshotWithHistory(): string {
  const dir = mkdtempSync(join(tmpdir(), 'reread-bench-dayone-'));
  cpSync(DIST, dir, { recursive: true });
  const m = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { permissions: string[]; optional_permissions?: string[] };
  m.permissions.push('history');
  m.optional_permissions = [];
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(m));
  return dir;
}

function pageHtml(host: string, i: number): string {
  const body = Array.from({ length: 12 }, (_, k) => `<p>Paragraph ${k} of page ${i} on ${host} holds ordinary prose about reading documents, notes and a topic${(i * 7 + k) % 50} word, enough to be a page.</p>`).join('');
  return `<!doctype html><html lang="en"><title>Page ${i} on ${host}</title><main><h1>Notes ${i}</h1>${body}<h2>More</h2>${body}</main></html>`;
}

/** Search latencies (wall ms in the worker) sampled every `everyMs` while `busy()` says the job runs. */
const SAMPLER = (queries: string[], everyMs: number, busy: string) => `(async () => {
  const out = [];
  for (let i = 0; ; i++) {
    if (!(${busy})) break;
    const t = performance.now();
    await engine.search({ q: ${JSON.stringify(queries)}[i % ${queries.length}] });
    out.push(performance.now() - t);
    await new Promise((r) => setTimeout(r, ${everyMs}));
  }
  return out;
})()`;

const IDLE_SAMPLES = (queries: string[], n: number) => `(async () => {
  const out = [];
  for (let i = 0; i < ${n}; i++) {
    const t = performance.now();
    await engine.search({ q: ${JSON.stringify(queries)}[i % ${queries.length}] });
    out.push(performance.now() - t);
    await new Promise((r) => setTimeout(r, 20));
  }
  return out;
})()`;

export async function historyPart(ext: Extension, entries: number): Promise<DayOneResult['history']> {
  // 50,000 history entries on 200 sites, added in parallel batches.
  await ext.evalSw(`(async () => {
    const n = ${entries};
    for (let i = 0; i < n; i += 500) {
      await Promise.all(Array.from({ length: Math.min(500, n - i) }, (_, k) => chrome.history.addUrl({ url: 'https://site' + ((i + k) % 200) + '.bench/docs/topic' + ((i + k) % 997) + '/page-' + (i + k) + '.html' })));
    }
    return true;
  })()`);
  const t0 = Date.now();
  await ext.evalSw(`rereadDebug.dayOne.importHistory(0).then(() => true)`);
  const during = await ext.evalSw<number[]>(SAMPLER(QUERIES, 50, `(await rereadDebug.dayOne.history.status()).state === 'running'`));
  await ext.evalSw(`rereadDebug.dayOne.history.whenIdle().then(() => true)`);
  const st = await ext.evalSw<{ imported: number; state: string; startedAt: number; finishedAt: number }>('rereadDebug.dayOne.history.status()');
  const seconds = (st.finishedAt - st.startedAt) / 1000 || (Date.now() - t0) / 1000;
  const batch = await ext.evalSw<number[]>('rereadDebug.dayOne.history.batchMs');
  const after = await ext.evalSw<number[]>(IDLE_SAMPLES(QUERIES, 60));
  const phases = await ext.evalSw<{ batches: number; entries: number; newTerms: number; prepareMs: number; txMs: number }>('rereadDebug.titleWriteLog');
  console.log('title write phases', JSON.stringify(phases));
  return { entries: st.imported, seconds, perSecond: st.imported / seconds, batchLockMs: dist(batch), searchDuring: dist(during), searchAfter: dist(after) };
}

/**
 * Where a search's time goes while something writes: the worker's IndexedDB transactions (read-write
 * ones with their durations; a read of a store a read-write transaction holds waits for its end) and
 * the search's phases (lexical postings, corpus statistics, dense lane; the rest is reading the result
 * sections and scoring). Installed in the worker by the benchmark, not shipped.
 */
const INSTRUMENT = `(() => {
  if (globalThis.__bench) return true;
  const b = (globalThis.__bench = { writes: [], phases: [] });
  const orig = IDBDatabase.prototype.transaction;
  let openWrites = 0;
  IDBDatabase.prototype.transaction = function (stores, mode, opts) {
    const tx = orig.call(this, stores, mode, opts);
    if (mode === 'readwrite') {
      const rec = { stores: [].concat(stores).length, t0: performance.now(), ms: -1 };
      openWrites++;
      const end = () => { if (rec.ms < 0) { rec.ms = performance.now() - rec.t0; openWrites--; } };
      tx.addEventListener('complete', end);
      tx.addEventListener('abort', end);
      b.writes.push(rec);
      if (b.writes.length > 200000) b.writes.splice(0, 100000);
    } else if (cur) {
      // A read made by the search being timed: how long it took from its start to its end (a read on a
      // store that a write transaction started earlier holds waits for that write), and whether a write
      // was open when it started.
      const owner = cur;
      const t0 = performance.now();
      const behind = openWrites > 0;
      const end = () => { const ms = performance.now() - t0; owner.reads = Math.max(owner.reads, ms); if (behind) owner.readsBehindWrite = Math.max(owner.readsBehindWrite, ms); };
      tx.addEventListener('complete', end);
      tx.addEventListener('abort', end);
    }
    return tx;
  };
  const lex = engine.lexical;
  let cur = null;
  const wrap = (obj, name, key) => {
    const f = obj[name].bind(obj);
    obj[name] = async (...a) => { const t = performance.now(); try { return await f(...a); } finally { if (cur) cur[key] += performance.now() - t; } };
  };
  wrap(lex, 'postings', 'postings');
  wrap(lex, 'corpusStats', 'stats');
  if (engine.dense) wrap(engine.dense, 'search', 'dense');
  // The query's vector (computed in the offscreen document, which also embeds the backfilled pages).
  if (engine.dense) wrap(engine.dense, 'queryVector', 'embed');
  b.timed = async (req) => {
    const rec = (cur = { postings: 0, stats: 0, dense: 0, embed: 0, reads: 0, readsBehindWrite: 0, total: 0 });
    const t = performance.now();
    const out = await engine.search(req);
    rec.total = performance.now() - t;
    cur = null;
    b.phases.push(rec);
    return out;
  };
  return true;
})()`;

/**
 * Search latencies like SAMPLER, each with its phases: while `busy` holds, or `n` of them when `busy` is
 * null. Every other query is one never asked before (`… topic<freshFrom + i>`: a query vector to
 * compute and a term whose postings are not cached, as when the user types); the others repeat QUERIES.
 */
const PHASE_SAMPLER = (queries: string[], everyMs: number, busy: string | null, n: number, freshFrom: number) => `(async () => {
  const from = __bench.phases.length;
  const fresh = [];
  for (let i = 0; ; i++) {
    if (${busy === null ? `i >= ${n}` : `!(${busy})`}) break;
    const base = ${JSON.stringify(queries)}[(i >> 1) % ${queries.length}];
    fresh.push(i % 2 === 1);
    await __bench.timed({ q: i % 2 ? base + ' topic' + (${freshFrom} + (i >> 1)) : base });
    await new Promise((r) => setTimeout(r, ${everyMs}));
  }
  return __bench.phases.slice(from).map((p, i) => ({ ...p, fresh: fresh[i] }));
})()`;

interface Phase {
  postings: number;
  stats: number;
  dense: number;
  /** Of `dense`: computing the query's vector. */
  embed: number;
  /** The longest IndexedDB read transaction the search opened, start to end (ms). */
  reads: number;
  /** The same, counting only reads that started while a write transaction was open (0 if none did). */
  readsBehindWrite: number;
  total: number;
  fresh: boolean;
}

export interface SearchSide {
  repeated: Dist;
  fresh: Dist;
  /** Medians of the phases (ms), over all samples. */
  phases: PhaseMedians;
  /** Medians of the phases over the slowest 10% of samples: what the slow ones waited for. */
  slowPhases: PhaseMedians;
}

interface PhaseMedians {
  postings: number;
  stats: number;
  dense: number;
  embed: number;
  rest: number;
  reads: number;
  /** Share of the samples with a read that started while a write was open. */
  behindWrite: number;
}

function side(ps: Phase[]): SearchSide {
  const med = (xs: number[]) => dist(xs).median;
  const rest = (p: Phase) => Math.max(0, p.total - Math.max(p.postings, p.stats, p.dense));
  const slow = [...ps].sort((a, b) => b.total - a.total).slice(0, Math.max(1, Math.ceil(ps.length / 10)));
  const of = (xs: Phase[]): PhaseMedians => ({
    postings: med(xs.map((p) => p.postings)),
    stats: med(xs.map((p) => p.stats)),
    dense: med(xs.map((p) => p.dense)),
    embed: med(xs.map((p) => p.embed ?? 0)),
    rest: med(xs.map(rest)),
    reads: med(xs.map((p) => p.reads ?? 0)),
    behindWrite: xs.length ? xs.filter((p) => (p.readsBehindWrite ?? 0) > 0).length / xs.length : 0,
  });
  return { repeated: dist(ps.filter((p) => !p.fresh).map((p) => p.total)), fresh: dist(ps.filter((p) => p.fresh).map((p) => p.total)), phases: of(ps), slowPhases: of(slow) };
}

async function backfillPart(ext: Extension, port: number, pages: number): Promise<DayOneResult['backfill']> {
  const urls = Array.from({ length: pages }, (_, i) => `http://${HOSTS[i % HOSTS.length]}:${port}/p${i}`);
  await ext.evalSw(`Promise.all(${JSON.stringify(urls)}.map((url) => chrome.history.addUrl({ url }))).then(() => true)`);
  await ext.evalSw(`rereadDebug.dayOne.importHistory(0).then(() => rereadDebug.dayOne.history.whenIdle()).then(() => true)`);
  await ext.evalSw(INSTRUMENT);
  // Idle first (the embedding queue drained: nothing else runs), then the same sampler while the backfill runs.
  await ext.evalSw(`engine.dense ? new Promise((r) => { const t = setInterval(async () => { if (!(await engine.dense.pending())) { clearInterval(t); r(true); } }, 200); }) : true`);
  const idle = side(await ext.evalSw<Phase[]>(PHASE_SAMPLER(QUERIES, 50, null, 120, 100)));
  // The 50,000 entries of the import part are title-only too, on addresses that do not resolve: the
  // daily cap stops the run after the local pages, which are the most recent visits and so read first.
  await ext.evalSw(`rereadDebug.dayOne.controlBackfill(undefined, ${pages}).then(() => true)`);
  const writesFrom = await ext.evalSw<number>('__bench.writes.length');
  const t0 = Date.now();
  await ext.evalSw(`rereadDebug.dayOne.controlBackfill('start').then(() => true)`);
  const during = side(await ext.evalSw<Phase[]>(PHASE_SAMPLER(QUERIES, 50, `(await rereadDebug.dayOne.backfill.status()).state === 'running'`, 0, 200)));
  await ext.evalSw(`rereadDebug.dayOne.backfill.whenIdle().then(() => true)`);
  const seconds = (Date.now() - t0) / 1000;
  const st = await ext.evalSw<{ done: number; stored: number; state: string }>('rereadDebug.dayOne.backfill.status()');
  if (st.state !== 'capped') throw new Error(`backfill ended ${st.state}, expected capped after ${pages} pages`);
  const writes = await ext.evalSw<{ stores: number; ms: number }[]>(`__bench.writes.slice(${writesFrom})`);
  const pageWrites = dist(writes.filter((w) => w.stores >= 5 && w.ms >= 0).map((w) => w.ms));
  const otherWrites = dist(writes.filter((w) => w.stores < 5 && w.ms >= 0).map((w) => w.ms));
  return { pages: st.done, stored: st.stored, seconds, perSecond: st.done / seconds, searchDuring: during, searchIdle: idle, pageWrites, otherWrites };
}

// Schema 3: segments merged first (what the background does soon after a write), then sections,
// posting blocks with their [term id, first id] keys, the dictionary and vectors.
const STORED_BYTES = `rereadDebug.maintain(true).then(() => engine.db()).then(async (db) => {
  const [sections, postings, terms, vectors] = await Promise.all([db.getAll('sections'), db.getAll('postings'), db.getAllKeys('terms'), db.getAll('vectors')]);
  let n = 0;
  for (const t of sections) n += t.z.byteLength + t.url.length;
  for (const p of postings) n += p.byteLength + 16;
  for (const t of terms) n += t.length + 8;
  for (const v of vectors) n += v.codes.byteLength + v.scales.byteLength + v.ids.byteLength;
  return n;
})`;

async function pdfPart(ext: Extension, origin: string, files: Map<string, Buffer>, sizes: number[]): Promise<DayOneResult['pdf']> {
  const out: DayOneResult['pdf'] = [];
  for (const n of sizes) {
    const path = `/book-${n}.pdf`;
    const outline = Array.from({ length: Math.ceil(n / 5) }, (_, k) => ({ title: `Chapter ${k + 1}`, level: 1, page: k * 5 + 1 }));
    files.set(path, makePdf({ title: `Book of ${n} pages`, pages: Array.from({ length: n }, (_, i) => pageLines(i + 1, `marker${n}x${i + 1}`, 40)), outline }));
    await ext.evalSw(`engine.dense ? new Promise((r) => { const t = setInterval(async () => { if (!(await engine.dense.pending())) { clearInterval(t); r(true); } }, 200); }) : true`);
    const before = await ext.evalSw<number>(STORED_BYTES);
    const mark = await ext.evalSw<number>('rereadDebug.pdfLog.ms.length');
    const outcome = await ext.evalSw<string>(`rereadDebug.dayOne.pdf.handle(-${n}, ${JSON.stringify(origin + path)}, false, true)`);
    if (outcome !== 'new') throw new Error(`PDF of ${n} pages: ${outcome}`);
    // Bytes once its sections are embedded too (vectors are part of what a page costs).
    await ext.evalSw(`new Promise((r) => { const t = setInterval(async () => { if (!(await engine.dense?.pending())) { clearInterval(t); r(true); } }, 200); })`);
    const after = await ext.evalSw<number>(STORED_BYTES);
    const perPage = (await ext.evalSw<number[]>('rereadDebug.pdfLog.ms')).slice(mark);
    const sections = await ext.evalSw<number>(`engine.db().then((db) => db.get('pages', ${JSON.stringify(origin + path)})).then((p) => p.chunkIds.length)`);
    out.push({ pages: n, fileBytes: files.get(path)!.length, msPerPage: perPage[0] ?? NaN, storedBytesPerPage: (after - before) / n, sections });
  }
  return out;
}

export async function runDayOne(report: Report, opts: DayOneOptions): Promise<DayOneResult> {
  const files = new Map<string, Buffer>();
  const server: Server = createServer((req, res) => {
    const host = (req.headers.host ?? '').split(':')[0]!;
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const pdf = files.get(path);
    if (pdf) return void res.writeHead(200, { 'content-type': 'application/pdf' }).end(pdf);
    const m = /^\/p(\d+)$/.exec(path);
    setTimeout(() => {
      if (!m) res.writeHead(404).end();
      else res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(pageHtml(host, Number(m[1])));
    }, 15);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  const ext = await launch({ dist: snapshotWithHistory(), args: [`--host-resolver-rules=${HOSTS.map((h) => `MAP ${h} 127.0.0.1`).join(', ')}`] });
  try {
    const chromium = ext.ctx.browser()?.version() ?? '';
    report.heading('Day one: history import, backfill, PDFs (Chromium, the extension as built)');
    const history = await historyPart(ext, opts.entries);
    report.text(`History title import: ${num(history.entries)} entries in ${history.seconds.toFixed(1)} s = **${num(history.perSecond)} entries/s** (write lock held ${ms(history.batchLockMs.median)} ms median, ${ms(history.batchLockMs.max)} ms max per batch of 50).`);
    const backfill = await backfillPart(ext, port, opts.backfillPages);
    report.text(`Backfill: ${num(backfill.pages)} pages (${num(backfill.stored)} stored) in ${backfill.seconds.toFixed(1)} s = **${backfill.perSecond.toFixed(1)} pages/s** (five hosts, one request per host, three in all, 15 ms answers).`);
    report.text('\nSearch latency in the worker (wall ms of engine.search, lexical + dense lanes):\n');
    const row = (label: string, d: Dist) => [label, d.n, ms(d.median), ms(d.p95), ms(d.max)];
    report.text(
      table(
        ['while', 'n', 'median', 'p95', 'max'],
        [
          row(`history import runs (index growing to ${num(history.entries)})`, history.searchDuring),
          row(`after the import (${num(history.entries)} title entries)`, history.searchAfter),
          row('backfill idle, repeated queries', backfill.searchIdle.repeated),
          row('**backfill runs**, repeated queries', backfill.searchDuring.repeated),
          row('backfill idle, new queries', backfill.searchIdle.fresh),
          row('**backfill runs**, new queries', backfill.searchDuring.fresh),
        ],
      ),
    );
    const ph = (label: string, p: SearchSide['phases']) => [label, ms(p.postings), ms(p.stats), ms(p.dense), ms(p.embed), ms(p.rest), ms(p.reads), `${Math.round(p.behindWrite * 100)}%`];
    report.text(
      '\nWhere the time goes (medians, ms; the lanes run side by side: rest = total - the slower of postings/statistics/dense, i.e. scoring, section reads and the result cards; ' +
        'query vector = the part of the dense lane spent computing the query vector in the offscreen document; longest read = the longest IndexedDB read transaction of the search, start to end; ' +
        'behind a write = searches with a read that started while a write transaction was open):\n',
    );
    report.text(
      table(
        ['samples', 'postings', 'statistics', 'dense lane', 'query vector', 'rest', 'longest read', 'behind a write'],
        [ph('idle, all', backfill.searchIdle.phases), ph('idle, slowest 10%', backfill.searchIdle.slowPhases), ph('backfill, all', backfill.searchDuring.phases), ph('backfill, slowest 10%', backfill.searchDuring.slowPhases)],
      ),
    );
    report.text(`\nWrite transactions during the backfill: page writes median ${ms(backfill.pageWrites.median)} / p95 ${ms(backfill.pageWrites.p95)} / max ${ms(backfill.pageWrites.max)} ms (${backfill.pageWrites.n}); small writes (progress, skips, vectors) median ${ms(backfill.otherWrites.median)} / p95 ${ms(backfill.otherWrites.p95)} ms (${backfill.otherWrites.n}).`);
    const pdf = await pdfPart(ext, `http://127.0.0.1:${port}`, files, opts.pdfPages);
    if (pdf.length) report.text('\nPDFs (pdf.js in the offscreen document; 40 lines a page; bytes stored: section texts, records, postings and vectors of the bundled model):\n');
    if (pdf.length) report.text(table(['pages', 'file', 'sections', 'extraction ms/page', 'stored bytes/page'], pdf.map((p) => [p.pages, `${num(p.fileBytes / 1024, 1)} KB`, p.sections, ms(p.msPerPage), num(p.storedBytesPerPage)])));
    return { chromium, history, backfill, pdf };
  } finally {
    await ext.close();
    server.closeAllConnections();
    server.close();
  }
}
