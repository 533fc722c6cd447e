/** Tabs: opening results (switch to a tab that already shows the page, else open it where the user asked), and telling tabs a page was forgotten. */
import browser from 'webextension-polyfill';
import { normalizeStoredUrl } from '../src/url.js';
import type { PageForgottenNotice } from '../src/protocol.js';

export type Disposition = 'currentTab' | 'newForegroundTab' | 'newBackgroundTab';

export async function openUrl(href: string, disposition: Disposition): Promise<number | null> {
  const target = normalizeStoredUrl(href);
  if (target) {
    // Tab URLs are visible to us on pages our content script runs on (its host access).
    const tabs = await browser.tabs.query({}).catch(() => []);
    const open = tabs.find((t) => t.url && !t.incognito && normalizeStoredUrl(t.url) === target);
    if (open?.id !== undefined) {
      // Same page: update only when the fragment differs, so the page jumps without a reload.
      if (open.url !== href) await browser.tabs.update(open.id, { url: href, active: true });
      else await browser.tabs.update(open.id, { active: true });
      if (open.windowId !== undefined) await browser.windows.update(open.windowId, { focused: true }).catch(() => undefined);
      return open.id;
    }
  }
  if (disposition === 'currentTab') {
    const [active] = await browser.tabs.query({ active: true, currentWindow: true });
    // A tab that cannot be changed now (one being dragged; a private window's tab and an extension page):
    // the page opens in a new tab instead.
    if (active?.id !== undefined && (await browser.tabs.update(active.id, { url: href }).then(() => true, () => false))) return active.id;
  }
  const tab = await browser.tabs.create({ url: href, active: disposition !== 'newBackgroundTab' });
  return tab.id ?? null;
}

/** How long a forget waits for the tabs to take its notice (a tab that hangs must not hold the forget up). */
const NOTICE_WAIT_MS = 1000;

/**
 * Tells the content script of every tab showing one of these pages (URLs as stored), or a page `alsoIf`
 * covers (a forget's scope: a page of the site, or any, that is not stored yet), or every tab (`'all'`),
 * that its visit was forgotten by `forget` (a mark's id, or HISTORY_FORGET), or that this forget was undone:
 * a tab told so does not save this visit again while any forget that covered it stands (content/main.ts).
 * A forget waits for it before it marks the pages, so a capture a tab was about to send is not sent; a tab
 * without Reread's content script (a PDF, a page opened before the install) ignores it.
 */
export async function tellTabsForgotten(pages: readonly string[] | 'all', forgotten: boolean, forget: string, alsoIf?: (url: string, at: number) => boolean): Promise<void> {
  if (pages !== 'all' && !pages.length && !alsoIf) return;
  const listed = new Set(pages === 'all' ? [] : pages);
  const now = Date.now();
  const tabs = await browser.tabs.query({}).catch(() => []);
  const told = tabs.flatMap((t) => {
    const url = t.id !== undefined && !t.incognito && t.url ? normalizeStoredUrl(t.url) : null;
    if (!url || !(pages === 'all' || listed.has(url) || alsoIf?.(url, now))) return [];
    const notice: PageForgottenNotice = { type: 'page/forgotten', url, forgotten, forget };
    return [browser.tabs.sendMessage(t.id!, notice).catch(() => undefined)];
  });
  await Promise.race([Promise.all(told), new Promise((r) => setTimeout(r, NOTICE_WAIT_MS))]);
}

/** Results-page parameters waiting for the tab opened for them, by one-time token. */
const handovers = new Map<string, Record<string, string>>();

/**
 * The results page for these parameters. They travel in memory, not in the URL the tab is opened
 * with: Chromium keeps that URL in its history (synced to the user's account, offered back as
 * address-bar suggestions), and what someone searches their private index for belongs in neither.
 * The page trades the one-time token for the parameters (a token in history means nothing).
 */
export function searchPageUrl(params: Record<string, string | undefined>): string {
  const clean: Record<string, string> = {};
  for (const [k, v] of Object.entries(params)) if (v) clean[k] = v;
  const token = crypto.randomUUID();
  handovers.set(token, clean);
  setTimeout(() => handovers.delete(token), 60_000);
  return `${browser.runtime.getURL('search.html')}#handover=${token}`;
}

export function takeHandover(token: string): Record<string, string> | null {
  const params = handovers.get(token) ?? null;
  handovers.delete(token);
  return params;
}
