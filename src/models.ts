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
    // A weak lane (nDCG@10 ≈ 0.2 alone on SciFact): it may only nudge, never drag, lexical ranking.
    calibration: {
      weights: {
        identifier: { lexical: 1, dense: 0 },
        phrase: { lexical: 1, dense: 0.25 },
        natural: { lexical: 1, dense: 0.35 },
      },
      floor: 0.55,
    },
  },
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
