/**
 * Chrome: the embedding model runs in an offscreen document (offscreen/main.ts), not in the service
 * worker. The document outlives the worker's idle stops, so the model stays loaded and the worker
 * starts without the ONNX runtime in its bundle; it is closed after IDLE_MINUTES without use to give
 * the memory back (an alarm, since the worker itself may be stopped by then).
 *
 * The worker opens one Port to the document and sends it typed requests (hostProtocol.ts); the
 * document may be closed or reloaded at any time, so every request re-creates it and re-loads the
 * model when needed. This file uses `chrome.*` directly: it is built into the Chrome worker only.
 */
import type { Embedder, FileProgress, ModelInfo } from '../../src/models.js';
import type { Settings } from '../../src/settings.js';
import type { EmbedderHost } from '../dense.js';
import { OffscreenChannel } from '../offscreenChannel.js';
import { offscreenDocumentTimings, touchOffscreenDocument } from '../offscreenDocument.js';
import { EMBEDDER_PORT, parseHostMessage, type HostRequest, type LoadConfig, type LoadResult } from './hostProtocol.js';

export { IDLE_MINUTES } from '../offscreenDocument.js';

/** Models the document currently holds (as far as this worker knows), with their load config. */
const loaded = new Map<string, { config: string; result: LoadResult }>();
const progressListeners = new Map<string, (p: FileProgress) => void>();

const channel = new OffscreenChannel<HostRequest>({
  name: EMBEDDER_PORT,
  who: 'the embedding model',
  timeoutMs: 10 * 60_000,
  receive(raw) {
    const m = parseHostMessage(raw);
    if (!m) return null;
    if ('op' in m) {
      progressListeners.get(m.model)?.(m.progress);
      return null;
    }
    return m;
  },
  // A new document holds no model.
  onClose: () => loaded.clear(),
});

/** Timings of the last document creation and connection, for the benchmark. */
export const offscreenTimings = {
  get createMs() {
    return offscreenDocumentTimings.createMs;
  },
  get connectMs() {
    return channel.connectMs;
  },
};

const touch = touchOffscreenDocument;

async function ensureLoaded(model: ModelInfo, config: LoadConfig): Promise<{ port: chrome.runtime.Port; result: LoadResult }> {
  const p = await channel.connect();
  const key = JSON.stringify(config);
  const have = loaded.get(model.id);
  if (have && have.config === key) return { port: p, result: have.result };
  // The document replaces (or, on failure, drops) what it held for this model.
  loaded.delete(model.id);
  const result = (await channel.post(p, { op: 'load', model: model.id, config })) as LoadResult;
  if (channel.current === p) loaded.set(model.id, { config: key, result });
  return { port: p, result };
}

function configFor(settings: Settings): LoadConfig {
  return { allowRemote: settings.allowModelDownload, remoteHost: settings.modelMirror };
}

/** The last load's time inside the document (read by tests/bench/embeddingHost.ts through the worker's global). */
export const lastLoad = { model: '', loadMs: 0 };
(globalThis as unknown as { rereadLastLoad: unknown }).rereadLastLoad = lastLoad;

export const offscreenHost: EmbedderHost = {
  async load(model: ModelInfo, settings: Settings, onProgress?: (p: FileProgress) => void): Promise<Embedder> {
    const config = configFor(settings);
    touch();
    if (onProgress) progressListeners.set(model.id, onProgress);
    let first: LoadResult;
    try {
      first = (await ensureLoaded(model, config)).result;
    } finally {
      progressListeners.delete(model.id);
    }
    lastLoad.model = model.id;
    lastLoad.loadMs = first.loadMs;
    return {
      model,
      dim: first.dim,
      async embed(texts, kind) {
        if (!texts.length) return [];
        touch();
        // The document may have been closed (idle) or reloaded since: ensureLoaded brings it back.
        const { port: p } = await ensureLoaded(model, config);
        const out = (await channel.post(p, { op: 'embed', model: model.id, texts: [...texts], kind })) as (number[] | null)[];
        if (out.length !== texts.length) throw new Error('the embedding page answered for the wrong number of texts');
        return out.map((v) => (v ? Float32Array.from(v) : null));
      },
    };
  },
  async unload(modelId: string) {
    const port = channel.current;
    if (!port || !loaded.has(modelId)) return;
    loaded.delete(modelId);
    await channel.post(port, { op: 'unload', model: modelId }).catch(() => undefined);
  },
  keepAlive: () => {
    // Any extension API call resets the worker's idle timer while the backlog is drained.
    void chrome.runtime.getPlatformInfo().catch(() => undefined);
  },
};
