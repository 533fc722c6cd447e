/** Runs transformers.js in the extension itself (the service worker on Chrome, the event page on Firefox). */
import browser from 'webextension-polyfill';
import type { EmbedderHost } from '../dense.js';
import { createTransformersEmbedder } from './transformersEmbedder.js';

export const inProcessHost: EmbedderHost = {
  load: (model, settings) =>
    createTransformersEmbedder(model, {
      localModelPath: browser.runtime.getURL('models/'),
      allowRemote: settings.allowModelDownload,
      wasmPaths: browser.runtime.getURL('wasm/'),
      // The Cache API refuses extension URLs; downloaded models are cached under their hub URLs.
      useBrowserCache: !model.bundled,
    }),
  keepAlive: () => {
    // Any extension API call resets the MV3 worker's idle timer while the backlog is drained.
    void browser.runtime.getPlatformInfo().catch(() => undefined);
  },
};
