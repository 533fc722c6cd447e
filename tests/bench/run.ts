/**
 * `npm run bench [-- part ...]`: prints markdown tables and writes bench/results/<part>.json and
 * bench/results/summary.md.
 *
 * Parts: lexical, dense, browser, dayone (history import, backfill, PDFs); `all` (the default) runs
 * those four. `scale` (never by default: it runs for the better part of an hour) loads a million
 * sections into the extension in Chromium and measures the product at that size (tests/bench/scale.ts,
 * bench/results/scale.json). Options:
 *   --quick        smaller corpora and fewer queries (a smoke run, minutes less)
 *   --no-peers     lexical without MiniSearch / Orama / FlexSearch
 *   --no-python    lexical without the Python-manual corpus
 *   --sizes=10000,100000        lexical corpus sizes
 *   --dense-sizes=100000,1000000  dense corpus sizes
 *   --chunks=50000  sections loaded into the browser
 *   --capture-chunks=500  of which go through engine.capture (timed; the rest are written directly)
 *   --scale-sections=1000000  sections the scale part loads (checkpoints at 10,000 and 52,000 on the way);
 *                  a smaller run writes bench/results/scale-<sections>.json and leaves summary.md's scale part
 *   --scale-checkpoints=1000,10000,52000  sizes the scale part measures capture at on the way
 *   --scale-profile=DIR  keep the loaded browser profile in DIR; a later run with the same DIR and
 *                  --scale-sections skips the loading (minutes at 1M) and measures the queries only
 *   --scale-dist=PATH  the build the scale part loads (default dist/chrome), e.g. main's, for before/after
 * `capture` (never by default) measures capture write per page on a profile kept by `scale`
 * (tests/bench/captureScale.ts), builds side by side, alternating run by run:
 *   --scale-profile=DIR  the kept profile (required)
 *   --capture-dists=A,B  builds to compare (default dist/chrome)
 *   --capture-runs=2  runs of each build;  --capture-pages=30  fresh pages a run
 *   --capture-dense=off  the dense lane while capturing (on: pages embedded meanwhile)
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { machine, Report, RESULTS, writeJson, type Machine } from './report.js';

const PARTS = ['lexical', 'dense', 'browser', 'dayone', 'scale', 'capture'] as const;
/** What `all` (and no part named) runs. */
const DEFAULT_PARTS: readonly Part[] = ['lexical', 'dense', 'browser', 'dayone'];
type Part = (typeof PARTS)[number];

function parseArgs(argv: string[]): { parts: Part[]; flags: Map<string, string> } {
  const flags = new Map<string, string>();
  const parts = new Set<Part>();
  for (const a of argv) {
    if (a.startsWith('--')) {
      const [k, v] = a.slice(2).split('=');
      flags.set(k!, v ?? 'true');
    } else if (a === 'all') DEFAULT_PARTS.forEach((p) => parts.add(p));
    else if ((PARTS as readonly string[]).includes(a)) parts.add(a as Part);
    else throw new Error(`unknown part "${a}" (parts: ${PARTS.join(', ')}, all)`);
  }
  if (!parts.size) DEFAULT_PARTS.forEach((p) => parts.add(p));
  return { parts: PARTS.filter((p) => parts.has(p)), flags };
}

const list = (s: string | undefined, dflt: number[]) => (s ? s.split(',').map(Number).filter((x) => x > 0) : dflt);

async function main(): Promise<void> {
  const { parts, flags } = parseArgs(process.argv.slice(2));
  const quick = flags.has('quick');
  const m: Machine = machine();
  const started = Date.now();
  const report = new Report();
  report.text(`# Reread benchmarks\n\nMachine: ${m.cpus} × ${m.cpuModel}, ${m.memoryGb} GB, Node ${m.node} (V8 ${m.v8}), ${m.os}; load average at start ${m.loadAvg.join(' ')}.`);
  const timings: Record<string, number> = {};
  const noSummary = new Set<Part>();

  for (const part of parts) {
    const t = Date.now();
    if (part === 'lexical') {
      const { runLexical } = await import('./lexical.js');
      const res = await runLexical(report, {
        sizes: list(flags.get('sizes'), quick ? [10_000] : [10_000, 100_000]),
        python: !flags.has('no-python'),
        peers: !flags.has('no-peers'),
        ...(quick ? { queries: 200 } : {}),
      });
      writeJson('lexical', { machine: m, results: res });
    } else if (part === 'dense') {
      const { runDense } = await import('./dense.js');
      const res = await runDense(report, { sizes: list(flags.get('dense-sizes'), quick ? [100_000] : [100_000, 1_000_000]), quick });
      writeJson('dense', { machine: m, results: res });
    } else if (part === 'scale') {
      const { runScale } = await import('./scale.js');
      const sections = Number(flags.get('scale-sections') ?? (quick ? 60_000 : 1_000_000));
      const checkpoints = flags.get('scale-checkpoints');
      const profileDir = flags.get('scale-profile');
      const dist = flags.get('scale-dist');
      const res = await runScale(report, { sections, quick, ...(checkpoints ? { checkpoints: list(checkpoints, []) } : {}), ...(profileDir ? { profileDir: resolve(profileDir) } : {}), ...(dist ? { dist: resolve(dist) } : {}) });
      m.chromium = res.chromium;
      // A smaller run does not replace the committed million-section results (nor their summary part).
      if (sections === 1_000_000) writeJson('scale', res.json);
      else {
        writeJson(`scale-${sections}`, res.json);
        noSummary.add('scale');
      }
    } else if (part === 'capture') {
      const { runCapture } = await import('./captureScale.js');
      const profileDir = flags.get('scale-profile');
      if (!profileDir) throw new Error('capture needs --scale-profile=DIR (a profile kept by the scale part)');
      const dists = (flags.get('capture-dists') ?? 'dist/chrome').split(',').filter(Boolean);
      const dense = flags.get('capture-dense') === 'on';
      const pages = Number(flags.get('capture-pages') ?? 30);
      const res = await runCapture(report, { profileDir: resolve(profileDir), dists, runs: Number(flags.get('capture-runs') ?? 2), pages, dense });
      // The dense setting and the page count are in the file's name and body, so a run with the lane on
      // (or a longer burst) does not overwrite the plain one's results.
      const suffix = `${pages !== 30 ? `-${pages}pages` : ''}${dense ? '-dense' : ''}`;
      writeJson(`capture-write-${basename(resolve(profileDir))}${suffix}`, { machine: m, dense, pages, ...res });
      noSummary.add('capture');
    } else if (part === 'dayone') {
      const { runDayOne } = await import('./dayone.js');
      const res = await runDayOne(report, { entries: Number(flags.get('history-entries') ?? (quick ? 5_000 : 50_000)), backfillPages: Number(flags.get('backfill-pages') ?? (quick ? 100 : 300)), pdfPages: flags.has('pdf-pages') ? String(flags.get('pdf-pages')).split(',').map(Number).filter((n) => n > 0) : quick ? [10, 50] : [10, 50, 200] });
      writeJson('dayone', { machine: m, results: res });
    } else {
      const { runBrowser } = await import('./browser.js');
      const res = await runBrowser(report, { chunks: Number(flags.get('chunks') ?? (quick ? 5_000 : 50_000)), captureChunks: Number(flags.get('capture-chunks') ?? (quick ? 300 : 500)), quick });
      m.chromium = res.chromium;
      writeJson('browser', { machine: m, results: res });
    }
    timings[part] = (Date.now() - t) / 1000;
  }
  report.text(`\nWall time: ${Object.entries(timings).map(([p, s]) => `${p} ${s.toFixed(0)} s`).join(', ')}; total ${((Date.now() - started) / 1000).toFixed(0)} s.`);
  writeSummary(report, parts.filter((p) => !noSummary.has(p)), m, timings);
}

/** summary.md keeps the latest output of every part (a partial run replaces only its own sections). */
function writeSummary(report: Report, parts: Part[], m: Machine, timings: Record<string, number>): void {
  const file = join(RESULTS, 'summary.md');
  const sections = new Map<string, string>();
  if (existsSync(file)) {
    const old = readFileSync(file, 'utf8');
    for (const s of old.split(/^<!-- part: /m).slice(1)) {
      const name = s.slice(0, s.indexOf(' -->'));
      sections.set(name, '<!-- part: ' + s.trimEnd());
    }
  }
  const body = report.lines.join('\n');
  const stamp = new Date().toISOString();
  for (const p of parts) {
    const took = timings[p] !== undefined ? `; took ${timings[p]!.toFixed(0)} s` : '';
    sections.set(p, `<!-- part: ${p} -->\n_Run ${stamp}; ${m.cpus} cores, ${m.memoryGb} GB, Node ${m.node}${m.chromium ? `, Chromium ${m.chromium}` : ''}; load average at start ${m.loadAvg.join(' ')}${took}._\n${extract(body, p)}`);
  }
  const order = PARTS.filter((p) => sections.has(p));
  const header = `# Reread benchmarks\n\n\`npm run bench [-- lexical|dense|browser|all|scale]\`. Machine of the latest run: ${m.cpus} × ${m.cpuModel}, ${m.memoryGb} GB RAM, Node ${m.node}${m.chromium ? `, Chromium ${m.chromium}` : ''}, ${m.os}.\n`;
  writeFileSync(file, header + '\n' + order.map((p) => sections.get(p)).join('\n\n') + '\n');
  console.log(`\nwrote ${file}`);
}

/** The part's own output: from its "## " heading to the next part's. */
function extract(body: string, part: Part): string {
  const titles: Record<Part, string> = { lexical: '## Lexical', dense: '## Dense', browser: '## Chromium', dayone: '## Day one', scale: '## A million sections', capture: '## Capture write per page on a kept profile' };
  const start = body.indexOf(titles[part]);
  if (start < 0) return '';
  const rest = body.slice(start + 3);
  const ends = Object.values(titles)
    .map((t) => rest.indexOf(t))
    .filter((i) => i >= 0);
  const end = ends.length ? Math.min(...ends) + start + 3 : body.indexOf('\nWall time:') >= 0 ? body.indexOf('\nWall time:') : body.length;
  return body.slice(start, end).trim();
}

// Exits once done: a browser part can leave a handle open (a closed context's pipe) that kept the
// process, and the benchmark lock around it, alive after "wrote … summary.md".
main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
