/**
 * The page reader the background uses. This file is the in-process one (Firefox's background page);
 * scripts/build.mjs resolves this module to host.chrome.ts for Chrome's service worker, which has no DOM:
 * there the offscreen document reads (and pdf.js stays out of the worker's bundle).
 */
export { inProcessReader as pageReader } from './inProcess.js';
