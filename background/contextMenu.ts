/**
 * Context menu: "Search Reread for “%s”" on a selection, and "Find related pages" on a page, which uses
 * the page's own stored sections as the query (more-like-this) and leaves the page itself out.
 */
import browser from 'webextension-polyfill';
import { normalizeUrl } from '../src/url.js';
import { clipQuery } from '../src/query.js';
import type { Engine } from './engine.js';
import { relatedQuery } from './related.js';
import { searchPageUrl } from './tabs.js';

export const MENU_SELECTION = 'reread-selection';
export const MENU_RELATED = 'reread-related';
/** The most of a selection searched. */
const SELECTION_QUERY_CHARS = 500;

function createMenus(): void {
  browser.contextMenus.removeAll().then(() => {
    browser.contextMenus.create({ id: MENU_SELECTION, title: 'Search Reread for “%s”', contexts: ['selection'] });
    browser.contextMenus.create({ id: MENU_RELATED, title: 'Find related pages in Reread', contexts: ['page'] });
  }).catch((e: unknown) => console.warn('reread: context menu', e));
}

export function registerContextMenu(engine: Engine): void {
  if (!browser.contextMenus) return;
  browser.runtime.onInstalled.addListener(createMenus);
  browser.contextMenus.onClicked.addListener((info, tab) => {
    void (async () => {
      let url: string;
      if (info.menuItemId === MENU_SELECTION) {
        // A long selection is cut where a word ends: half a word is "corrected" to a word never selected.
        const q = clipQuery((info.selectionText ?? '').replace(/\s+/g, ' ').trim(), SELECTION_QUERY_CHARS);
        if (!q) return;
        url = searchPageUrl({ q });
      } else if (info.menuItemId === MENU_RELATED) {
        const page = normalizeUrl(info.pageUrl ?? tab?.url ?? '');
        if (!page) return;
        const q = (await relatedQuery(engine, page)) || tab?.title || '';
        url = searchPageUrl({ q, exclude: page });
      } else return;
      // Beside the tab it was asked from, which opened it; not when that tab is in a private window: the
      // extension's pages open in a normal window (no split mode), where that tab can be neither.
      const beside = tab && !tab.incognito ? { index: tab.index + 1, openerTabId: tab.id } : {};
      await browser.tabs.create({ url, ...beside });
    })().catch((e: unknown) => console.warn('reread: context menu look-up', e));
  });
}
