/** Chrome's service worker: pages are read in the offscreen document (see offscreenReader.ts, host.ts). */
export { offscreenReader as pageReader } from './offscreenReader.js';
