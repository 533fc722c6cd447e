/**
 * The offscreen document's side (Chrome): holds transformers.js embedders and answers the service
 * worker's requests over one Port (hostProtocol.ts).
 *
 * `runtime.connect` and `runtime.sendMessage` from a content script or any extension page reach this
 * document too: it registers no onMessage listener at all, and accepts a port only when the browser
 * says it comes from this extension's own service worker (no tab, the worker script's URL). Anything
 * else is disconnected unanswered, and malformed requests on an accepted port are ignored.
 */
import { modelInfo, type ModelInfo } from '../../src/models.js';
import { EMBEDDER_PORT, parseHostRequest, type HostMessage, type HostRequest, type LoadConfig, type LoadResult } from './hostProtocol.js';
import { createTransformersEmbedder, type LoadedEmbedder } from './transformersEmbedder.js';

/** Whether a port's sender is this extension's service worker (and nothing else). */
export function fromOwnServiceWorker(sender: chrome.runtime.MessageSender | undefined, extensionId: string, workerUrl: string): boolean {
  return !!sender && sender.id === extensionId && sender.url === workerUrl && !sender.tab && (sender.frameId === undefined || sender.frameId < 0);
}

export function serveEmbeddings(): void {
  const embedders = new Map<string, { config: string; embedder: Promise<LoadedEmbedder> }>();
  const workerUrl = chrome.runtime.getURL('background.js');

  function load(model: ModelInfo, config: LoadConfig, send: (m: HostMessage) => void): { embedder: Promise<LoadedEmbedder>; fresh: boolean } {
    const key = JSON.stringify(config);
    const have = embedders.get(model.id);
    if (have && have.config === key) return { embedder: have.embedder, fresh: false };
    if (have) void have.embedder.then((e) => e.dispose()).catch(() => undefined);
    const embedder = createTransformersEmbedder(model, {
      localModelPath: chrome.runtime.getURL('models/'),
      allowRemote: config.allowRemote,
      remoteHost: config.remoteHost,
      wasmPaths: chrome.runtime.getURL('wasm/'),
      // The Cache API refuses extension URLs; downloaded models are cached under their hub URLs.
      useBrowserCache: !model.bundled,
      onProgress: (progress) => send({ op: 'progress', model: model.id, progress: { status: progress.status, file: progress.file, loaded: progress.loaded, total: progress.total } }),
    });
    embedders.set(model.id, { config: key, embedder });
    embedder.catch(() => {
      if (embedders.get(model.id)?.embedder === embedder) embedders.delete(model.id);
    });
    return { embedder, fresh: true };
  }

  async function handle(req: HostRequest, send: (m: HostMessage) => void): Promise<LoadResult | (number[] | null)[] | null> {
    if (req.op === 'hello') return null;
    const model = modelInfo(req.model);
    if (!model) throw new Error(`unknown model ${req.model}`);
    switch (req.op) {
      case 'load': {
        const t = performance.now();
        const { embedder, fresh } = load(model, req.config, send);
        const e = await embedder;
        return { dim: e.dim, loadMs: fresh ? performance.now() - t : 0 };
      }
      case 'embed': {
        const have = embedders.get(model.id);
        if (!have) throw new Error(`model ${model.id} is not loaded`);
        const vectors = await (await have.embedder).embed(req.texts, req.kind);
        return vectors.map((v) => (v ? Array.from(v) : null));
      }
      case 'unload': {
        const have = embedders.get(model.id);
        embedders.delete(model.id);
        if (have) await (await have.embedder.catch(() => null))?.dispose();
        return null;
      }
    }
  }

  chrome.runtime.onConnect.addListener((port) => {
    // Other ports (the page reader's) have their own listener in this document.
    if (port.name !== EMBEDDER_PORT) return;
    if (!fromOwnServiceWorker(port.sender, chrome.runtime.id, workerUrl)) {
      port.disconnect();
      return;
    }
    let open = true;
    port.onDisconnect.addListener(() => (open = false));
    const send = (m: HostMessage) => {
      if (open) port.postMessage(m);
    };
    port.onMessage.addListener((raw: unknown) => {
      const req = parseHostRequest(raw);
      if (!req) return;
      handle(req, send).then(
        (data) => send({ id: req.id, ok: true, data }),
        (e: unknown) => send({ id: req.id, ok: false, error: e instanceof Error ? e.message : String(e) }),
      );
    });
  });
}
