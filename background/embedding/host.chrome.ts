/** Chrome's service worker: the model runs in the offscreen document (see offscreenHost.ts, host.ts). */
export { offscreenHost as embedderHost } from './offscreenHost.js';
