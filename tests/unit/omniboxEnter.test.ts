/**
 * the `rr` omnibox keyword through its real listeners (background/omnibox.ts), the browser
 * and the engine faked. What the e2e tests cannot provoke: a tab API that refuses, and a date filter the
 * query parser cannot read.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

type Listener = (...args: never[]) => unknown;
const listeners: Record<string, Listener[]> = {};
const event = (name: string) => ({ addListener: (l: Listener) => (listeners[name] ??= []).push(l) });
const defaultLines: string[] = [];
const created: { url: string; active?: boolean }[] = [];
const updated: { id: number; url?: string }[] = [];
let updateFails = false;
let origin = 'chrome-extension://abc/';

vi.mock('webextension-polyfill', () => ({
  default: {
    runtime: { id: 'abc', getURL: (p: string) => origin + p },
    omnibox: {
      setDefaultSuggestion: (s: { description: string }) => void defaultLines.push(s.description),
      onInputStarted: event('started'),
      onInputCancelled: event('cancelled'),
      onInputChanged: event('changed'),
      onInputEntered: event('entered'),
    },
    tabs: {
      query: async (q: { active?: boolean }) => (q.active ? [{ id: 5, url: 'https://example.com/here', incognito: false, windowId: 1 }] : []),
      update: async (id: number, props: { url?: string }) => {
        // Chrome while a tab is dragged: "Tabs cannot be edited right now (user may be dragging a tab)."
        if (updateFails) throw new Error('Tabs cannot be edited right now (user may be dragging a tab).');
        updated.push({ id, url: props.url });
        return { id };
      },
      create: async (props: { url: string; active?: boolean }) => {
        created.push(props);
        return { id: 9 };
      },
    },
    windows: { update: async () => ({}) },
  },
}));

const { registerOmnibox } = await import('../../background/omnibox.js');
const { takeHandover } = await import('../../background/tabs.js');

const parsed = { text: '', phrases: [], excludeWords: [], excludePhrases: [], sites: [], excludeSites: [] };
const engine = {
  search: vi.fn(async () => ({ results: [], parsed, tookMs: 1, lanesUsed: { lexical: true, dense: false } })),
  pages: { get: async () => undefined, isHidden: () => false },
};
registerOmnibox(engine as never);

const fire = (name: string, ...args: unknown[]) => {
  for (const l of listeners[name] ?? []) (l as (...a: unknown[]) => unknown)(...args);
};
const settle = () => new Promise((r) => setTimeout(r, 20));

let unhandled: unknown[] = [];
const onUnhandled = (e: unknown) => void unhandled.push(e);
beforeEach(() => {
  unhandled = [];
  process.on('unhandledRejection', onUnhandled);
  defaultLines.length = created.length = updated.length = 0;
  updateFails = false;
  origin = 'chrome-extension://abc/';
});
afterEach(() => {
  process.off('unhandledRejection', onUnhandled);
});

describe('omnibox Enter', () => {
  it('a tab that cannot be changed (a tab being dragged) leaves no rejected promise unhandled, and the results page still opens', async () => {
    updateFails = true;
    fire('started');
    fire('changed', 'sourdough', () => undefined);
    await settle();
    fire('entered', 'sourdough', 'currentTab');
    await settle();
    await settle();
    expect(unhandled).toEqual([]);
    // The search was asked for: it opens somewhere (a new tab when the current one refuses).
    const opened = [...created.map((c) => c.url), ...updated.map((u) => u.url)].filter((u) => u?.startsWith('chrome-extension://abc/search.html#handover='));
    expect(opened.length).toBe(1);
    expect(takeHandover(opened[0]!.split('handover=')[1]!)).toEqual({ q: 'sourdough' });
  });
});

describe('omnibox filter syntax', () => {
  it('a date filter the parser cannot read is said on the line above the suggestions, as the popup says it', async () => {
    fire('started');
    // The popup and the results page say: “after:lastweekish” names no day Reread can read; it was searched as words.
    fire('changed', 'sourdough after:lastweekish', () => undefined);
    await settle();
    expect(defaultLines.some((l) => l.includes('after:lastweekish'))).toBe(true);
  });
});
