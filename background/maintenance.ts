/**
 * Housekeeping that runs without the user: the retention policy (on a twice-daily alarm and after the
 * settings change), index maintenance (merges and sweeps, indexMaintenance.ts: it runs after writes and
 * at every worker start; an alarm wakes an idle worker to finish what a stop cut short), and following
 * the browser's history deletions when the user opted in.
 */
import browser from 'webextension-polyfill';
import { normalizeStoredUrl } from '../src/url.js';
import type { Engine } from './engine.js';
import { purgeOutbox, urlsMatcher } from './outbox.js';
import { flushIndexedDb } from './storageBudget.js';

const RETENTION_ALARM = 'reread-retention';
const INDEX_ALARM = 'reread-index';
/** Wakes a stopped worker when a forget's undo window closes, to purge its pages. */
const PURGE_ALARM = 'reread-forget-purge';

const estimate = async (): Promise<{ usage?: number; quota?: number } | undefined> => navigator.storage?.estimate?.().catch(() => undefined);
const usage = async (): Promise<number | undefined> => (await estimate())?.usage;

export function runRetention(engine: Engine): Promise<number> {
  return engine.enforceRetention(Date.now(), usage).catch((e: unknown) => {
    console.warn('reread: retention', e);
    return 0;
  });
}

/** Purges forgets whose undo window has closed (every maintenance pass, worker start and purge alarm). */
export function purgeForgotten(engine: Engine): Promise<number> {
  return engine.forget.purgeDue().catch((e: unknown) => {
    console.warn('reread: purge', e);
    return 0;
  });
}

/** Addresses as the pages are stored under them, each once (what is no page's address is left out). */
const storedUrls = (urls: readonly string[]): string[] => [...new Set(urls.map((u) => normalizeStoredUrl(u)).filter((u): u is string => !!u))];

/**
 * Forgets these pages now (no undo window: the browser's history deletion was the user's act). Their
 * captures still waiting in the outbox, hellos and recorded navigations go first, so that none of them
 * files a visit made before the deletion after it (a capture handed over as the page was left waits
 * there up to a minute for its hello, then for its navigation).
 */
export async function forgetUrls(engine: Engine, urls: readonly string[]): Promise<number> {
  const stored = storedUrls(urls);
  if (!stored.length) return 0;
  // A visit made before the deletion whose capture is still on its way (a PDF being read) is refused.
  await engine.forget.deletedFromHistory(stored);
  await purgeOutbox(urlsMatcher(stored));
  return engine.deleteUrls(stored);
}

/** What else a deletion of all history clears, as "forget everything" does (main.ts `forgetPending`). */
export interface HistoryFollowers {
  /** Captures waiting in the outbox, and a history import or backfill under way. */
  forgotAll(): Promise<void>;
  /** Pages deleted from history (URLs as the browser names them): a history import under way leaves them out. */
  forgotUrls(urls: readonly string[]): Promise<void>;
  /** The open tabs of these pages (URLs as stored), or every tab: their visits are forgotten too (background/tabs.ts). */
  tellTabs(urls: readonly string[] | 'all'): Promise<void>;
}

function onVisitRemoved(engine: Engine, followers: HistoryFollowers) {
  return (removed: { allHistory: boolean; urls?: string[] }) => {
    void (async () => {
      if (!(await engine.settings()).followHistoryDeletes) return;
      // As a forget in Reread does: an open tab of a deleted page does not save its visit again.
      if (removed.allHistory) {
        // As "forget everything" does: nothing pending, imported or being read comes back after it.
        // Every tab, a page not stored yet too: all of history is deleted.
        await followers.tellTabs('all');
        await followers.forgotAll();
        await engine.forget.deletedFromHistory('all');
        await engine.deleteAll();
      } else {
        await followers.tellTabs(storedUrls(removed.urls ?? []));
        // Before the delete: a window the import has read already would store them again after it.
        await followers.forgotUrls(storedUrls(removed.urls ?? []));
        await forgetUrls(engine, removed.urls ?? []);
      }
    })().catch((e: unknown) => console.warn('reread: following a history deletion', e));
  };
}

let historyListener: ReturnType<typeof onVisitRemoved> | null = null;

/** The history API exists only once the optional permission is granted. */
function listenToHistory(engine: Engine, followers: HistoryFollowers): void {
  if (historyListener || !browser.history?.onVisitRemoved) return;
  historyListener = onVisitRemoved(engine, followers);
  browser.history.onVisitRemoved.addListener(historyListener);
}

export function registerMaintenance(engine: Engine, followers: HistoryFollowers): void {
  // Captures keep headroom below the storage limit (Engine.keepHeadroomLocked).
  engine.storageEstimate = estimate;
  // At the storage limit, a forced log flush brings usage down (storageBudget.ts, measured in Chromium).
  engine.budget.flush = flushIndexedDb;
  browser.alarms?.onAlarm.addListener((alarm) => {
    if (alarm.name === RETENTION_ALARM) void purgeForgotten(engine).then(() => runRetention(engine));
    if (alarm.name === PURGE_ALARM) void purgeForgotten(engine);
    if (alarm.name === INDEX_ALARM) engine.maintenance.schedule(0);
  });
  engine.forget.onPurgeDue = (when) => void browser.alarms?.create(PURGE_ALARM, { when: when + 1000 }).catch(() => undefined);
  void purgeForgotten(engine);
  void browser.alarms?.get(RETENTION_ALARM).then((a) => {
    if (!a) void browser.alarms.create(RETENTION_ALARM, { periodInMinutes: 12 * 60, delayInMinutes: 1 });
  });
  void browser.alarms?.get(INDEX_ALARM).then((a) => {
    if (!a) void browser.alarms.create(INDEX_ALARM, { periodInMinutes: 30, delayInMinutes: 5 });
  });
  listenToHistory(engine, followers);
  browser.permissions?.onAdded.addListener(() => listenToHistory(engine, followers));
}
