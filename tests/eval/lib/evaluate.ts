/**
 * One corpus through every lane: capture (lib/capture.ts), the product's index in memory
 * (lib/memorySource.ts), `search()` from src/search.ts for Reread's lanes, the naive baseline
 * (lib/naive.ts), and the judgments (lib/judge.ts), per query and per class.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseQuery } from '../../../src/query.js';
import { search, type LexicalOptions } from '../../../src/search.js';
import { DEFAULT_SETTINGS, type Settings } from '../../../src/settings.js';
import type { DenseCalibration } from '../../../src/hybrid.js';
import { loadCorpus, type LoadedCorpus } from './capture.js';
import { pageUrl, type CorpusDef } from './corpora.js';
import type { DenseModel } from './dense.js';
import { aggregate, checkQueries, judge, pageLookup, type Cell, type QueryScore, type Shown } from './judge.js';
import { buildDense, memorySource, MemoryIndex, type DenseData, type Lane } from './memorySource.js';
import { NaiveIndex } from './naive.js';
import { ROOT } from './paths.js';
import { CLASSES, loadQueries, type EvalQuery, type QueryClass } from './queries.js';

export type LaneName = Lane | 'naive';
export const LANE_NAMES: readonly LaneName[] = ['lexical', 'dense', 'hybrid', 'naive'];

/** Results asked for, as the full results page (search.html) asks. */
export const RESULT_LIMIT = 30;
/** "Now" for every search (only relative date operators would use it). */
export const NOW = Date.UTC(2026, 5, 1);

/** What-if changes to the shipped configuration (never the default; labelled in every report). */
export interface WhatIf {
  ranking?: Partial<Settings['ranking']>;
  /** Replaces the bundled model's calibration fields given. */
  floor?: number;
  denseWeight?: number;
  /** The lexical lane's options (src/search.ts LexicalOptions), by dotted key: `proximity.ordered`. */
  lexical?: Partial<LexicalOptions>;
}

export interface EvalOptions {
  lanes: readonly LaneName[];
  classes?: readonly QueryClass[];
  whatIf?: WhatIf;
  model: DenseModel | null;
  cache?: boolean;
  log?: (s: string) => void;
}

export type Group = QueryClass | 'all';

export interface CorpusResult {
  corpus: string;
  heldOut: boolean;
  pages: number;
  storedPages: number;
  sections: number;
  naiveSections: number;
  terms: number;
  queries: number;
  problems: string[];
  cells: Partial<Record<LaneName, Partial<Record<Group, Cell>>>>;
  /** The same per language, for corpora in several languages. */
  byLang: Partial<Record<LaneName, Record<string, Partial<Record<Group, Cell>>>>>;
  perQuery: Partial<Record<LaneName, QueryScore[]>>;
  queryClass: Record<string, QueryClass>;
  /** Each query's language (its `lang`). */
  queryLang: Record<string, string>;
  seconds: { capture: number; index: number; dense: number; search: Partial<Record<LaneName, number>> };
  /**
   * The dense lane's top-1 cosine (null: the query has no known word, so no vector): for the corpus's
   * judged queries, its off-topic queries, and the shared everyday / garbage lists
   * (tests/eval/offtopic-queries.json). The bundled model's floor must sit above what off-topic
   * queries reach and below what real ones do.
   */
  floor: { judged: (number | null)[]; offtopic: (number | null)[]; everyday: (number | null)[]; garbage: (number | null)[] } | null;
  captureFromCache: boolean;
}

export function settingsFor(whatIf: WhatIf | undefined): Settings {
  return { ...DEFAULT_SETTINGS, ranking: { ...DEFAULT_SETTINGS.ranking, ...whatIf?.ranking } };
}

function calibrationFor(model: DenseModel | null, whatIf: WhatIf | undefined): DenseCalibration | undefined {
  if (!model || (whatIf?.floor === undefined && whatIf?.denseWeight === undefined)) return undefined;
  const base = model.embedder.model.calibration;
  const w = (x: { lexical: number; dense: number }) => ({ lexical: x.lexical, dense: whatIf.denseWeight ?? x.dense });
  return {
    floor: whatIf.floor ?? base.floor,
    weights: { identifier: w(base.weights.identifier), phrase: w(base.weights.phrase), natural: w(base.weights.natural) },
  };
}

export async function evaluateCorpus(def: CorpusDef, opts: EvalOptions, preloaded?: LoadedCorpus): Promise<CorpusResult> {
  const loaded = preloaded ?? (await loadCorpus(def, { cache: opts.cache, log: opts.log }));
  const look = pageLookup(loaded.pages);
  let { queries } = loadQueries(def.name);
  if (opts.classes) queries = queries.filter((q) => opts.classes!.includes(q.class));
  const problems = checkQueries(queries, look);
  const t0 = Date.now();
  const idx = new MemoryIndex(loaded.pages);
  const tIndex = (Date.now() - t0) / 1000;
  const needDense = opts.lanes.some((l) => l === 'dense' || l === 'hybrid') && opts.model;
  const t1 = Date.now();
  const dense: DenseData | null = needDense ? await buildDense(idx, opts.model!, def.name, queries.map((q) => parseQuery(q.q, NOW).text)) : null;
  const tDense = (Date.now() - t1) / 1000;
  const prefix = pageUrl(def, '');
  const fileOf = (url: string) => (url.startsWith(prefix) ? url.slice(prefix.length) : url);
  const naive = opts.lanes.includes('naive') ? new NaiveIndex(loaded.pages) : null;
  const settings = settingsFor(opts.whatIf);
  const calibration = calibrationFor(opts.model, opts.whatIf);

  const result: CorpusResult = {
    corpus: def.name,
    heldOut: def.heldOut,
    pages: loaded.pages.length,
    storedPages: loaded.pages.length - idx.skipped,
    sections: idx.sections.size,
    naiveSections: naive?.size ?? 0,
    terms: idx.terms,
    queries: queries.length,
    problems,
    cells: {},
    byLang: {},
    perQuery: {},
    queryClass: Object.fromEntries(queries.map((q) => [q.id, q.class])),
    queryLang: Object.fromEntries(queries.map((q) => [q.id, q.lang])),
    seconds: { capture: loaded.seconds, index: tIndex, dense: tDense, search: {} },
    captureFromCache: loaded.fromCache,
    floor: dense ? await floorData(dense, queries) : null,
  };
  for (const lane of opts.lanes) {
    if ((lane === 'dense' || lane === 'hybrid') && !dense) continue;
    const t = Date.now();
    const scores: QueryScore[] = [];
    const src = lane === 'naive' ? null : memorySource(idx, dense, { lane, settings, ...(calibration ? { calibration } : {}) });
    for (const q of queries) {
      let shown: Shown[];
      if (lane === 'naive') shown = naive!.search(q.q, RESULT_LIMIT).map((h) => ({ file: h.file, href: h.href }));
      else {
        const res = await search(src!, { q: q.q, limit: RESULT_LIMIT }, { now: NOW, ...(opts.whatIf?.lexical ? { lexical: opts.whatIf.lexical } : {}) });
        shown = res.results.map((r) => ({ file: fileOf(r.url), href: r.href }));
      }
      scores.push(judge(q, shown, look));
    }
    result.seconds.search[lane] = (Date.now() - t) / 1000;
    result.perQuery[lane] = scores;
    result.cells[lane] = cellsOf(queries, scores);
    const langs = [...new Set(queries.map((q) => q.lang))].sort();
    if (langs.length > 1) {
      result.byLang[lane] = Object.fromEntries(
        langs.map((l) => {
          const idx = queries.flatMap((q, i) => (q.lang === l ? [i] : []));
          return [l, cellsOf(idx.map((i) => queries[i]!), idx.map((i) => scores[i]!))];
        }),
      );
    }
  }
  return result;
}

async function floorData(dense: DenseData, queries: readonly EvalQuery[]): Promise<NonNullable<CorpusResult['floor']>> {
  const top1 = async (texts: readonly string[]) =>
    Promise.all(
      texts.map(async (t) => {
        let v = dense.queries.get(t);
        if (v === undefined) {
          v = (await dense.model.embedder.embed([t], 'query'))[0] ?? null;
          dense.queries.set(t, v);
        }
        return v ? ((await dense.index.searchAsync(v, { k: 1 }))[0]?.score ?? null) : null;
      }),
    );
  const text = (q: EvalQuery) => parseQuery(q.q, NOW).text;
  const shared = JSON.parse(fs.readFileSync(path.join(ROOT, 'tests/eval/offtopic-queries.json'), 'utf8')) as { offtopic: string[]; garbage: string[] };
  return {
    judged: await top1(queries.filter((q) => q.class !== 'offtopic').map(text)),
    offtopic: await top1(queries.filter((q) => q.class === 'offtopic').map(text)),
    everyday: await top1(shared.offtopic),
    garbage: await top1(shared.garbage),
  };
}

export function cellsOf(queries: readonly EvalQuery[], scores: readonly QueryScore[]): Partial<Record<Group, Cell>> {
  const cells: Partial<Record<Group, Cell>> = {};
  for (const cls of CLASSES) {
    const s = scores.filter((_, i) => queries[i]!.class === cls);
    if (s.length) cells[cls] = aggregate(s);
  }
  // "all": every judged class (off-topic queries have nothing to rank).
  cells.all = aggregate(scores.filter((_, i) => queries[i]!.class !== 'offtopic'));
  return cells;
}
