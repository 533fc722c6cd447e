/**
 * What looking deeper for a remembered phrase of common words costs in the real extension (src/search.ts
 * `phraseDepth` / `phraseReads`): two builds side by side in Chromium, each on a fresh profile holding the
 * Python manual (every page of python3.11-doc captured as the content script would, then sent through
 * `engine.capture` in the worker), the same queries through `engine.search` in the same order.
 *
 *   npm run build && cp -r dist/chrome /tmp/dist-new   # the build to measure
 *   (build the other one, e.g. with phraseReads 0)       && cp -r dist/chrome /tmp/dist-old
 *   node --import tsx tests/bench/phraseDepth.ts /tmp/dist-old /tmp/dist-new [--rounds=3]
 *
 * Queries: the Python manual's span and typo queries (tests/eval/queries/python.*.json), split into those
 * that take the deeper look (a phrase of common words that none of the first 90 hits holds) and the rest.
 * For each query: the first search after the pages were captured and merged (the section cache as the
 * earlier queries left it), then `--rounds` more (warm). Prints medians and p95 per build and group
 * (engine.search's tookMs, in the worker) and writes bench/results/phrase-depth.json.
 */
import fs from 'node:fs';
import path from 'node:path';
import { launch, until } from '../e2e/harness.js';
import { parseDocument } from '../eval/lib/dom.js';
import { captureDocument } from '../../content/pageCapture.js';
import { corpus } from '../eval/lib/corpora.js';
import { loadQueries } from '../eval/lib/queries.js';
import { writeJson } from './report.js';

const dists = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const rounds = Number(process.argv.find((a) => a.startsWith('--rounds='))?.slice(9) ?? 3);
if (dists.length < 1) throw new Error('usage: phraseDepth.ts DIST_A [DIST_B] [--rounds=3]');

const def = corpus('python');
const pages: { url: string; payload: unknown }[] = [];
for (const f of def.files()) {
  const got = await captureDocument(parseDocument(fs.readFileSync(path.join(def.root, f), 'utf8')), { live: false, fallbackTitle: 'docs.python.org' });
  if (got) pages.push({ url: `https://docs.python.org/3.11/${f}`, payload: { ...got.payload, extraction: got.extraction } });
}
const queries = loadQueries('python').queries.filter((q) => q.class === 'span' || q.class === 'typo').map((q) => ({ id: q.id, q: q.q }));

const med = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)] ?? NaN;
const p95 = (a: number[]) => [...a].sort((x, y) => x - y)[Math.min(a.length - 1, Math.floor(a.length * 0.95))] ?? NaN;
const out: Record<string, unknown> = { pages: pages.length, queries: queries.length, rounds, builds: {} };
const byBuild: Record<string, Record<string, { first: number; warm: number; deep: boolean }>> = {};
for (const dist of dists) {
  const ext = await launch({ dist });
  try {
    await until(() => ext.evalSw<number>('engine.stats().then((s) => s.pages + 1)').catch(() => 0), 'the worker');
    for (let i = 0; i < pages.length; i += 20) {
      await ext.evalSw(`(async (pages) => { for (const p of pages) await engine.capture(p.url, p.payload, Date.UTC(2026, 5, 1)); return true; })(${JSON.stringify(pages.slice(i, i + 20))})`);
    }
    await ext.evalSw('globalThis.rereadDebug.maintain(false)');
    const rows: Record<string, { first: number; warm: number; deep: boolean }> = {};
    for (const q of queries) {
      const times = await ext.evalSw<{ ms: number; timings: Record<string, number> }[]>(
        `(async (q, n) => { const out = []; for (let i = 0; i <= n; i++) { const r = await engine.search({ q, limit: 30 }); out.push({ ms: r.tookMs, timings: r.timings }); } return out; })(${JSON.stringify(q.q)}, ${rounds})`,
      );
      rows[q.id] = { first: times[0]!.ms, warm: med(times.slice(1).map((t) => t.ms)), deep: times.some((t) => 'phraseDeepAt' in (t.timings ?? {})) };
    }
    byBuild[dist] = rows;
  } finally {
    await ext.close();
  }
}
// Which queries take the deeper look: the search says so (src/search.ts notes `phraseDeepAt` in its
// timings when it runs), in any of the builds.
const table: string[] = ['| build | queries | first: median / p95 ms | warm: median / p95 ms |', '|---|---|---|---|'];
for (const dist of dists) {
  const rows = byBuild[dist]!;
  for (const [label, ids] of Object.entries(groups())) {
    const f = ids.map((id) => rows[id]!.first);
    const w = ids.map((id) => rows[id]!.warm);
    table.push(`| ${path.basename(dist)} | ${label} (${ids.length}) | ${med(f).toFixed(1)} / ${p95(f).toFixed(1)} | ${med(w).toFixed(1)} / ${p95(w).toFixed(1)} |`);
    (out.builds as Record<string, unknown>)[`${dist} ${label}`] = { n: ids.length, first: { median: med(f), p95: p95(f) }, warm: { median: med(w), p95: p95(w) } };
  }
}
function groups(): Record<string, string[]> {
  const deep = queries.map((q) => q.id).filter((id) => dists.some((d) => byBuild[d]![id]!.deep));
  return { 'deeper look': deep, 'other spans and typos': queries.map((q) => q.id).filter((id) => !deep.includes(id)) };
}
console.log(table.join('\n'));
writeJson('phrase-depth', { ...out, perQuery: byBuild });
