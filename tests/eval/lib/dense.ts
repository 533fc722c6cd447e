/**
 * The dense lane in Node: the extension's transformers.js embedder over the bundled model (no network),
 * int8 vectors in the extension's `DenseIndex`. Passage vectors are cached in .cache/eval, keyed by the
 * model files' hash and the texts' hash, so only the first run pays for embedding.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createTransformersEmbedder } from '../../../background/embedding/transformersEmbedder.js';
import { modelInfo, type Embedder } from '../../../src/models.js';
import { DenseIndex, quantize, type DenseHit } from '../../../src/vectors.js';
import { CACHE_DIR, ROOT } from './paths.js';

export const MODEL_ID = 'reread/glove-100d';
const BATCH = 32;

export interface DenseModel {
  embedder: Embedder;
  /** sha256 of the model's files: the cache key. */
  hash: string;
  dir: string;
}

export async function loadModel(modelsDir = path.join(ROOT, 'models')): Promise<DenseModel> {
  const info = modelInfo(MODEL_ID);
  if (!info) throw new Error(`unknown model ${MODEL_ID}`);
  const dir = path.join(modelsDir, MODEL_ID);
  const h = createHash('sha256');
  for (const f of ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_quantized.onnx']) h.update(fs.readFileSync(path.join(dir, f)));
  const embedder = await createTransformersEmbedder(info, { localModelPath: modelsDir + path.sep, allowRemote: false, useBrowserCache: false });
  return { embedder, hash: h.digest('hex').slice(0, 16), dir };
}

/** One vector per text (null where the text has no known word), from the cache when possible. */
export async function embedAll(model: DenseModel, texts: readonly string[], kind: 'query' | 'passage', label: string): Promise<(Float32Array | null)[]> {
  const dim = model.embedder.model.dim;
  const key = createHash('sha256').update(kind).update(texts.join('\u0000')).digest('hex').slice(0, 16);
  const file = path.join(CACHE_DIR, 'embeddings', `${label}-${model.hash}-${key}.f32`);
  if (fs.existsSync(file)) {
    const buf = fs.readFileSync(file);
    const all = new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
    if (all.length === texts.length * dim) {
      return texts.map((_, i) => {
        const v = all.slice(i * dim, (i + 1) * dim);
        return Number.isNaN(v[0]) ? null : v;
      });
    }
  }
  const out: (Float32Array | null)[] = [];
  for (let i = 0; i < texts.length; i += BATCH) out.push(...(await model.embedder.embed(texts.slice(i, i + BATCH), kind)));
  const all = new Float32Array(texts.length * dim);
  out.forEach((v, i) => (v ? all.set(v, i * dim) : all.fill(NaN, i * dim, (i + 1) * dim)));
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, new Uint8Array(all.buffer));
  return out;
}

/** The resident index as the extension keeps it: int8 codes with a per-vector scale. */
export function buildDenseIndex(vectors: readonly (Float32Array | null)[], dim: number): DenseIndex {
  const index = new DenseIndex(dim, Math.max(1024, vectors.length));
  vectors.forEach((v, id) => {
    if (!v) return; // no known word: absent from the dense lane, as in the extension
    const q = quantize(v);
    index.add(id, q.codes, q.scale);
  });
  return index;
}

export function denseSearch(index: DenseIndex, query: Float32Array | null, k: number): DenseHit[] {
  return query ? index.search(query, { k }) : [];
}
