/**
 * `npm run eval`: the lexical lane, the dense lane and their fusion, measured on SciFact and on the
 * Python-manual page set, as the extension runs them. Prints tables and writes bench/results/eval.json.
 *
 *   npm run eval                       # the shipped configuration (read from the code)
 *   npm run eval -- --stem --k1 1.5    # what-if overrides (see lib/prepare.ts)
 *   npm run eval -- --tune             # the training-data measurements behind the defaults (tune.ts)
 *   npm run eval -- --tune-model       # the static model's weighting variants (tune-model.ts)
 *
 * Held-out data: SciFact test (300 queries), Python-manual even ids (39). Tuning used SciFact train
 * and Python-manual odd ids only.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { QueryClass } from '../../src/hybrid.js';
import { classifyQuery } from '../../src/hybrid.js';
import { loadPythonManual, loadSciFact, type Dataset, type Split } from './lib/datasets.js';
import { loadModel } from './lib/dense.js';
import { breakdown, GROUPS, LANES, perQuery, type Breakdown } from './lib/evaluate.js';
import { distribution, floorData, floorRow, loadOfftopic, type Distribution, type FloorData } from './lib/floor.js';
import { configFromArgs, prepare, type RunConfig } from './lib/prepare.js';
import { RESULTS_FILE, ROOT } from './lib/paths.js';
import { f3, table } from './lib/table.js';

const argv = process.argv.slice(2);

function metricsTable(b: Breakdown, split: string): string {
  const rows: string[][] = [];
  for (const g of GROUPS) {
    for (const lane of LANES) {
      const c = b[split]![lane][g];
      if (!c.n) continue;
      rows.push([lane === 'lexical' ? `${g} (${c.n})` : '', lane, f3(c.ndcg10), f3(c.mrr10), f3(c.recall5), f3(c.recall100)]);
    }
  }
  return table(['class (n)', 'lane', 'nDCG@10', 'MRR@10', 'R@5', 'R@100'], rows, ['l', 'l']);
}

/** Hybrid against the better lane, per class, on nDCG@10 (the never-worse principle). */
function neverWorse(b: Breakdown, split: string): { group: string; hybrid: number; best: number; ok: boolean }[] {
  return GROUPS.filter((g) => b[split]!.hybrid[g].n > 0).map((g) => {
    const best = Math.max(b[split]!.lexical[g].ndcg10, b[split]!.dense[g].ndcg10);
    const hybrid = b[split]!.hybrid[g].ndcg10;
    return { group: g, hybrid, best, ok: hybrid >= best - 1e-9 };
  });
}

function classifierTable(ds: Dataset): string {
  const classes: QueryClass[] = ['identifier', 'natural', 'phrase'];
  const rows = classes.map((label) => [label, ...classes.map((c) => String(ds.queries.filter((q) => q.label === label && classifyQuery(q.text) === c).length))]);
  return table(['label \\ classifyQuery', ...classes], rows);
}

function distRow(name: string, d: Distribution): string[] {
  return [name, String(d.n), String(d.noVector), f3(d.min), f3(d.p10), f3(d.p50), f3(d.p90), f3(d.p95), f3(d.max)];
}

async function main(): Promise<void> {
  if (argv.includes('--tune')) {
    await (await import('./tune.js')).tune(argv);
    return;
  }
  if (argv.includes('--tune-model')) {
    await (await import('./tune-model.js')).tuneModel(argv);
    return;
  }
  const started = Date.now();
  const cfg: RunConfig = configFromArgs(argv);
  console.log(`config: tokenizer ${JSON.stringify(cfg.tokenizer)}, BM25 k1=${cfg.bm25.k1} b=${cfg.bm25.b}, field boost ${cfg.fieldBoost}, RRF k=${cfg.rrfK}`);
  console.log(`dense: reread/glove-100d from ${path.relative(ROOT, cfg.modelsDir) || '.'}, calibration ${JSON.stringify(cfg.calibration)}`);
  const model = await loadModel(cfg.modelsDir);
  const datasets = [loadSciFact(), await loadPythonManual()];
  const json: Record<string, unknown> = {
    generatedBy: 'npm run eval',
    config: cfg,
    modelHash: model.hash,
    notes: 'Held out: SciFact test split, Python-manual even ids. Tuned on SciFact train and Python-manual odd ids.',
  };
  const floors: Record<string, FloorData> = {};
  for (const ds of datasets) {
    const t0 = Date.now();
    const p = await prepare(ds, cfg, model);
    const per = perQuery(ds, p.runs, { calibration: cfg.calibration, rrfK: cfg.rrfK });
    const splits: (Split | 'all')[] = ['test', 'train', 'all'];
    const b = breakdown(ds, per, splits);
    const heldOut = ds.name === 'scifact' ? 'test' : 'test';
    const title = ds.name === 'scifact' ? `SciFact (${ds.items.length} documents)` : `Python 3.11 manual (${new Set(ds.items.map((i) => i.doc)).size} pages, ${ds.items.length} chunks)`;
    console.log(`\n=== ${title}: held out, ${ds.splitNames.test} ===`);
    console.log(metricsTable(b, heldOut));
    console.log(`\n--- ${title}: all queries ---`);
    console.log(metricsTable(b, 'all'));
    console.log(`\n--- ${title}: tuning queries, ${ds.splitNames.train} (nDCG@10 lexical / dense / hybrid) ---`);
    console.log(GROUPS.filter((g) => b.train!.lexical[g].n).map((g) => `${g} (${b.train!.lexical[g].n}): ${f3(b.train!.lexical[g].ndcg10)} / ${f3(b.train!.dense[g].ndcg10)} / ${f3(b.train!.hybrid[g].ndcg10)}`).join('   '));
    const checks = Object.fromEntries(splits.map((s) => [s, neverWorse(b, s)]));
    for (const s of splits) {
      const bad = checks[s]!.filter((c) => !c.ok);
      console.log(`never worse than the better lane (${s}): ${bad.length ? 'NO: ' + bad.map((c) => `${c.group} ${f3(c.hybrid)} < ${f3(c.best)}`).join(', ') : 'yes, overall and every class'}`);
    }
    if (ds.name === 'python') {
      console.log('\nquery classes: the set\'s labels against classifyQuery (which picks the fusion weights)');
      console.log(classifierTable(ds));
    }
    const trainIdx = ds.queries.flatMap((q, i) => (q.split === 'train' ? [i] : []));
    floors[ds.name] = await floorData(ds, model, p.denseIndex, p.queryVectors, p.runs.dense, p.runs.lexical, trainIdx);
    json[ds.name] = { results: b, neverWorse: checks, seconds: (Date.now() - t0) / 1000 };
  }

  // The floor: top-1 cosine of real (tuning) queries against off-topic and garbage ones, per corpus.
  const off = loadOfftopic();
  console.log(`\n=== Dense-only similarity floor (calibration ${cfg.calibration.floor}) ===`);
  console.log(`top-1 cosine of the dense lane; ${off.offtopic.length} off-topic and ${off.garbage.length} garbage queries (tests/eval/offtopic-queries.json), real = tuning queries`);
  const distRows: string[][] = [];
  for (const [name, d] of Object.entries(floors)) {
    distRows.push(distRow(`${name}: real`, distribution(d.real)), distRow(`${name}: off-topic`, distribution(d.offtopic)), distRow(`${name}: garbage`, distribution(d.garbage)));
    distRows.push(distRow(`${name}: relevant dense-only hits`, distribution(d.denseOnlyRelevant.flat())));
  }
  console.log(table(['queries', 'n', 'no vector', 'min', 'p10', 'p50', 'p90', 'p95', 'max'], distRows));
  const candidates = [...new Set([0.3, 0.4, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, cfg.calibration.floor])].sort((a, b) => a - b);
  const floorRows: string[][] = [];
  const floorJson: Record<string, unknown> = {};
  for (const [name, d] of Object.entries(floors)) {
    const rows = candidates.map((f) => floorRow(d, f));
    floorJson[name] = { distributions: { real: distribution(d.real), offtopic: distribution(d.offtopic), garbage: distribution(d.garbage), relevantDenseOnly: distribution(d.denseOnlyRelevant.flat()) }, candidates: rows };
    for (const r of rows) floorRows.push([name, (r.floor === cfg.calibration.floor ? '* ' : '') + r.floor.toFixed(2), f3(r.offtopicShown), f3(r.garbageShown), f3(r.realKept), f3(r.relevantKept)]);
  }
  console.log(table(['corpus', 'floor', 'off-topic shown', 'garbage shown', 'real top-1 kept', 'relevant dense-only kept'], floorRows));
  json.floor = floorJson;
  json.seconds = (Date.now() - started) / 1000;
  fs.mkdirSync(path.dirname(RESULTS_FILE), { recursive: true });
  fs.writeFileSync(RESULTS_FILE, JSON.stringify(json, null, 2) + '\n');
  console.log(`\nwrote ${path.relative(ROOT, RESULTS_FILE)} in ${json.seconds} s`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
