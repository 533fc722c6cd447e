/**
 * An Embedder on @xenova/transformers (tokenizer + ONNX model). Used by the extension (service worker
 * or offscreen document) and by the Node evaluation, with different environment settings.
 *
 * Pooling is done here rather than by the feature-extraction pipeline: its generic tensor code cost
 * ~1.6 ms a text, this loop a few microseconds; and its `normalize` turns a zero vector (a text with no
 * known words) into NaN, where we return null.
 */
import { AutoModel, AutoTokenizer, env } from '@xenova/transformers';
import type { Embedder, FileProgress, ModelInfo } from '../../src/models.js';
import { normalize } from '../../src/vectors.js';

export interface TransformersConfig {
  /** Where bundled models live (extension: runtime.getURL('models/'); Node: a folder path). */
  localModelPath: string;
  /** Whether this model may be fetched from the hub (only when the user asked for it). */
  allowRemote: boolean;
  /** Hub host override (tests point it at a local server in the hub's URL layout). */
  remoteHost?: string;
  /** ORT .wasm files (extension: runtime.getURL('wasm/')); unset in Node. */
  wasmPaths?: string;
  /** The Cache API refuses chrome-extension:// URLs; downloaded models are cached when true. */
  useBrowserCache: boolean;
  onProgress?: (p: FileProgress) => void;
}

interface Tensor {
  data: Float32Array | BigInt64Array;
  dims: number[];
}

type Tokenizer = (texts: string[], opts: { padding: boolean; truncation: boolean; max_length?: number }) => Record<string, Tensor>;
type Model = ((inputs: Record<string, Tensor>) => Promise<{ last_hidden_state: Tensor }>) & { config?: { hidden_size?: number }; dispose?: () => Promise<unknown> };

export function configureTransformers(model: ModelInfo, cfg: TransformersConfig): void {
  env.localModelPath = cfg.localModelPath;
  env.allowLocalModels = model.bundled;
  env.allowRemoteModels = !model.bundled && cfg.allowRemote;
  if (cfg.remoteHost) env.remoteHost = cfg.remoteHost;
  env.useBrowserCache = cfg.useBrowserCache;
  if (cfg.wasmPaths) {
    env.backends.onnx.wasm.wasmPaths = cfg.wasmPaths;
    env.backends.onnx.wasm.numThreads = 1;
  }
}

// transformers.js reads its settings from one global `env` all through a load: loads take turns.
let loading: Promise<unknown> = Promise.resolve();

export interface LoadedEmbedder extends Embedder {
  /** Frees the ONNX session (the model is loaded again on next use). */
  dispose(): Promise<void>;
}

export function createTransformersEmbedder(model: ModelInfo, cfg: TransformersConfig): Promise<LoadedEmbedder> {
  const next = loading.then(() => load(model, cfg));
  loading = next.catch(() => undefined);
  return next;
}

async function load(model: ModelInfo, cfg: TransformersConfig): Promise<LoadedEmbedder> {
  configureTransformers(model, cfg);
  const opts = { quantized: true, progress_callback: cfg.onProgress };
  const [tokenizer, net] = (await Promise.all([AutoTokenizer.from_pretrained(model.id, opts), AutoModel.from_pretrained(model.id, opts)])) as unknown as [Tokenizer, Model];
  const dim = net.config?.hidden_size ?? model.dim;
  return {
    model,
    dim,
    async dispose() {
      await net.dispose?.();
    },
    async embed(texts, kind) {
      if (!texts.length) return [];
      const prefix = kind === 'query' ? model.queryPrefix : model.passagePrefix;
      const inputs = tokenizer(texts.map((t) => prefix + t), { padding: true, truncation: true, max_length: model.maxTokens });
      const { last_hidden_state: out } = await net(inputs);
      const [batch, seq, dim] = out.dims as [number, number, number];
      const hidden = out.data as Float32Array;
      const mask = inputs.attention_mask!.data as BigInt64Array;
      const vectors: (Float32Array | null)[] = [];
      for (let b = 0; b < batch; b++) {
        const v = new Float32Array(dim);
        if (model.pooling === 'cls') v.set(hidden.subarray(b * seq * dim, b * seq * dim + dim));
        else {
          for (let s = 0; s < seq; s++) {
            if (mask[b * seq + s] === 0n) continue;
            const base = (b * seq + s) * dim;
            for (let d = 0; d < dim; d++) v[d] = v[d]! + hidden[base + d]!;
          }
        }
        // Mean or sum only differ by a factor that normalisation removes.
        vectors.push(normalize(v));
      }
      return vectors;
    },
  };
}
