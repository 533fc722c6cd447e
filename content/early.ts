/**
 * The first content script, run at document_start and kept tiny (no polyfill, no extraction code): it
 * checks the capture gate and asks the background for this page's outbox ticket (src/outbox.ts) while
 * the page is still loading, so that a page left after a fraction of a second (while the worker was
 * stopped and had to start again) still has its ticket. The main content script (content/main.ts, run
 * when the page is idle, in the same isolated world) picks both answers up from `globalThis`.
 */
import { CAPTURE_GATE_KEY, gateAllows, isCaptureGate } from '../src/captureGate.js';
import { EARLY_KEY, startEarly, type EarlyApi } from './earlyStart.js';

interface Api extends EarlyApi {
  extension?: { inIncognitoContext?: boolean };
}

const g = globalThis as { browser?: Api; chrome?: Api; [EARLY_KEY]?: unknown };
const api = g.browser ?? g.chrome;

if (api && window.top === window && /^https?:$/.test(location.protocol) && !api.extension?.inIncognitoContext) {
  const begin = () => {
    g[EARLY_KEY] = startEarly(api, async () => {
      const got = await api.storage.local.get(CAPTURE_GATE_KEY);
      const gate: unknown = got[CAPTURE_GATE_KEY];
      return isCaptureGate(gate) ? gateAllows(gate, location.href) : null;
    });
  };
  // A prerendered page is not a visit until it is shown.
  if ((document as Document & { prerendering?: boolean }).prerendering) document.addEventListener('prerenderingchange', begin, { once: true });
  else begin();
}
