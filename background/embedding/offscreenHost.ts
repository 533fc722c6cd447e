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
import { ensureOffscreenDocument, offscreenDocumentTimings, registerOffscreenUse, touchOffscreenDocument } from '../offscreenDocument.js';
import { EMBEDDER_PORT, parseHostMessage, type HostMessage, type HostRequest, type LoadConfig, type LoadResult } from './hostProtocol.js';

export { IDLE_MINUTES } from '../offscreenDocument.js';
const REQUEST_TIMEOUT_MS = 10 * 60_000;

type Pending = { resolve: (v: unknown) => void; reject: (e: Error) => void; timer: ReturnType<typeof setTimeout> };
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

let port: chrome.runtime.Port | null = null;
let connecting: Promise<chrome.runtime.Port> | null = null;
let nextId = 1;
const pending = new Map<number, Pending>();
/** Models the document currently holds (as far as this worker knows), with their load config. */
const loaded = new Map<string, { config: string; result: LoadResult }>();
const progressListeners = new Map<string, (p: FileProgress) => void>();
registerOffscreenUse(() => pending.size > 0);

/** Timings of the last document creation and connection, for the benchmark. */
export const offscreenTimings = {
  get createMs() {
    return offscreenDocumentTimings.createMs;
  },
  connectMs: 0,
};

const ensureDocument = ensureOffscreenDocument;
const touch = touchOffscreenDocument;

function dropPort(reason: string): void {
  port = null;
  loaded.clear();
  for (const [id, p] of pending) {
    clearTimeout(p.timer);
    p.reject(new Error(reason));
    pending.delete(id);
  }
}

function onMessage(raw: unknown): void {
  const m: HostMessage | null = parseHostMessage(raw);
  if (!m) return;
  if ('op' in m) {
    progressListeners.get(m.model)?.(m.progress);
    return;
  }
  const p = pending.get(m.id);
  if (!p) return;
  pending.delete(m.id);
  clearTimeout(p.timer);
  if (m.ok) p.resolve(m.data);
  else p.reject(new Error(m.error));
}

function post(target: chrome.runtime.Port, req: DistributiveOmit<HostRequest, 'id'>): Promise<unknown> {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      pending.delete(id);
      reject(new Error('the embedding model did not answer in time'));
    }, REQUEST_TIMEOUT_MS);
    pending.set(id, { resolve, reject, timer });
    try {
      target.postMessage({ ...req, id });
    } catch (e) {
      pending.delete(id);
      clearTimeout(timer);
      reject(e instanceof Error ? e : new Error(String(e)));
    }
  });
}

async function connect(): Promise<chrome.runtime.Port> {
  if (port) return port;
  connecting ??= (async () => {
    const t = performance.now();
    let lastError = 'the embedding page did not answer';
    // The document's listener may not be registered yet right after creation: retry the hello.
    for (let attempt = 0; attempt < 40; attempt++) {
      await ensureDocument();
      const p = chrome.runtime.connect({ name: EMBEDDER_PORT });
      port = p;
      p.onMessage.addListener(onMessage);
      p.onDisconnect.addListener(() => {
        if (port === p) dropPort('the embedding page closed');
      });
      try {
        await post(p, { op: 'hello' });
        offscreenTimings.connectMs = performance.now() - t;
        return p;
      } catch (e) {
        lastError = e instanceof Error ? e.message : String(e);
        if (port === p) port = null;
        p.disconnect();
        await new Promise((r) => setTimeout(r, 25 * Math.min(attempt + 1, 8)));
      }
    }
    throw new Error(lastError);
  })().finally(() => {
    connecting = null;
  });
  return connecting;
}

async function ensureLoaded(model: ModelInfo, config: LoadConfig): Promise<{ port: chrome.runtime.Port; result: LoadResult }> {
  const p = await connect();
  const key = JSON.stringify(config);
  const have = loaded.get(model.id);
  if (have && have.config === key) return { port: p, result: have.result };
  // The document replaces (or, on failure, drops) what it held for this model.
  loaded.delete(model.id);
  const result = (await post(p, { op: 'load', model: model.id, config })) as LoadResult;
  if (port === p) loaded.set(model.id, { config: key, result });
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
        const out = (await post(p, { op: 'embed', model: model.id, texts: [...texts], kind })) as (number[] | null)[];
        if (out.length !== texts.length) throw new Error('the embedding page answered for the wrong number of texts');
        return out.map((v) => (v ? Float32Array.from(v) : null));
      },
    };
  },
  async unload(modelId: string) {
    if (!port || !loaded.has(modelId)) return;
    loaded.delete(modelId);
    await post(port, { op: 'unload', model: modelId }).catch(() => undefined);
  },
  keepAlive: () => {
    // Any extension API call resets the worker's idle timer while the backlog is drained.
    void chrome.runtime.getPlatformInfo().catch(() => undefined);
  },
};
