/**
 * "Search Reread for “%s”" (background/contextMenu.ts) through its real listener, the browser
 * faked. A selection in an incognito window: Chrome runs an extension allowed there in spanning mode (the
 * manifest asks for no split mode), where an extension page cannot be opened in the incognito window; it
 * opens in a normal window, so the incognito tab can be neither its opener nor its place. And a tab API
 * that refuses must leave no rejected promise unhandled.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

type Listener = (...args: never[]) => unknown;
const listeners: Record<string, Listener[]> = {};
const event = (name: string) => ({ addListener: (l: Listener) => (listeners[name] ??= []).push(l) });
const created: { url: string; index?: number; openerTabId?: number; windowId?: number }[] = [];
let createFails = false;

vi.mock('webextension-polyfill', () => ({
  default: {
    runtime: { id: 'abc', getURL: (p: string) => `chrome-extension://abc/${p}`, onInstalled: event('installed') },
    contextMenus: { onClicked: event('clicked'), removeAll: async () => undefined, create: () => undefined },
    tabs: {
      create: async (props: { url: string; index?: number; openerTabId?: number }) => {
        if (createFails) throw new Error('Tab opener must be in the same window as the updated tab.');
        created.push(props);
        return { id: 9 };
      },
    },
  },
}));

const { registerContextMenu, MENU_SELECTION } = await import('../../background/contextMenu.js');
const { takeHandover } = await import('../../background/tabs.js');
registerContextMenu({} as never);

const click = (info: Record<string, unknown>, tab?: Record<string, unknown>) => {
  for (const l of listeners.clicked ?? []) (l as (...a: unknown[]) => unknown)(info, tab);
};
const settle = () => new Promise((r) => setTimeout(r, 20));

let unhandled: unknown[] = [];
const onUnhandled = (e: unknown) => void unhandled.push(e);
beforeEach(() => {
  unhandled = [];
  created.length = 0;
  createFails = false;
  process.on('unhandledRejection', onUnhandled);
});
afterEach(() => {
  process.off('unhandledRejection', onUnhandled);
});

const incognitoTab = { id: 41, index: 3, windowId: 7, incognito: true, url: 'https://private.example/secret', title: 'Secret' };

describe('context menu look-up', () => {
  it('a selection in an incognito window opens the results page without naming the incognito tab as its opener or place', async () => {
    click({ menuItemId: MENU_SELECTION, selectionText: 'sourdough starter', pageUrl: incognitoTab.url }, incognitoTab);
    await settle();
    expect(created.length).toBe(1);
    expect(created[0]!.openerTabId).not.toBe(incognitoTab.id);
    // The tab's index is a place in the incognito window, not in the window the page opens in.
    expect(created[0]!.index).toBeUndefined();
    expect(takeHandover(created[0]!.url.split('handover=')[1]!)).toEqual({ q: 'sourdough starter' });
  });

  it('a tab the browser refuses to open leaves no rejected promise unhandled', async () => {
    createFails = true;
    click({ menuItemId: MENU_SELECTION, selectionText: 'sourdough', pageUrl: 'https://example.com/' }, { id: 4, index: 0, windowId: 1, incognito: false });
    await settle();
    expect(unhandled).toEqual([]);
  });
});
