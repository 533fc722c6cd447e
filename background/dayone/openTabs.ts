/**
 * Tabs that were open before Reread could see them: at install and update (the manifest's content
 * scripts run only in documents loaded after that) and when capture is resumed (pages loaded while
 * paused were not read). The content script is injected into each normal http(s) tab capture rules
 * allow (`scripting` + host access); a tab still loading or discarded gets it once it has loaded.
 * Idempotent: a second copy in a document hands over to the first (content/main.ts), and the engine
 * stores unchanged content once.
 */
import browser from 'webextension-polyfill';
import { gateAllows } from '../../src/captureGate.js';
import { planTabs } from '../../src/openTabs.js';
import type { Engine } from '../engine.js';

const PENDING_KEY = 'reread-tabs-pending';

/** Tabs waiting to finish loading before they get the script (kept in session storage across worker stops). */
let pending: Set<number> | null = null;

async function pendingTabs(): Promise<Set<number>> {
  if (pending) return pending;
  const got = await browser.storage.session?.get(PENDING_KEY).catch(() => ({}) as Record<string, unknown>);
  const ids = (got as Record<string, unknown> | undefined)?.[PENDING_KEY];
  pending = new Set(Array.isArray(ids) ? ids.filter((x): x is number => typeof x === 'number') : []);
  return pending;
}

async function savePending(): Promise<void> {
  if (pending) await browser.storage.session?.set({ [PENDING_KEY]: [...pending] }).catch(() => undefined);
}

async function inject(tabId: number): Promise<boolean> {
  try {
    await browser.scripting.executeScript({ target: { tabId }, files: ['content.js'] });
    return true;
  } catch {
    // Closed meanwhile, navigated to a page we may not script (the web store, an error page), or host
    // access withheld by the user: nothing to capture there.
    return false;
  }
}

export const openTabsLog = { injected: 0, deferred: 0, sweeps: 0 };

/** Captures every open tab capture rules allow (now, or once loaded). */
export async function captureOpenTabs(engine: Engine): Promise<{ injected: number; deferred: number }> {
  const s = await engine.settings();
  if (s.paused) return { injected: 0, deferred: 0 };
  openTabsLog.sweeps++;
  const tabs = await browser.tabs.query({}).catch(() => []);
  const gate = { paused: s.paused, excludedSites: s.excludedSites };
  const plan = planTabs(tabs, (url) => gateAllows(gate, url));
  const later = await pendingTabs();
  for (const id of plan.whenLoaded) later.add(id);
  await savePending();
  let injected = 0;
  for (const id of plan.now) if (await inject(id)) injected++;
  openTabsLog.injected += injected;
  openTabsLog.deferred += plan.whenLoaded.length;
  return { injected, deferred: plan.whenLoaded.length };
}

/** Registered at the top level: a deferred tab that finishes loading gets the script. */
export function registerOpenTabs(engine: Engine): void {
  browser.tabs.onUpdated.addListener((tabId, change, tab) => {
    if (change.status !== 'complete') return;
    void (async () => {
      const later = await pendingTabs();
      if (!later.delete(tabId)) return;
      await savePending();
      if (tab.incognito || !tab.url) return;
      const s = await engine.settings();
      if (gateAllows({ paused: s.paused, excludedSites: s.excludedSites }, tab.url)) await inject(tabId);
    })();
  });
  browser.tabs.onRemoved.addListener((tabId) => {
    void pendingTabs().then((later) => {
      if (later.delete(tabId)) void savePending();
    });
  });
  browser.runtime.onInstalled.addListener(() => void captureOpenTabs(engine).catch((e: unknown) => console.warn('reread: open tabs', e)));
}
