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
  backfill: { pages: number; stored: number; seconds: number; perSecond: number; searchDuring: Dist; searchIdle: Dist };
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

async function backfillPart(ext: Extension, port: number, pages: number): Promise<DayOneResult['backfill']> {
  const urls = Array.from({ length: pages }, (_, i) => `http://${HOSTS[i % HOSTS.length]}:${port}/p${i}`);
  await ext.evalSw(`Promise.all(${JSON.stringify(urls)}.map((url) => chrome.history.addUrl({ url }))).then(() => true)`);
  await ext.evalSw(`rereadDebug.dayOne.importHistory(0).then(() => rereadDebug.dayOne.history.whenIdle()).then(() => true)`);
  const idle = await ext.evalSw<number[]>(IDLE_SAMPLES(QUERIES, 60));
  // The 50,000 entries of the import part are title-only too, on addresses that do not resolve: the
  // daily cap stops the run after the local pages, which are the most recent visits and so read first.
  await ext.evalSw(`rereadDebug.dayOne.controlBackfill(undefined, ${pages}).then(() => true)`);
  const t0 = Date.now();
  await ext.evalSw(`rereadDebug.dayOne.controlBackfill('start').then(() => true)`);
  const during = await ext.evalSw<number[]>(SAMPLER(QUERIES, 50, `(await rereadDebug.dayOne.backfill.status()).state === 'running'`));
  await ext.evalSw(`rereadDebug.dayOne.backfill.whenIdle().then(() => true)`);
  const seconds = (Date.now() - t0) / 1000;
  const st = await ext.evalSw<{ done: number; stored: number; state: string }>('rereadDebug.dayOne.backfill.status()');
  if (st.state !== 'capped') throw new Error(`backfill ended ${st.state}, expected capped after ${pages} pages`);
  return { pages: st.done, stored: st.stored, seconds, perSecond: st.done / seconds, searchDuring: dist(during), searchIdle: dist(idle) };
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
    report.text(
      table(
        ['while', 'n', 'median', 'p95', 'max'],
        [
          ['history import runs (index growing to 50k)', history.searchDuring.n, ms(history.searchDuring.median), ms(history.searchDuring.p95), ms(history.searchDuring.max)],
          ['after the import (50k title entries)', history.searchAfter.n, ms(history.searchAfter.median), ms(history.searchAfter.p95), ms(history.searchAfter.max)],
          ['backfill runs', backfill.searchDuring.n, ms(backfill.searchDuring.median), ms(backfill.searchDuring.p95), ms(backfill.searchDuring.max)],
          ['backfill idle (same index)', backfill.searchIdle.n, ms(backfill.searchIdle.median), ms(backfill.searchIdle.p95), ms(backfill.searchIdle.max)],
        ],
      ),
    );
    const pdf = await pdfPart(ext, `http://127.0.0.1:${port}`, files, opts.pdfPages);
    report.text('\nPDFs (pdf.js in the offscreen document; 40 lines a page; bytes stored: section texts, records, postings and vectors of the bundled model):\n');
    report.text(table(['pages', 'file', 'sections', 'extraction ms/page', 'stored bytes/page'], pdf.map((p) => [p.pages, `${num(p.fileBytes / 1024, 1)} KB`, p.sections, ms(p.msPerPage), num(p.storedBytesPerPage)])));
    return { chromium, history, backfill, pdf };
  } finally {
    await ext.close();
    server.closeAllConnections();
    server.close();
  }
}
