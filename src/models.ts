/**
 * The embedding models Reread knows, with their calibration: lane weights per query class and the
 * dense-only similarity floor. Only the bundled model's is measured (`npm run eval`, tests/eval/README.md);
 * the downloadable models cannot be fetched where the evaluation runs (no model hub), so they ship
 * plain defaults, marked `calibrated: false` and shown in Options as "not yet calibrated".
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
  /** Whether `calibration` was measured on this model (false: documented defaults, not yet calibrated). */
  calibrated: boolean;
}

/**
 * The defaults of a model not yet measured: plain reciprocal rank fusion with equal lane weights in
 * every class, and a floor that only lets a hit found by meaning alone through when it is clearly
 * similar (set from the model's published similarity range, not from our data).
 */
function uncalibrated(floor: number): DenseCalibration {
  const equal = { lexical: 1, dense: 1 };
  return { weights: { identifier: equal, phrase: equal, natural: equal }, floor };
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
      languages: ['en'],
    },
    calibrated: true,
  },
  {
    id: 'Xenova/all-MiniLM-L6-v2',
    label: 'MiniLM L6 (23 MB download, English)',
    dim: 384,
    sizeMb: 23,
    bundled: false,
    pooling: 'mean',
    queryPrefix: '',
    passagePrefix: '',
    maxTokens: 256,
    languages: 'English',
    // Not measured. Unrelated sentences score about 0 to 0.3 in cosine with this model, paraphrases
    // well above 0.5: 0.5 keeps a meaning-only hit to clear matches.
    calibration: { ...uncalibrated(0.5), languages: ['en'] },
    calibrated: false,
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
    // Not measured. E5's cosines crowd into 0.7-1.0 even for unrelated texts (its model card says so:
    // low training temperature), so a meaning-only hit must reach 0.85.
    calibration: uncalibrated(0.85),
    calibrated: false,
  },
];

export function modelInfo(id: string): ModelInfo | undefined {
  return MODELS.find((m) => m.id === id);
}

/** What the dense lane needs from an embedding backend (transformers.js in the extension and in Node). */
export interface Embedder {
  readonly model: ModelInfo;
  /**
   * The dimension the loaded files produce (their config's hidden_size). It is what vectors are stored
   * with: a mirror may serve other files under a known id, and spaces must never mix.
   */
  readonly dim: number;
  /** One vector per text, L2-normalised; null where the text had no known words (zero vector). */
  embed(texts: readonly string[], kind: 'query' | 'passage'): Promise<(Float32Array | null)[]>;
}

/** Download progress of one model, summed over its files. */
export interface ModelDownload {
  model: string;
  loaded: number;
  total: number;
  /** 0..100, rounded down; 100 only once every file is complete. */
  percent: number;
}

/** One progress report from transformers.js (its progress_callback). */
export interface FileProgress {
  status: string;
  file?: string;
  loaded?: number;
  total?: number;
}

/** Sums transformers.js's per-file progress reports into one figure for the model. */
export class DownloadTracker {
  private readonly files = new Map<string, { loaded: number; total: number; done: boolean }>();
  constructor(readonly model: string) {}

  add(p: FileProgress): void {
    if (!p.file) return;
    const f = this.files.get(p.file) ?? { loaded: 0, total: 0, done: false };
    if (p.status === 'progress') {
      f.loaded = p.loaded ?? f.loaded;
      f.total = p.total ?? f.total;
    } else if (p.status === 'done') {
      f.done = true;
      f.loaded = Math.max(f.loaded, f.total);
    }
    this.files.set(p.file, f);
  }

  get complete(): boolean {
    return this.files.size > 0 && [...this.files.values()].every((f) => f.done);
  }

  snapshot(): ModelDownload {
    let loaded = 0;
    let total = 0;
    for (const f of this.files.values()) {
      loaded += f.loaded;
      total += f.total;
    }
    const percent = this.complete ? 100 : total > 0 ? Math.min(99, Math.floor((loaded / total) * 100)) : 0;
    return { model: this.model, loaded, total, percent };
  }
}

/** Cache keys (URLs in the hub's layout, `<host>/<owner>/<name>/resolve/...`) -> the model ids held. */
export function cachedModelIds(urls: readonly string[]): string[] {
  const ids = new Set<string>();
  for (const u of urls) {
    const m = /\/([\w.-]+\/[\w.-]+)\/resolve\//.exec(u);
    if (m) ids.add(m[1]!);
  }
  return [...ids].sort();
}

/** True when a cached file (by its URL) belongs to the model, whatever mirror it came from. */
export function isModelFile(url: string, modelId: string): boolean {
  return url.includes(`/${modelId}/resolve/`);
}

/**
 * What went wrong loading a model, in words a person understands. `raw` is the runtime's message
 * (transformers.js, fetch); `host` the mirror it was fetched from.
 */
export function describeModelError(raw: string, model: ModelInfo | undefined, host: string): string {
  const name = model?.label.replace(/\s*\(.*\)$/, '') ?? 'the model';
  let hostname = host;
  try {
    hostname = new URL(host).host;
  } catch {
    /* keep as given */
  }
  const file = /"([^"]+)"/.exec(raw)?.[1]?.split('/').pop();
  if (/allowRemoteModels=false|local_files_only/.test(raw)) return `${name} needs a one-time download, which is not allowed yet: choose it in Options to download it.`;
  if (/Failed to fetch|NetworkError|ERR_INTERNET|ERR_NAME|ERR_CONNECTION|Load failed/i.test(raw)) return `Could not reach ${hostname} to download ${name}: you may be offline. Reread will try again later; keyword search works meanwhile.`;
  if (/Could not locate file|\(404\)/.test(raw)) return `${hostname} said it has no ${file ? `file ${file} for ` : ''}${name} (404 not found). Check the model mirror in Options.`;
  const status = /Error \((\d{3})\)/.exec(raw)?.[1];
  if (status) return `${hostname} answered ${status} while ${name} was downloading. Reread will try again later.`;
  if (/QuotaExceeded|quota/i.test(raw)) return `There is not enough disk space to store ${name}.`;
  return `${name} could not be loaded: ${raw}`;
}
