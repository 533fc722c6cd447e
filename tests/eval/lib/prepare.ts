/** Shared setup: the configuration under test and both lanes' hits for every query of a dataset. */
import path from 'node:path';
import { TOKENIZER } from '../../../src/indexing.js';
import { DEFAULT_BM25, type Bm25Params } from '../../../src/bm25.js';
import type { DenseCalibration } from '../../../src/hybrid.js';
import { modelInfo } from '../../../src/models.js';
import { DEFAULT_RRF_K } from '../../../src/rrf.js';
import type { TokenizerOptions } from '../../../src/tokenizer.js';
import type { DenseIndex } from '../../../src/vectors.js';
import type { Dataset } from './datasets.js';
import { buildDenseIndex, embedAll, MODEL_ID, type DenseModel } from './dense.js';
import { buildLexical, runDense, runLexical, type LaneRuns } from './evaluate.js';
import { ROOT } from './paths.js';

export interface RunConfig {
  tokenizer: TokenizerOptions;
  bm25: Bm25Params;
  /** 1 = no field boost (what the extension indexes today). */
  fieldBoost: number;
  rrfK: number;
  calibration: DenseCalibration;
  modelsDir: string;
}

/** What the extension ships, read from its code, with command-line overrides for what-if runs. */
export function configFromArgs(argv: readonly string[]): RunConfig {
  const cal = modelInfo(MODEL_ID)?.calibration;
  if (!cal) throw new Error(`no calibration for ${MODEL_ID}`);
  const cfg: RunConfig = { tokenizer: { ...TOKENIZER }, bm25: { ...DEFAULT_BM25 }, fieldBoost: 1, rrfK: DEFAULT_RRF_K, calibration: cal, modelsDir: path.join(ROOT, 'models') };
  const num = (i: number) => {
    const v = Number(argv[i + 1]);
    if (!Number.isFinite(v)) throw new Error(`${argv[i]} needs a number`);
    return v;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--stem') cfg.tokenizer.stem = true;
    else if (a === '--no-stem') cfg.tokenizer.stem = false;
    else if (a === '--stopwords') cfg.tokenizer.stopwords = true;
    else if (a === '--no-stopwords') cfg.tokenizer.stopwords = false;
    else if (a === '--k1') cfg.bm25.k1 = num(i++);
    else if (a === '--b') cfg.bm25.b = num(i++);
    else if (a === '--field-boost') cfg.fieldBoost = num(i++);
    else if (a === '--rrf-k') cfg.rrfK = num(i++);
    else if (a === '--models') cfg.modelsDir = path.resolve(argv[++i] ?? '');
  }
  return cfg;
}

export interface Prepared {
  ds: Dataset;
  runs: LaneRuns;
  queryVectors: (Float32Array | null)[];
  denseIndex: DenseIndex;
}

export async function prepare(ds: Dataset, cfg: RunConfig, model: DenseModel): Promise<Prepared> {
  const lexical = runLexical(ds, buildLexical(ds, cfg), cfg.bm25);
  const passages = await embedAll(model, ds.items.map((i) => i.text), 'passage', ds.name);
  const queryVectors = await embedAll(model, ds.queries.map((q) => q.text), 'query', `${ds.name}-queries`);
  const denseIndex = buildDenseIndex(passages, model.embedder.model.dim);
  return { ds, runs: { lexical, dense: runDense(ds, denseIndex, queryVectors) }, queryVectors, denseIndex };
}
