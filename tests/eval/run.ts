/**
 * `npm run eval`: retrieval quality of the shipped search path on real documentation, per corpus, query
 * class and lane, against a naive per-section BM25 and against the `before` numbers. Prints tables and
 * writes bench/results/eval.json. See tests/eval/README.md.
 *
 *   npm run eval                                  # every corpus, every lane, the shipped configuration
 *   npm run eval -- --corpus python,git           # some corpora (python, git, debian-faq, maint-guide, instguide, handbook, policy, zsh, doxygen, nodejs, ant, mkdocs, rustdoc, glib, exim, lilypond, kicad, edu, ruby, devref, cmake, sqlite, rust, gimp)
 *   npm run eval -- --class span,typo             # some classes
 *   npm run eval -- --lanes hybrid,naive          # some lanes (lexical, dense, hybrid, naive)
 *   npm run eval -- --failures 8                  # list the first 8 misses per class (tuning corpora only)
 *   npm run eval -- --what-if k1=1.2,b=0.75       # WHAT-IF: not the shipped configuration (see below)
 *   npm run eval -- --compare bench/results/x.json   # compare with another run (default: eval-before.json)
 *   npm run eval -- --out file.json --no-cache
 *
 * What-if keys: k1, b, rrfK, lexicalWeight, denseWeight (the Options multipliers), floor and
 * modelDenseWeight (the bundled model's calibration); `--models DIR` loads the bundled model's files
 * from elsewhere. A what-if run says so in every table and writes bench/results/eval-whatif.json, a run
 * of some corpora, classes or lanes writes eval-partial.json (unless --out is given), so eval.json always
 * holds a full run of the shipped configuration.
 *
 * The held-out corpora (devref, gated in npm test; cmake, sqlite and rust, reported only) are reported, never tuned on:
 * their misses are not listed. A corpus whose packages are not installed is skipped with a line saying so
 * when no --corpus is given (named with --corpus, it is an error).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TOKENIZER } from '../../src/indexing.js';
import { DEFAULT_LEXICAL, type LexicalOptions } from '../../src/search.js';
import { checkInstalled, CORPORA, corpus, GATED, HELD_OUT, type CorpusDef } from './lib/corpora.js';
import { loadModel, MODEL_ID } from './lib/dense.js';
import { evaluateCorpus, LANE_NAMES, settingsFor, type CorpusResult, type Group, type LaneName, type WhatIf } from './lib/evaluate.js';
import type { QueryScore } from './lib/judge.js';
import { ROOT } from './lib/paths.js';
import { CLASS_INFO, CLASSES, loadQueries, type QueryClass } from './lib/queries.js';
import { f3, formatJson, table } from './lib/table.js';
import { pooledLanguageTable } from './lib/paired.js';

export const RESULTS_DIR = path.join(ROOT, 'bench', 'results');
export const BEFORE_FILE = path.join(RESULTS_DIR, 'eval-before.json');

interface Args {
  corpora: CorpusDef[];
  /** Corpora left out of a default run because their packages are not installed, with what to install. */
  skipped: string[];
  classes?: QueryClass[];
  lanes: LaneName[];
  whatIf?: WhatIf;
  whatIfText: string;
  modelsDir?: string;
  failures: number;
  compare: string | null;
  out: string;
  cache: boolean;
}

const RANKING_KEYS = ['k1', 'b', 'rrfK', 'lexicalWeight', 'denseWeight'] as const;

function parseArgs(argv: readonly string[]): Args {
  const val = (name: string) => {
    const i = argv.indexOf(name);
    if (i < 0) return undefined;
    const v = argv[i + 1];
    if (v === undefined || v.startsWith('--')) throw new Error(`${name} needs a value`);
    return v;
  };
  const known = new Set(['--corpus', '--class', '--lanes', '--what-if', '--models', '--failures', '--compare', '--out', '--no-cache']);
  for (const a of argv) if (a.startsWith('--') && !known.has(a)) throw new Error(`unknown option ${a} (see tests/eval/run.ts)`);
  const named = val('--corpus')?.split(',').map(corpus);
  // Every corpus by default, but one not installed is skipped (and said so) rather than failing the run.
  const missing = named ? [] : CORPORA.map((c) => checkInstalled(c));
  const skipped = missing.flatMap((m) => m ?? []);
  const corpora = named ?? CORPORA.filter((_, i) => !missing[i]);
  const classes = val('--class')?.split(',') as QueryClass[] | undefined;
  for (const c of classes ?? []) if (!CLASSES.includes(c)) throw new Error(`unknown class ${c} (${CLASSES.join(', ')})`);
  const lanes = (val('--lanes')?.split(',') ?? [...LANE_NAMES]) as LaneName[];
  for (const l of lanes) if (!LANE_NAMES.includes(l)) throw new Error(`unknown lane ${l} (${LANE_NAMES.join(', ')})`);
  let whatIf: WhatIf | undefined;
  const wi = val('--what-if');
  if (wi) {
    whatIf = { ranking: {} };
    for (const kv of wi.split(',')) {
      const [k, v] = kv.split('=');
      const n = Number(v);
      if (!k || v === undefined || !Number.isFinite(n)) throw new Error(`--what-if wants key=number pairs, got ${kv}`);
      if ((RANKING_KEYS as readonly string[]).includes(k)) whatIf.ranking![k as (typeof RANKING_KEYS)[number]] = n;
      else if (k.split('.')[0]! in DEFAULT_LEXICAL) whatIf.lexical = lexicalWhatIf(whatIf.lexical ?? {}, k, n);
      else if (k === 'floor') whatIf.floor = n;
      else if (k === 'modelDenseWeight') whatIf.denseWeight = n;
      else throw new Error(`unknown what-if ${k} (${[...RANKING_KEYS, 'floor', 'modelDenseWeight', ...Object.keys(DEFAULT_LEXICAL).map((x) => x + '[.field]')].join(', ')})`);
    }
  }
  const modelsDir = val('--models');
  const chunker = process.env.REREAD_EVAL_CHUNKER ? `chunker=${process.env.REREAD_EVAL_CHUNKER}` : '';
  const isWhatIf = !!whatIf || !!modelsDir || !!chunker;
  // A run that skipped a corpus is not a full run either: eval.json always holds every corpus.
  const partial = !!val('--corpus') || !!classes || !!val('--lanes') || skipped.length > 0;
  const whatIfText = [wi, modelsDir ? `models=${modelsDir}` : '', chunker].filter(Boolean).join(', ');
  const compare = val('--compare') ?? (fs.existsSync(BEFORE_FILE) ? BEFORE_FILE : null);
  return {
    corpora,
    skipped,
    ...(classes ? { classes } : {}),
    lanes,
    ...(whatIf ? { whatIf } : {}),
    whatIfText,
    ...(modelsDir ? { modelsDir: path.resolve(modelsDir) } : {}),
    failures: Number(val('--failures') ?? 0),
    compare,
    out: path.resolve(val('--out') ?? path.join(RESULTS_DIR, isWhatIf ? 'eval-whatif.json' : partial ? 'eval-partial.json' : 'eval.json')),
    cache: !argv.includes('--no-cache'),
  };
}

/** Sets `key` (top-level or `group.field`) of the lexical options to n, keeping the other defaults of its group. */
function lexicalWhatIf(cur: Partial<LexicalOptions>, key: string, n: number): Partial<LexicalOptions> {
  const [group, field] = key.split('.') as [keyof LexicalOptions, string | undefined];
  const base = DEFAULT_LEXICAL[group];
  if (field === undefined) {
    if (typeof base === 'object') throw new Error(`--what-if ${key} needs a field (${Object.keys(base).join(', ')})`);
    return { ...cur, [group]: typeof base === 'boolean' ? n !== 0 : n };
  }
  if (typeof base !== 'object' || !(field in base)) throw new Error(`unknown what-if ${key}`);
  const prev = (cur[group] as object | undefined) ?? base;
  const value = typeof (base as unknown as Record<string, unknown>)[field] === 'boolean' ? n !== 0 : n;
  return { ...cur, [group]: { ...prev, [field]: value } };
}

function gitCommit(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src', 'background', 'content', 'tests/eval'], { cwd: ROOT, encoding: 'utf8' }).trim();
    return dirty ? `${head}+uncommitted` : head;
  } catch {
    return 'unknown';
  }
}

const GROUPS: Group[] = [...CLASSES, 'all'];
const pct = (x: number) => f3(x);

function corpusTable(r: CorpusResult): string {
  const rows: string[][] = [];
  const shown = LANE_NAMES.filter((l) => r.cells[l]);
  for (const g of GROUPS) {
    for (const lane of LANE_NAMES) {
      const c = r.cells[lane]?.[g];
      if (!c) continue;
      const first = lane === shown[0];
      if (g === 'offtopic') {
        rows.push([first ? `${g} (${c.n})` : '', lane, '', '', '', '', '', '', pct(c.noResults)]);
        continue;
      }
      rows.push([first ? `${g} (${c.n})` : '', lane, f3(c.ndcg10), f3(c.mrr10), f3(c.recall10), c.nSection ? String(c.nSection) : '', c.nSection ? f3(c.sectionHit1) : '', c.nSection ? f3(c.sectionMrr10) : '', '']);
    }
  }
  return table(['class (n)', 'lane', 'nDCG@10', 'MRR@10', 'R@10', 'n§', '§hit@1', '§MRR@10', 'no-results'], rows, ['l', 'l']);
}

interface Saved {
  corpora: Record<string, { cells: CorpusResult['cells'] }>;
  commit?: string;
  label?: string;
}

function loadSaved(file: string | null): Saved | null {
  if (!file || !fs.existsSync(file)) return null;
  return JSON.parse(fs.readFileSync(file, 'utf8')) as Saved;
}

/** Hybrid against the better of (before, naive), per corpus and class: the issue's bar. */
function summaryTable(results: readonly CorpusResult[], before: Saved | null): { text: string; misses: string[] } {
  const rows: string[][] = [];
  const misses: string[] = [];
  for (const r of results) {
    for (const g of GROUPS) {
      const h = r.cells.hybrid?.[g];
      if (!h) continue;
      const n = r.cells.naive?.[g];
      const b = before?.corpora[r.corpus]?.cells.hybrid?.[g];
      const name = `${r.corpus}${r.heldOut ? ' (held out)' : ''}`;
      if (g === 'offtopic') {
        rows.push([name, `${g} (${h.n})`, 'no-results', b ? pct(b.noResults) : '', n ? pct(n.noResults) : '', pct(h.noResults), '', '', '', '']);
        continue;
      }
      const bar = Math.max(b?.ndcg10 ?? -1, n?.ndcg10 ?? -1);
      // Saved runs keep 4 decimals: a tie within that is a tie.
      const ok = bar < 0 ? '' : h.ndcg10 >= bar - 1e-4 ? 'yes' : 'NO';
      if (ok === 'NO' && g !== 'all') misses.push(`${r.corpus}/${g}`);
      rows.push([
        name,
        `${g} (${h.n})`,
        'nDCG@10',
        b ? f3(b.ndcg10) : '',
        n ? f3(n.ndcg10) : '',
        f3(h.ndcg10),
        ok,
        h.nSection ? (b && b.nSection ? f3(b.sectionHit1) : '') : '',
        h.nSection && n ? f3(n.sectionHit1) : '',
        h.nSection ? f3(h.sectionHit1) : '',
      ]);
    }
  }
  return { text: table(['corpus', 'class (n)', 'metric', 'before', 'naive', 'hybrid', '≥ both', '§hit@1 before', 'naive', 'hybrid'], rows, ['l', 'l', 'l']), misses };
}

/** Per language (multilingual corpora): Reread's hybrid lane against the naive baseline. */
function languageTable(r: CorpusResult): string | null {
  const h = r.byLang.hybrid;
  if (!h) return null;
  const n = r.byLang.naive;
  const rows: string[][] = [];
  for (const [lang, cells] of Object.entries(h)) {
    let first = true;
    for (const g of [...CLASSES.filter((c) => c !== 'offtopic'), 'all'] as const) {
      const c = cells[g];
      if (!c) continue;
      const b = n?.[lang]?.[g];
      rows.push([first ? lang : '', `${g} (${c.n})`, f3(c.ndcg10), b ? f3(b.ndcg10) : '', f3(c.sectionHit1), b ? f3(b.sectionHit1) : '']);
      first = false;
    }
  }
  return table(['lang', 'class (n)', 'nDCG@10 hybrid', 'naive', '§hit@1 hybrid', 'naive'], rows, ['l', 'l']);
}

function quantile(xs: readonly number[], q: number): number {
  const v = [...xs].sort((a, b) => a - b);
  if (!v.length) return NaN;
  const pos = (v.length - 1) * q;
  const lo = Math.floor(pos);
  return v[lo]! + (v[Math.ceil(pos)]! - v[lo]!) * (pos - lo);
}

/** The dense lane's top-1 cosine for judged and off-topic queries, and who clears the model's floor. */
function floorTable(results: readonly CorpusResult[], floor: number): string {
  const rows: string[][] = [];
  for (const r of results) {
    if (!r.floor) continue;
    let first = true;
    for (const [name, xs] of Object.entries(r.floor)) {
      const v = xs.filter((x): x is number => x !== null);
      rows.push([first ? r.corpus : '', name, String(xs.length), String(xs.length - v.length), f3(quantile(v, 0.1)), f3(quantile(v, 0.5)), f3(quantile(v, 0.9)), v.length ? f3(Math.max(...v)) : '', f3(xs.length ? v.filter((x) => x >= floor).length / xs.length : 0)]);
      first = false;
    }
  }
  return table(['corpus', 'queries', 'n', 'no vector', 'p10', 'p50', 'p90', 'max', `>= floor ${floor}`], rows, ['l', 'l']);
}

function failures(r: CorpusResult, n: number): string {
  if (r.heldOut) return `(${r.corpus} is held out: its misses are not listed)`;
  const { queries } = loadQueries(r.corpus as CorpusDef['name']);
  const byId = new Map(queries.map((q) => [q.id, q]));
  const lines: string[] = [];
  const hybrid = r.perQuery.hybrid ?? [];
  for (const cls of CLASSES) {
    const miss = hybrid.filter((s) => r.queryClass[s.id] === cls && (cls === 'offtopic' ? s.results > 0 : s.firstRelevant !== 1 || s.sectionHit1 === 0));
    if (!miss.length) continue;
    lines.push(`  ${cls}: ${miss.length} of ${hybrid.filter((s) => r.queryClass[s.id] === cls).length} not perfect (page not first, or link off its section)`);
    for (const s of miss.slice(0, n)) {
      const q = byId.get(s.id)!;
      const naive = r.perQuery.naive?.find((x) => x.id === s.id);
      lines.push(`    ${s.id} ${JSON.stringify(q.q)} -> page rank ${s.firstRelevant || '>10'}${s.sectionHit1 === 0 ? ', link lands on ' + s.landed : ''}; want ${q.source ?? Object.keys(q.relevant).join(', ')}${naive ? ` [naive: rank ${naive.firstRelevant || '>10'}${naive.sectionHit1 === null ? '' : naive.sectionHit1 ? ', § hit' : ', § miss'}]` : ''}`);
    }
  }
  return lines.join('\n');
}

function compact(scores: Partial<Record<LaneName, QueryScore[]>>): Record<string, Record<string, [number, number, number | null, number]>> {
  // id -> [nDCG@10, first relevant rank, section hit@1, results shown]
  const out: Record<string, Record<string, [number, number, number | null, number]>> = {};
  for (const [lane, list] of Object.entries(scores)) out[lane] = Object.fromEntries(list!.map((s) => [s.id, [Math.round(s.ndcg10 * 1000) / 1000, s.firstRelevant, s.sectionHit1, s.results]]));
  return out;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const started = Date.now();
  const settings = settingsFor(args.whatIf);
  const model = args.lanes.some((l) => l === 'dense' || l === 'hybrid') ? await loadModel(args.modelsDir) : null;
  const banner = args.whatIfText ? `WHAT-IF (not the shipped configuration): ${args.whatIfText}` : 'the shipped configuration';
  console.log(`npm run eval: ${banner}; commit ${gitCommit()}; load ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  console.log(`  tokenizer ${JSON.stringify(TOKENIZER)}, lexical ${JSON.stringify({ ...DEFAULT_LEXICAL, ...args.whatIf?.lexical })}, BM25 k1 ${settings.ranking.k1} b ${settings.ranking.b}, RRF k ${settings.ranking.rrfK}, lane multipliers ${settings.ranking.lexicalWeight}/${settings.ranking.denseWeight}`);
  if (model) console.log(`  dense: ${MODEL_ID} (${model.hash}), calibration ${JSON.stringify(model.embedder.model.calibration)}${args.whatIf?.floor !== undefined || args.whatIf?.denseWeight !== undefined ? ' (what-if overrides above)' : ''}`);
  console.log(`  held out: ${HELD_OUT.join(', ')} (report only; never tune on them; ${GATED} is also gated in npm test)`);
  for (const s of args.skipped) console.log(`  SKIPPED ${s}`);
  const results: CorpusResult[] = [];
  for (const def of args.corpora) {
    const r = await evaluateCorpus(def, { lanes: args.lanes, ...(args.classes ? { classes: args.classes } : {}), ...(args.whatIf ? { whatIf: args.whatIf } : {}), model, cache: args.cache, log: console.log });
    results.push(r);
    console.log(`\n=== ${def.name}${def.heldOut ? ' (HELD OUT)' : ''}: ${def.title} [${def.generator}] — ${r.pages} pages (${r.storedPages} stored), ${r.sections} sections (naive: ${r.naiveSections}), ${r.queries} queries${args.whatIfText ? ' — ' + banner : ''}`);
    if (r.problems.length) console.log(`  ${r.problems.length} judgment problems: ${r.problems.slice(0, 5).join('; ')}`);
    console.log(corpusTable(r));
    const lt = languageTable(r);
    if (lt) console.log(`  by language:\n${lt}`);
    console.log(`  capture ${r.seconds.capture.toFixed(1)} s${r.captureFromCache ? ' (cached)' : ''}, index ${r.seconds.index.toFixed(1)} s, dense ${r.seconds.dense.toFixed(1)} s, search ${Object.entries(r.seconds.search).map(([l, s]) => `${l} ${s.toFixed(1)} s`).join(', ')}`);
    if (args.failures > 0) console.log(failures(r, args.failures));
  }
  if (model && results.some((r) => r.floor)) {
    const floor = args.whatIf?.floor ?? model.embedder.model.calibration.floor;
    console.log(`\n=== The bundled model's floor: dense top-1 cosine (a hit found by meaning alone is shown only at >= ${floor}) ===`);
    console.log(floorTable(results, floor));
  }
  const pooled = args.lanes.includes('hybrid') && args.lanes.includes('naive') ? pooledLanguageTable(results) : null;
  if (pooled) console.log(`\n=== By language, pooled over corpora: nDCG@10, hybrid against naive, paired per query ===\n${pooled}`);
  const before = loadSaved(args.compare);
  if (args.lanes.includes('hybrid')) {
    const s = summaryTable(results, before);
    console.log(`\n=== Hybrid (what the user gets) against before (${before ? `${path.relative(ROOT, args.compare!)}, ${before.commit ?? '?'}` : 'none'}) and the naive baseline${args.whatIfText ? ' — ' + banner : ''} ===`);
    console.log(s.text);
    const against = [before ? 'before' : '', args.lanes.includes('naive') ? 'naive' : ''].filter(Boolean).join(' and ') || 'nothing (neither before nor naive)';
    console.log(s.misses.length ? `hybrid below the better of ${against} (nDCG@10): ${s.misses.join(', ')}` : `hybrid >= the better of ${against} in every class (nDCG@10)`);
  }
  console.log('\nclasses: ' + CLASSES.map((c) => `${c}: ${CLASS_INFO[c]}`).join('\n         '));
  const json = {
    generatedBy: `npm run eval${process.argv.length > 2 ? ' -- ' + process.argv.slice(2).join(' ') : ''}`,
    configuration: args.whatIfText ? `WHAT-IF: ${args.whatIfText}` : 'shipped',
    commit: gitCommit(),
    date: new Date().toISOString(),
    load: os.loadavg(),
    tokenizer: TOKENIZER,
    lexical: { ...DEFAULT_LEXICAL, ...args.whatIf?.lexical },
    ranking: settings.ranking,
    calibration: model?.embedder.model.calibration ?? null,
    whatIf: args.whatIf ?? null,
    heldOut: HELD_OUT,
    gated: GATED,
    skipped: args.skipped,
    seconds: (Date.now() - started) / 1000,
    corpora: Object.fromEntries(
      results.map((r) => [
        r.corpus,
        {
          heldOut: r.heldOut,
          pages: r.pages,
          storedPages: r.storedPages,
          sections: r.sections,
          naiveSections: r.naiveSections,
          queries: r.queries,
          problems: r.problems,
          seconds: r.seconds,
          cells: r.cells,
          byLang: r.byLang,
          floor: r.floor,
          perQuery: compact(r.perQuery),
        },
      ]),
    ),
  };
  fs.mkdirSync(path.dirname(args.out), { recursive: true });
  fs.writeFileSync(args.out, formatJson(json));
  console.log(`\nwrote ${path.relative(ROOT, args.out)} in ${json.seconds.toFixed(0)} s`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
