/**
 * `npm run eval -- --tune`: the measurements on TRAINING queries only (SciFact train, Python-manual odd
 * ids) that chose the defaults: tokenizer options, BM25 k1/b, a title/heading field boost, and the
 * static model's calibration (per-class lane weights, dense-only similarity floor).
 * Lexical options are searched first; the fusion grid then runs on the lexical configuration given on
 * the command line (e.g. `npm run eval -- --tune --stem`), so it tunes what will ship.
 */
import type { DenseCalibration, QueryClass } from '../../src/hybrid.js';
import { queryTerms, type TokenizerOptions } from '../../src/tokenizer.js';
import { loadPythonManual, loadSciFact, type Dataset } from './lib/datasets.js';
import { loadModel } from './lib/dense.js';
import { buildLexical, fuseQuery, laneDepth, toUnits } from './lib/evaluate.js';
import { floorData, floorRow } from './lib/floor.js';
import { scoreRanking } from './lib/metrics.js';
import { configFromArgs, prepare, type Prepared } from './lib/prepare.js';
import { f3, table } from './lib/table.js';

const CLASSES: QueryClass[] = ['identifier', 'natural', 'phrase'];
/** Gains in mean nDCG@10 below this do not justify a larger weight. */
const TIE = 0.005;
const WEIGHTS = [0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.7, 1];

const trainIdx = (ds: Dataset) => ds.queries.flatMap((q, i) => (q.split === 'train' ? [i] : []));
const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

function lexicalGrid(sets: readonly Dataset[]): void {
  console.log('\n=== Lexical lane: nDCG@10 on training queries (SciFact train / Python odd ids / mean of the two) ===');
  const tokenizers: [string, TokenizerOptions][] = [['plain', {}], ['stem', { stem: true }], ['stopwords', { stopwords: true }], ['stem+stopwords', { stem: true, stopwords: true }]];
  const boosts = [1, 2, 3, 4];
  const k1s = [0.9, 1.2, 1.5, 2.0];
  const bs = [0.3, 0.5, 0.75, 0.9];
  const rows: string[][] = [];
  const all: { tok: number; boost: number; k1: number; b: number; r: number[]; score: number }[] = [];
  const grids = new Map<string, number[][]>();
  tokenizers.forEach(([name, tok], t) => {
    for (const boost of boosts) {
      const indexes = sets.map((ds) => buildLexical(ds, { tokenizer: tok, fieldBoost: boost }));
      const grid: number[][] = [];
      for (const k1 of k1s) {
        const row: number[] = [];
        for (const b of bs) {
          const r = sets.map((ds, j) => mean(trainIdx(ds).map((i) => scoreRanking(toUnits(ds, indexes[j]!.search(ds.queries[i]!.text, laneDepth(ds), { k1, b })), ds.queries[i]!.relevant).ndcg10)));
          all.push({ tok: t, boost, k1, b, r, score: mean(r) });
          row.push(mean(r));
        }
        grid.push(row);
      }
      grids.set(`${name}, field boost ${boost}`, grid);
      const mine = all.filter((a) => a.tok === t && a.boost === boost);
      const d = mine.find((a) => a.k1 === 1.2 && a.b === 0.75)!;
      const best = mine.reduce((x, y) => (y.score > x.score ? y : x));
      rows.push([name, String(boost), f3(d.r[0]!), f3(d.r[1]!), f3(d.score), `k1=${best.k1} b=${best.b}`, f3(best.r[0]!), f3(best.r[1]!), f3(best.score)]);
    }
  });
  console.log(table(['tokenizer', 'field boost', 'sci @1.2/.75', 'py @1.2/.75', 'mean', 'best k1/b', 'sci', 'py', 'mean'], rows, ['l', 'r']));
  // Within TIE of the best is a plateau: take the simplest configuration on it (no or smaller field
  // boost, fewer tokenizer options, k1/b nearest Lucene's 1.2/0.75).
  const top = Math.max(...all.map((a) => a.score));
  const tied = all.filter((a) => a.score >= top - TIE);
  const cost = (a: (typeof all)[number]) => a.boost * 10 + (a.tok === 0 ? 0 : a.tok === 3 ? 2 : 1) + Math.abs(a.k1 - 1.2) + Math.abs(a.b - 0.75);
  const pick = tied.reduce((x, y) => (cost(y) < cost(x) ? y : x));
  console.log(`best mean ${f3(top)}; ${tied.length} configurations within ${TIE}; simplest of them: ${tokenizers[pick.tok]![0]}, field boost ${pick.boost}, k1=${pick.k1} b=${pick.b} (${f3(pick.r[0]!)} / ${f3(pick.r[1]!)} / ${f3(pick.score)})`);
  for (const label of new Set(['plain, field boost 1', 'stem, field boost 1', `${tokenizers[pick.tok]![0]}, field boost ${pick.boost}`])) {
    console.log(`\nk1 x b grid, ${label} (mean of the two sets):`);
    console.log(table(['k1 \\ b', ...bs.map(String)], grids.get(label)!.map((row, i) => [String(k1s[i]), ...row.map(f3)])));
  }
}

function fusionGrid(prepared: readonly Prepared[], floor: number, rrfK: number): Record<QueryClass, number> {
  console.log(`\n=== Fusion: hybrid nDCG@10 per dense weight (lexical weight 1), floor ${floor}, by classifyQuery class, training queries ===`);
  const chosen = {} as Record<QueryClass, number>;
  for (const cls of CLASSES) {
    const header = ['dense weight'];
    const cols: string[][] = WEIGHTS.map((w) => [String(w)]);
    const lanes: string[] = [];
    const perSet: { lex: number; dense: number; hyb: number[] }[] = [];
    for (const p of prepared) {
      const idx = trainIdx(p.ds).filter((i) => p.ds.queries[i]!.auto === cls);
      const score = (i: number, hits: readonly { id: number }[]) => scoreRanking(toUnits(p.ds, hits), p.ds.queries[i]!.relevant).ndcg10;
      const lex = mean(idx.map((i) => score(i, p.runs.lexical[i]!)));
      const dense = mean(idx.map((i) => score(i, p.runs.dense[i]!)));
      const hyb = WEIGHTS.map((w) => {
        const cal: DenseCalibration = { weights: { identifier: { lexical: 1, dense: w }, natural: { lexical: 1, dense: w }, phrase: { lexical: 1, dense: w } }, floor };
        return mean(idx.map((i) => score(i, fuseQuery(p.ds.queries[i]!, p.runs.lexical[i]!, p.runs.dense[i]!, { calibration: cal, rrfK }))));
      });
      perSet.push({ lex, dense, hyb });
      header.push(`${p.ds.name} (${idx.length})`);
      lanes.push(`${p.ds.name}: lexical ${f3(lex)}, dense ${f3(dense)}`);
      hyb.forEach((h, k) => cols[k]!.push(f3(h) + (h >= Math.max(lex, dense) - 1e-9 ? '' : ' <')));
    }
    // Admissible: never below the better lane on either set. Among those, the smallest weight whose mean
    // over the sets is within TIE of the best (a gain smaller than that is one query's noise).
    const admissible = WEIGHTS.flatMap((w, k) => (perSet.every((s) => s.hyb[k]! >= Math.max(s.lex, s.dense) - 1e-9) ? [{ w, score: mean(perSet.map((s) => s.hyb[k]!)) }] : []));
    const top = Math.max(...admissible.map((a) => a.score));
    const pick = admissible.find((a) => a.score >= top - TIE) ?? { w: 0, score: NaN };
    chosen[cls] = pick.w;
    console.log(`\n${cls}: ${lanes.join('; ')}  ('<' = below the better lane)`);
    console.log(table(header, cols));
    console.log(`chosen dense weight for ${cls}: ${pick.w}`);
  }
  return chosen;
}

/**
 * Could a per-query signal tell when the dense lane helps? The share of the query's terms matched by
 * the best of the top 5 lexical hits (low for paraphrases) against the gain of fusing at weight 0.5.
 */
function coverageBuckets(prepared: readonly Prepared[], floor: number, rrfK: number, tokenizer: TokenizerOptions): void {
  console.log('\n=== Per-query signal: lexical term coverage vs the gain of fusing at dense weight 0.5 (training queries) ===');
  const cal: DenseCalibration = { weights: { identifier: { lexical: 1, dense: 0.5 }, natural: { lexical: 1, dense: 0.5 }, phrase: { lexical: 1, dense: 0.5 } }, floor };
  const edges = [0, 0.4, 0.55, 0.7, 0.85, 1.01];
  const rows: string[][] = [];
  for (const p of prepared) {
    const points = trainIdx(p.ds).map((i) => {
      const q = p.ds.queries[i]!;
      const lex = p.runs.lexical[i]!;
      const n = queryTerms(q.text, tokenizer).length || 1;
      const coverage = Math.max(0, ...lex.slice(0, 5).map((h) => (h.terms?.length ?? 0) / n));
      const s = (hits: readonly { id: number }[]) => scoreRanking(toUnits(p.ds, hits), q.relevant).ndcg10;
      return { coverage, lex: s(lex), fused: s(fuseQuery(q, lex, p.runs.dense[i]!, { calibration: cal, rrfK })) };
    });
    for (let k = 0; k + 1 < edges.length; k++) {
      const b = points.filter((x) => x.coverage >= edges[k]! && x.coverage < edges[k + 1]!);
      if (!b.length) continue;
      const l = mean(b.map((x) => x.lex));
      const f = mean(b.map((x) => x.fused));
      rows.push([p.ds.name, `[${edges[k]}, ${Math.min(1, edges[k + 1]!)}${edges[k + 1]! > 1 ? ']' : ')'}`, String(b.length), f3(l), f3(f), (f - l >= 0 ? '+' : '') + f3(f - l)]);
    }
  }
  console.log(table(['set', 'coverage', 'n', 'lexical', 'fused 0.5', 'gain'], rows, ['l', 'l']));
}

export async function tune(argv: readonly string[]): Promise<void> {
  const cfg = configFromArgs(argv);
  const sets = [loadSciFact(), await loadPythonManual()];
  if (!argv.includes('--skip-lexical')) lexicalGrid(sets);

  console.log(`\nfusion tuned on: tokenizer ${JSON.stringify(cfg.tokenizer)}, BM25 k1=${cfg.bm25.k1} b=${cfg.bm25.b}, field boost ${cfg.fieldBoost}, RRF k=${cfg.rrfK}`);
  const model = await loadModel(cfg.modelsDir);
  const prepared: Prepared[] = [];
  for (const ds of sets) prepared.push(await prepare(ds, cfg, model));

  // Floor: the lowest that keeps (almost) every off-topic query's dense-only hits out, on both corpora.
  const floors = await Promise.all(prepared.map((p) => floorData(p.ds, model, p.denseIndex, p.queryVectors, p.runs.dense, p.runs.lexical, trainIdx(p.ds))));
  console.log('\n=== Floor candidates (training queries; off-topic shown = share of off-topic queries whose dense top-1 clears it) ===');
  const rows: string[][] = [];
  let floor = 1;
  for (let f = 0.2; f <= 0.95 + 1e-9; f += 0.025) {
    const r = floors.map((d) => floorRow(d, Math.round(f * 1000) / 1000));
    rows.push([f.toFixed(3), ...r.flatMap((x) => [f3(x.offtopicShown), f3(x.garbageShown), f3(x.realKept), f3(x.relevantKept)])]);
    if (floor === 1 && r.every((x) => x.offtopicShown <= 0.05 && x.garbageShown <= 0.05)) floor = Math.round(f * 1000) / 1000;
  }
  const names = prepared.map((p) => p.ds.name);
  console.log(table(['floor', ...names.flatMap((n) => [`${n} off-topic`, 'garbage', 'real top-1 kept', 'relevant dense-only kept'])], rows));
  console.log(`chosen floor: ${floor} (lowest on the grid with at most 5% of off-topic and garbage queries showing a dense-only hit on either corpus)`);

  const weights = fusionGrid(prepared, floor, cfg.rrfK);
  coverageBuckets(prepared, floor, cfg.rrfK, cfg.tokenizer);
  console.log(`\nproposed calibration: ${JSON.stringify({ weights: Object.fromEntries(CLASSES.map((c) => [c, { lexical: 1, dense: weights[c] }])), floor })}`);
}
