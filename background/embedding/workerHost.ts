/** Runs transformers.js in the extension itself (Firefox's background page; a benchmark variant on Chrome). */
import browser from 'webextension-polyfill';
import type { EmbedderHost } from '../dense.js';
import { createTransformersEmbedder, type LoadedEmbedder } from './transformersEmbedder.js';

const held = new Map<string, Promise<LoadedEmbedder>>();

export const inProcessHost: EmbedderHost = {
  load: (model, settings, onProgress) => {
    const e = createTransformersEmbedder(model, {
      localModelPath: browser.runtime.getURL('models/'),
      allowRemote: settings.allowModelDownload,
      remoteHost: settings.modelMirror,
      wasmPaths: browser.runtime.getURL('wasm/'),
      // The Cache API refuses extension URLs; downloaded models are cached under their hub URLs.
      useBrowserCache: !model.bundled,
      ...(onProgress ? { onProgress } : {}),
    });
    held.set(model.id, e);
    return e;
  },
  async unload(modelId) {
    const e = held.get(modelId);
    held.delete(modelId);
    await (await e?.catch(() => null))?.dispose();
  },
  keepAlive: () => {
    // Any extension API call resets the MV3 worker's idle timer while the backlog is drained.
    void browser.runtime.getPlatformInfo().catch(() => undefined);
  },
};
