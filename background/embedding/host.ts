/**
 * The embedding host the worker uses. This file is the in-process one (Firefox's background page,
 * Node); scripts/build.mjs resolves this module to host.chrome.ts for Chrome's service worker, so the
 * ONNX runtime is not in that bundle (it runs in the offscreen document instead).
 */
export { inProcessHost as embedderHost } from './workerHost.js';
