/**
 * Chrome's one offscreen document (an extension has at most one): it runs the embedding model
 * (embedding/offscreenServer.ts) and reads pages away from tabs (reader/offscreenServer.ts: DOMParser
 * for the backfill, pdf.js with its worker for PDFs). It is created with every reason it serves, by
 * whichever user comes first, and closed after IDLE_MINUTES unused (an alarm, since the worker itself
 * may be stopped by then) unless a request is still in flight. Built into the Chrome worker only.
 */
import { OFFSCREEN_PAGE } from './embedding/hostProtocol.js';

export const IDLE_MINUTES = 3;
const IDLE_ALARM = 'reread-offscreen-idle';

let creating: Promise<void> | null = null;
let lastAlarmReset = 0;
const inUse: (() => boolean)[] = [];

/** Timings of the last document creation, for the benchmark. */
export const offscreenDocumentTimings = { createMs: 0 };

async function documentExists(): Promise<boolean> {
  const url = chrome.runtime.getURL(OFFSCREEN_PAGE);
  const contexts = await chrome.runtime.getContexts({ contextTypes: [chrome.runtime.ContextType.OFFSCREEN_DOCUMENT], documentUrls: [url] });
  return contexts.length > 0;
}

export async function ensureOffscreenDocument(): Promise<void> {
  if (await documentExists()) return;
  creating ??= (async () => {
    const t = performance.now();
    try {
      await chrome.offscreen.createDocument({
        url: OFFSCREEN_PAGE,
        reasons: [chrome.offscreen.Reason.WORKERS, chrome.offscreen.Reason.DOM_PARSER],
        justification:
          'Runs the on-device embedding model (ONNX in WebAssembly) so it stays loaded across service-worker restarts, and reads pages the user asked Reread to index (DOMParser) and PDFs (pdf.js in a worker).',
      });
    } catch (e) {
      // Another creation (an earlier worker's) may have won the race: fine if the document is there now.
      if (!(await documentExists())) throw e;
    }
    offscreenDocumentTimings.createMs = performance.now() - t;
  })().finally(() => {
    creating = null;
  });
  await creating;
}

/** A user of the document says whether it has requests in flight (the idle close waits for them). */
export function registerOffscreenUse(busy: () => boolean): void {
  inUse.push(busy);
}

/** Re-arms the idle alarm (at most every 20 s: an alarm write per request is wasted work). */
export function touchOffscreenDocument(): void {
  const now = Date.now();
  if (now - lastAlarmReset < 20_000) return;
  lastAlarmReset = now;
  void chrome.alarms.create(IDLE_ALARM, { delayInMinutes: IDLE_MINUTES }).catch(() => undefined);
}

// Registered at the top level (this module is imported by the worker's entry): an alarm that wakes
// the worker finds its listener.
chrome.alarms.onAlarm.addListener((alarm) => {
  if (alarm.name !== IDLE_ALARM) return;
  if (inUse.some((busy) => busy())) {
    lastAlarmReset = 0;
    touchOffscreenDocument();
    return;
  }
  void chrome.offscreen.closeDocument().catch(() => undefined);
});
