/**
 * The embedding models Reread knows. Calibrations (lane weights per query class, the dense-only
 * similarity floor) are measured with `npm run eval` on training data (SciFact train split and the
 * Python-manual set); the figures behind them are in tests/eval/README.md.
 */
import type { DenseCalibration } from './hybrid.js';

export interface ModelInfo {
  id: string;
  label: string;
  dim: number;
  /** Download size in MB (0 for the bundled model). */
  sizeMb: number;
  bundled: boolean;
  pooling: 'mean' | 'cls';
  queryPrefix: string;
  passagePrefix: string;
  /** Longest input in tokens the model accepts. */
  maxTokens: number;
  languages: string;
  calibration: DenseCalibration;
}

export const MODELS: readonly ModelInfo[] = [
  {
    id: 'reread/glove-100d',
    label: 'Built-in word vectors (offline, English)',
    dim: 100,
    sizeMb: 0,
    bundled: true,
    pooling: 'mean',
    queryPrefix: '',
    passagePrefix: '',
    maxTokens: 512,
    languages: 'English',
    // Measured by `npm run eval -- --tune` on training queries (tests/eval/README.md): alone, nDCG@10
    // 0.24 on SciFact train against BM25's 0.68, and every dense weight above 0 costs SciFact nDCG in
    // every class (natural: 0.660 at 0, 0.656 at 0.02, 0.506 at 0.5), while no weight helps the
    // Python-manual set by more than noise (13 queries a class). So it may not reorder lexical results
    // at all (weight 0): its hits above the floor only follow them, which finds a page by a word it
    // does not contain. Floor: the lowest cosine (0.025 steps) at which at most 5% of off-topic
    // queries still reach a dense-only hit on either evaluation corpus; it keeps the top hit of 88%
    // (SciFact) and 74% (Python manual) of real queries.
    calibration: {
      weights: {
        identifier: { lexical: 1, dense: 0 },
        phrase: { lexical: 1, dense: 0 },
        natural: { lexical: 1, dense: 0 },
      },
      floor: 0.65,
    },
  },
  // The two downloadable models' calibrations are NOT measured (no download is possible on the
  // evaluation machines): placeholders until `npm run eval` can run them from local files.
  {
    id: 'Xenova/all-MiniLM-L6-v2',
    label: 'MiniLM L6 (23 MB download, English, recommended)',
    dim: 384,
    sizeMb: 23,
    bundled: false,
    pooling: 'mean',
    queryPrefix: '',
    passagePrefix: '',
    maxTokens: 256,
    languages: 'English',
    calibration: {
      weights: {
        identifier: { lexical: 1, dense: 0.3 },
        phrase: { lexical: 1, dense: 0.8 },
        natural: { lexical: 1, dense: 1.2 },
      },
      floor: 0.3,
    },
  },
  {
    id: 'Xenova/multilingual-e5-small',
    label: 'Multilingual E5 small (118 MB download, 100 languages)',
    dim: 384,
    sizeMb: 118,
    bundled: false,
    pooling: 'mean',
    queryPrefix: 'query: ',
    passagePrefix: 'passage: ',
    maxTokens: 512,
    languages: '~100 languages',
    calibration: {
      weights: {
        identifier: { lexical: 1, dense: 0.3 },
        phrase: { lexical: 1, dense: 0.8 },
        natural: { lexical: 1, dense: 1.1 },
      },
      floor: 0.78,
    },
  },
];

export function modelInfo(id: string): ModelInfo | undefined {
  return MODELS.find((m) => m.id === id);
}

/** What the dense lane needs from an embedding backend (transformers.js in the extension and in Node). */
export interface Embedder {
  readonly model: ModelInfo;
  /** One vector per text, L2-normalised; null where the text had no known words (zero vector). */
  embed(texts: readonly string[], kind: 'query' | 'passage'): Promise<(Float32Array | null)[]>;
}
