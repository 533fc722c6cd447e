/**
 * Capture quality over the Python manual, measured in Chromium with the built extension loaded.
 *
 *   npm run build && node --import tsx tests/eval/capture-report.ts [--limit N] [--minutes M] [--only a.html,b.html]
 *     [--no-landmarks] [--readability] [--queries | --query-pages] [--out file.json] [--dist dir]
 *
 * --dist loads another unpacked build (a copy of an earlier dist/chrome, for before/after runs).
 *
 * Visits every page of Debian's python3.11-doc (in a fixed shuffled order, so a run cut short by
 * --minutes or --limit is still a fair sample), waits for each capture in the worker's captureLog, reads
 * the page's chunks back from the worker's IndexedDB and reports:
 * - retention: share of the words of the page's main content container (Sphinx `div[role=main]`,
 *   its innerText, so only what is rendered) that appear in the captured chunks (multiset: a word seen
 *   3 times on the page must appear 3 times in the chunks);
 * - identifiers: Sphinx definition ids (`dt[id]`, e.g. `os.path.join`) found as search tokens in the
 *   chunks, and the share that are a chunk's own anchor (their own result, their own jump link);
 * - extraction method counts, chunks per page, words per chunk;
 * - main-thread cost per page as the content script reports it (captureLog extraction.costMs,
 *   longestTaskMs), and independently the long tasks (> 50 ms) the page's PerformanceObserver saw after
 *   the page settled (everything on the main thread counts there, the capture included).
 * With --no-landmarks the pages are served without `role="main"`, so the capture takes the path of pages
 * without a main landmark (Readability on small pages, the cleaned body otherwise).
 * With --queries (or --query-pages: only the 98 pages the judged queries point at) it then runs
 * tests/eval/python-manual-queries.json through the engine: MRR@10 of the best page, and for identifier
 * queries whether the result jumps to the identifier's own entry.
 * With --readability it also times Readability itself on each page (a clone, in the page) and reports
 * what it would have kept: the evidence for when the content script runs it.
 * Prints a table and writes bench/results/capture.json.
 */
import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join, relative } from 'node:path';
import { launch, serve, PYTHON_DOCS, ROOT, type Extension } from '../e2e/harness.js';
import { normalizeUrl } from '../../src/url.js';
import { tokenize } from '../../src/tokenizer.js';

interface Args {
  /** Serve the pages without their `role="main"` landmark: the path pages without one take (Readability or body). */
  noLandmarks: boolean;
  limit: number;
  minutes: number;
  readability: boolean;
  out: string;
  only: string[];
  /** After the visits, run tests/eval/python-manual-queries.json through the engine's search. */
  queries: boolean;
  dist?: string;
}

function parseArgs(argv: string[]): Args {
  const a: Args = { noLandmarks: false, limit: Infinity, minutes: 12, readability: false, out: join(ROOT, 'bench/results/capture.json'), only: [], queries: false };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    if (k === '--limit') a.limit = Number(argv[++i]);
    else if (k === '--minutes') a.minutes = Number(argv[++i]);
    else if (k === '--readability') a.readability = true;
    else if (k === '--no-landmarks') a.noLandmarks = true;
    else if (k === '--out') a.out = argv[++i]!;
    else if (k === '--only') a.only = argv[++i]!.split(',');
    else if (k === '--queries') a.queries = true;
    else if (k === '--dist') a.dist = argv[++i]!;
    else if (k === '--query-pages') {
      // Just the pages the judged queries point at (98 pages): enough for --queries, in a few minutes.
      a.queries = true;
      a.only = [...new Set(loadQueries().flatMap((q) => Object.keys(q.relevant)))].sort();
    }
  }
  return a;
}

interface Query {
  id: string;
  class: string;
  query: string;
  relevant: Record<string, number>;
}
const loadQueries = (): Query[] => JSON.parse(readFileSync(join(ROOT, 'tests/eval/python-manual-queries.json'), 'utf8')) as Query[];

interface QueryResult {
  id: string;
  class: string;
  query: string;
  /** 1-based rank of the grade-2 page among the results (0: not in the top 10). */
  rank: number;
  /** The jump link of that page's result. */
  href?: string;
  /** Identifier queries: the link jumps to the identifier's own entry (its fragment ends with the name). */
  anchorHit?: boolean;
}

/** Section-level check of the captured manual: where do the judged queries land? */
async function runQueries(ext: Extension, origin: string, visited: Set<string>): Promise<QueryResult[]> {
  const out: QueryResult[] = [];
  for (const q of loadQueries()) {
    const best = Object.entries(q.relevant).find(([, g]) => g === 2)![0];
    if (!visited.has(best)) continue;
    const res = await inWorker<{ results: { url: string; href: string }[] }>(ext, `engine.search({ q: ${JSON.stringify(q.query)}, limit: 10 })`);
    const i = res.results.findIndex((r) => r.url === `${origin}/${best}`);
    const r: QueryResult = { id: q.id, class: q.class, query: q.query, rank: i + 1 };
    if (i >= 0) r.href = res.results[i]!.href.slice(origin.length + 1);
    if (q.class === 'identifier') {
      const frag = decodeURIComponent(r.href?.split('#')[1] ?? '').toLowerCase();
      const name = q.query.split('.').pop()!.toLowerCase();
      // Its own dt id (`os.path.join`, `object.__init_subclass__`, `envvar-PYTHONPATH`) or a section named after it.
      r.anchorHit = !!frag && (frag === name || frag === q.query.toLowerCase() || frag.endsWith('.' + name) || frag === 'envvar-' + name);
    }
    out.push(r);
  }
  return out;
}

function listPages(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) {
        if (!name.startsWith('_')) walk(p);
      } else if (name.endsWith('.html')) out.push(relative(dir, p));
    }
  };
  walk(dir);
  return out.sort();
}

/** Deterministic shuffle (mulberry32), so partial runs sample the whole manual. */
function shuffle<T>(xs: T[], seed = 42): T[] {
  let s = seed >>> 0;
  const rnd = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

const WORD = /[\p{L}\p{N}_]+/gu;
function words(text: string): string[] {
  return text.normalize('NFKC').toLowerCase().match(WORD) ?? [];
}

function bag(ws: string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const w of ws) m.set(w, (m.get(w) ?? 0) + 1);
  return m;
}

/** Share of `ref` (multiset) covered by `got`. */
function retention(ref: Map<string, number>, got: Map<string, number>): number {
  let total = 0;
  let kept = 0;
  for (const [w, n] of ref) {
    total += n;
    kept += Math.min(n, got.get(w) ?? 0);
  }
  return total ? kept / total : 1;
}

function quantile(xs: number[], q: number): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const i = Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1));
  return s[i]!;
}

const r2 = (x: number) => Math.round(x * 100) / 100;

interface PageResult {
  path: string;
  ok: boolean;
  error?: string;
  method?: string;
  refWords: number;
  retention: number;
  chunks: number;
  chunkWords: number[];
  costMs: number;
  longestTaskMs: number;
  /** Tasks the capture ran as (slices between yields to the page). */
  tasks: number;
  longTasks: number[];
  identifiers: number;
  identifiersFound: number;
  identifiersAnchored: number;
  captureWaitMs: number;
  /** Time the worker took to file the capture (builds that log it), and who cut the sections. */
  workerMs?: number;
  cutBy?: string;
  /** The reference words most often missing from the chunks (for diagnosis). */
  missing: string[];
  /** Identifiers not found as tokens (first few). */
  missingIds: string[];
  readability?: { ms: number; retention: number; elements: number } | null;
}

interface LogEntry {
  url: string;
  at: number;
  outcome: string;
  chunks: number;
  extraction?: { method: string; costMs: number; longestTaskMs: number; tasks?: number; retention: number };
  workerMs?: number;
  cutBy?: string;
}

interface Reference {
  text: string;
  ids: string[];
  elements: number;
  longTasks: { start: number; duration: number }[];
  settledAt: number;
}

/**
 * Evaluates in the service worker with `engine` in scope. The Worker object is looked up once: the
 * worker is never stopped here, and every extra CDP round trip is CPU taken from the page being measured.
 */
let worker: import('playwright').Worker | null = null;
async function inWorker<T>(ext: Extension, expr: string): Promise<T> {
  worker ??= await ext.sw();
  return (await worker.evaluate(`(async () => { const { engine } = globalThis.reread; return (${expr}); })()`)) as T;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  let pages = shuffle(listPages(PYTHON_DOCS));
  if (args.only.length) pages = args.only;
  pages = pages.slice(0, args.limit);
  const server = await serve({ '/': PYTHON_DOCS });
  if (args.noLandmarks) {
    for (const p of pages) server.routes.set('/' + p, readFileSync(join(PYTHON_DOCS, p), 'utf8').replace(/ role="main"/g, ''));
  }
  const ext = await launch(args.dist ? { dist: args.dist } : {});
  // Embedding is another lane's work; off, the worker's CPU does not blur the page's capture cost.
  await inWorker(ext, 'engine.updateSettings({ denseEnabled: false })');
  // The eval's own instrument in the test page: long tasks on the main thread, whoever ran them.
  await ext.ctx.addInitScript(() => {
    const w = window as unknown as { __rrLong: { start: number; duration: number }[] };
    w.__rrLong = [];
    try {
      new PerformanceObserver((l) => {
        for (const e of l.getEntries()) w.__rrLong.push({ start: e.startTime, duration: e.duration });
      }).observe({ type: 'longtask', buffered: true });
    } catch {
      /* no long task API */
    }
  });
  const page = await ext.ctx.newPage();
  const results: PageResult[] = [];
  const loadBefore = loadavg()[0]!;
  const deadline = Date.now() + args.minutes * 60_000;
  const started = Date.now();
  for (const [i, path] of pages.entries()) {
    if (Date.now() > deadline) {
      console.log(`time budget reached after ${i} pages`);
      break;
    }
    const url = server.url('/' + path);
    const key = normalizeUrl(url)!;
    const t0 = Date.now();
    const res: PageResult = { path, ok: false, refWords: 0, retention: 0, chunks: 0, chunkWords: [], costMs: 0, longestTaskMs: 0, tasks: 0, longTasks: [], identifiers: 0, identifiersFound: 0, identifiersAnchored: 0, captureWaitMs: 0, missing: [], missingIds: [] };
    try {
      await page.goto(url, { waitUntil: 'load', timeout: 30_000 });
      let entry: LogEntry | undefined;
      for (let waited = 0; waited < 15_000; waited += 200) {
        entry = await inWorker<LogEntry | undefined>(ext, `engine.captureLog.findLast((e) => e.url === ${JSON.stringify(key)} && e.at >= ${t0})`);
        if (entry) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      res.captureWaitMs = Date.now() - t0;
      if (!entry) throw new Error('no capture within 15 s');
      const chunks = await inWorker<{ text: string; anchor: { id?: string }; headingPath: string[] }[]>(
        ext,
        // Through the worker's reader of section text (since schema v3 the sections record of the page).
        `globalThis.rereadDebug.pageChunks(${JSON.stringify(key)}).then((cs) => cs.map((c) => ({ text: c.text, anchor: c.anchor, headingPath: c.headingPath })))`,
      );
      const ref = await page.evaluate((): Reference => {
        const main = document.querySelector('div[role=main]') ?? document.querySelector('div.body') ?? document.querySelector('main') ?? document.body;
        const ids = [...main.querySelectorAll('dt[id]')].map((d) => d.id).filter((id) => /^[A-Za-z_][\w.]*$/.test(id));
        const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
        return {
          text: (main as HTMLElement).innerText,
          ids,
          elements: document.getElementsByTagName('*').length,
          longTasks: (window as unknown as { __rrLong: { start: number; duration: number }[] }).__rrLong ?? [],
          settledAt: nav ? nav.loadEventEnd : 0,
        };
      });
      const refBag = bag(words(ref.text));
      const gotBag = bag(chunks.flatMap((c) => words(c.text)));
      res.refWords = [...refBag.values()].reduce((a, b) => a + b, 0);
      res.retention = retention(refBag, gotBag);
      res.missing = [...refBag]
        .map(([w, n]) => [w, n - Math.min(n, gotBag.get(w) ?? 0)] as const)
        .filter(([, n]) => n > 0)
        .sort((a, b) => b[1] - a[1])
        .slice(0, 15)
        .map(([w, n]) => `${w}×${n}`);
      res.method = entry.extraction?.method ?? 'unknown';
      res.chunks = chunks.length;
      res.chunkWords = chunks.map((c) => c.text.split(/\s+/).filter(Boolean).length);
      res.costMs = entry.extraction?.costMs ?? 0;
      res.longestTaskMs = entry.extraction?.longestTaskMs ?? 0;
      res.tasks = entry.extraction?.tasks ?? 0;
      if (entry.workerMs !== undefined) res.workerMs = entry.workerMs;
      if (entry.cutBy) res.cutBy = entry.cutBy;
      // Long tasks after load (the page's own start-up work runs before that).
      res.longTasks = ref.longTasks.filter((t) => t.start >= ref.settledAt).map((t) => Math.round(t.duration));
      const tokens = new Set(chunks.flatMap((c) => tokenize(c.text)));
      const anchors = new Set(chunks.map((c) => c.anchor?.id).filter(Boolean));
      res.identifiers = ref.ids.length;
      res.identifiersFound = ref.ids.filter((id) => tokens.has(id.toLowerCase())).length;
      res.identifiersAnchored = ref.ids.filter((id) => anchors.has(id)).length;
      res.missingIds = ref.ids.filter((id) => !tokens.has(id.toLowerCase())).slice(0, 10);
      if (args.readability) res.readability = await readabilityProbe(page, refBag);
      res.ok = true;
    } catch (e) {
      res.error = e instanceof Error ? e.message : String(e);
    }
    results.push(res);
    if ((i + 1) % 25 === 0) console.log(`${i + 1}/${pages.length} pages, ${Math.round((Date.now() - started) / 1000)} s`);
  }
  await page.close();
  const queries = args.queries ? await runQueries(ext, server.origin, new Set(results.filter((r) => r.ok).map((r) => r.path))) : [];
  await ext.close();
  await server.close();
  // Timings are wall-clock on the page's main thread: a busy machine stretches them. Say how busy it was.
  report(results, args, Date.now() - started, queries, [loadBefore, loadavg()[0]!]);
}

/** Times Readability on a clone of the page (in the page, after the capture) and scores what it kept. */
async function readabilityProbe(page: import('playwright').Page, refBag: Map<string, number>): Promise<{ ms: number; retention: number; elements: number } | null> {
  await page.addScriptTag({ path: join(ROOT, 'node_modules/@mozilla/readability/Readability.js') });
  const r = await page.evaluate(() => {
    const R = (window as unknown as { Readability: new (d: Document, o?: object) => { parse(): { textContent?: string } | null } }).Readability;
    const t = performance.now();
    const clone = document.cloneNode(true) as Document;
    const article = new R(clone).parse();
    return { ms: performance.now() - t, text: article?.textContent ?? '', elements: document.getElementsByTagName('*').length };
  });
  return { ms: r.ms, retention: retention(refBag, bag(words(r.text))), elements: r.elements };
}

function report(results: PageResult[], args: Args, tookMs: number, queries: QueryResult[], load: number[]) {
  const ok = results.filter((r) => r.ok);
  const failed = results.filter((r) => !r.ok);
  const ret = ok.map((r) => r.retention);
  const methods: Record<string, number> = {};
  for (const r of ok) methods[r.method!] = (methods[r.method!] ?? 0) + 1;
  const chunksPer = ok.map((r) => r.chunks);
  const wordsPer = ok.flatMap((r) => r.chunkWords);
  const cost = ok.map((r) => r.costMs);
  const longest = ok.map((r) => r.longestTaskMs);
  const longTasks = ok.flatMap((r) => r.longTasks);
  const ids = ok.reduce((n, r) => n + r.identifiers, 0);
  const idsFound = ok.reduce((n, r) => n + r.identifiersFound, 0);
  const idsAnchored = ok.reduce((n, r) => n + r.identifiersAnchored, 0);
  const dist = (xs: number[]) => ({ median: r2(quantile(xs, 0.5)), p95: r2(quantile(xs, 0.95)), max: r2(Math.max(...xs)) });
  const summary = {
    pages: ok.length,
    failed: failed.length,
    tookSeconds: Math.round(tookMs / 1000),
    loadAverage: { start: r2(load[0]!), end: r2(load[1]!), cores: availableParallelism() },
    retention: { median: r2(quantile(ret, 0.5) * 100) / 100, p5: r2(quantile(ret, 0.05) * 100) / 100, mean: r2((ret.reduce((a, b) => a + b, 0) / Math.max(1, ret.length)) * 100) / 100, under085: ret.filter((x) => x < 0.85).length, under05: ret.filter((x) => x < 0.5).length },
    methods,
    chunksPerPage: dist(chunksPer),
    wordsPerChunk: dist(wordsPer),
    costMs: dist(cost),
    longestTaskMs: dist(longest),
    tasks: dist(ok.map((r) => r.tasks)),
    pagesWithCaptureTaskOver50ms: longest.filter((x) => x > 50).length,
    ...(ok.some((r) => r.workerMs !== undefined) ? { workerMs: dist(ok.flatMap((r) => (r.workerMs === undefined ? [] : [r.workerMs]))), cutBy: Object.fromEntries([...new Set(ok.map((r) => r.cutBy ?? 'unknown'))].map((k) => [k, ok.filter((r) => (r.cutBy ?? 'unknown') === k).length])) } : {}),
    longTasksAfterLoad: { count: longTasks.length, pages: ok.filter((r) => r.longTasks.length).length, max: longTasks.length ? Math.max(...longTasks) : 0 },
    identifiers: { total: ids, found: r2(idsFound / Math.max(1, ids)), ownAnchor: r2(idsAnchored / Math.max(1, ids)) },
    ...(args.readability ? { readability: readabilitySummary(ok) } : {}),
    ...(queries.length ? { queries: querySummary(queries) } : {}),
  };
  const rows: [string, string][] = [
    ['pages captured', `${summary.pages} (${summary.failed} failed) in ${summary.tookSeconds} s`],
    ['machine load (1-min average, start / end / cores)', `${summary.loadAverage.start} / ${summary.loadAverage.end} / ${summary.loadAverage.cores}`],
    ['retention median / p5 / mean', `${summary.retention.median} / ${summary.retention.p5} / ${summary.retention.mean}`],
    ['pages under 0.85 / under 0.5', `${summary.retention.under085} / ${summary.retention.under05}`],
    ['method', Object.entries(methods).map(([k, v]) => `${k} ${v}`).join(', ')],
    ['chunks per page median / p95 / max', `${summary.chunksPerPage.median} / ${summary.chunksPerPage.p95} / ${summary.chunksPerPage.max}`],
    ['words per chunk median / p95 / max', `${summary.wordsPerChunk.median} / ${summary.wordsPerChunk.p95} / ${summary.wordsPerChunk.max}`],
    ['capture cost ms median / p95 / max', `${summary.costMs.median} / ${summary.costMs.p95} / ${summary.costMs.max}`],
    ['longest capture task ms median / p95 / max', `${summary.longestTaskMs.median} / ${summary.longestTaskMs.p95} / ${summary.longestTaskMs.max}`],
    ['capture tasks per page median / p95 / max', `${summary.tasks.median} / ${summary.tasks.p95} / ${summary.tasks.max}`],
    ['pages with a capture task > 50 ms', String(summary.pagesWithCaptureTaskOver50ms)],
    ...(summary.workerMs ? ([['worker capture ms median / p95 / max (cut by)', `${summary.workerMs.median} / ${summary.workerMs.p95} / ${summary.workerMs.max} (${Object.entries(summary.cutBy ?? {}).map(([k, v]) => `${k} ${v}`).join(', ')})`]] as [string, string][]) : []),
    ['long tasks after load (any) count / pages / max ms', `${summary.longTasksAfterLoad.count} / ${summary.longTasksAfterLoad.pages} / ${summary.longTasksAfterLoad.max}`],
    ['identifiers found / own anchor', `${summary.identifiers.found} / ${summary.identifiers.ownAnchor} of ${summary.identifiers.total}`],
  ];
  if (summary.readability) {
    const rb = summary.readability;
    rows.push(['readability ms median / p95 / max', `${rb.ms.median} / ${rb.ms.p95} / ${rb.ms.max}`]);
    rows.push(['readability retention median / p5', `${rb.retention.median} / ${rb.retention.p5}`]);
  }
  if (summary.queries) {
    const qs = summary.queries;
    rows.push(['queries: MRR@10 of the best page (all / identifier)', `${qs.mrr} / ${qs.identifier.mrr} over ${qs.n} queries`]);
    rows.push(['identifier queries jumping to their own entry', `${qs.identifier.anchorHits} of ${qs.identifier.n}`]);
  }
  const w = Math.max(...rows.map((r) => r[0].length));
  console.log(`\nCapture over the Python 3.11 manual${args.noLandmarks ? ' (served without role="main")' : ''}`);
  for (const [k, v] of rows) console.log(`  ${k.padEnd(w)}  ${v}`);
  const worst = [...ok].sort((a, b) => a.retention - b.retention).slice(0, 12);
  console.log('\nLowest retention');
  for (const r of worst) console.log(`  ${r2(r.retention).toFixed(2)}  ${r.method?.padEnd(11)} ${String(r.refWords).padStart(6)} words  ${r.path}  missing: ${r.missing.slice(0, 8).join(' ')}`);
  const slow = [...ok].sort((a, b) => b.longestTaskMs - a.longestTaskMs).slice(0, 6);
  console.log('\nLongest capture tasks');
  for (const r of slow) console.log(`  ${r2(r.longestTaskMs)} ms (total ${r2(r.costMs)} ms)  ${r.path}`);
  if (failed.length) {
    console.log('\nFailed');
    for (const r of failed.slice(0, 20)) console.log(`  ${r.path}: ${r.error}`);
  }
  mkdirSync(join(args.out, '..'), { recursive: true });
  writeFileSync(
    args.out,
    JSON.stringify(
      {
        generatedAt: new Date().toISOString(),
        corpus: 'python3.11-doc (Debian), ' + PYTHON_DOCS + (args.noLandmarks ? ' (role="main" removed)' : ''),
        summary,
        queries,
        pages: results.map(({ chunkWords, ...r }) => ({ ...r, retention: Math.round(r.retention * 1000) / 1000, wordsPerChunkMedian: quantile(chunkWords, 0.5) })),
      },
      null,
      1,
    ),
  );
  console.log(`\nwrote ${relative(ROOT, args.out)}`);
}

function querySummary(qs: QueryResult[]) {
  const mrr = (xs: QueryResult[]) => Math.round((xs.reduce((n, q) => n + (q.rank ? 1 / q.rank : 0), 0) / Math.max(1, xs.length)) * 1000) / 1000;
  const ids = qs.filter((q) => q.class === 'identifier');
  return { n: qs.length, mrr: mrr(qs), identifier: { n: ids.length, mrr: mrr(ids), anchorHits: ids.filter((q) => q.anchorHit).length } };
}

function readabilitySummary(ok: PageResult[]) {
  const rs = ok.map((r) => r.readability).filter((x): x is NonNullable<typeof x> => !!x);
  const ms = rs.map((r) => r.ms);
  const ret = rs.map((r) => r.retention);
  // Cost against page size: the gate in content/extract.ts is an element count.
  const bySize = [1000, 2000, 3000, 5000, 10000, Infinity].map((max, i, a) => {
    const min = i ? a[i - 1]! : 0;
    const inBin = rs.filter((r) => r.elements > min && r.elements <= max);
    return { elements: `${min}-${max}`, pages: inBin.length, msMedian: r2(quantile(inBin.map((r) => r.ms), 0.5)), msMax: inBin.length ? r2(Math.max(...inBin.map((r) => r.ms))) : 0 };
  });
  return {
    ms: { median: r2(quantile(ms, 0.5)), p95: r2(quantile(ms, 0.95)), max: r2(Math.max(...ms)) },
    retention: { median: r2(quantile(ret, 0.5)), p5: r2(quantile(ret, 0.05)), under05: ret.filter((x) => x < 0.5).length },
    bySize,
  };
}

await main();
