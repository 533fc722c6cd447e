/**
 * Keyboard selection as answers change (review, session 33): SearchView rendered in Node, the worker's answers mocked.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { h, render } from 'preact';
import { byTestId, fire, installDom, typeInto, type Dom } from './surfaceDom.js';

type Handler = (payload: unknown) => unknown;
const handlers = new Map<string, Handler>();
const opened: { url: string; newTab: boolean }[] = [];

vi.mock('../../popup/api.js', () => {
  class ApiError extends Error {
    constructor(
      readonly code: string,
      message: string,
    ) {
      super(message);
    }
  }
  return {
    ApiError,
    call: async (type: string, payload: unknown) => {
      const h = handlers.get(type);
      if (!h) throw new ApiError('unknown-type', `no mock for ${type}`);
      return h(payload);
    },
  };
});

vi.mock('../../popup/fitPopup.js', () => ({ fitPopupToFrame: () => () => undefined }));

vi.mock('webextension-polyfill', () => {
  const ev = { addListener: () => undefined, removeListener: () => undefined };
  return {
    default: {
      runtime: { getManifest: () => ({}), id: 'x', getURL: (p: string) => `chrome-extension://x/${p}` },
      permissions: { onAdded: ev, onRemoved: ev, request: async () => false, remove: async () => true, contains: async () => false },
      tabs: { create: async () => undefined, query: async () => [], getCurrent: async () => ({ id: 1 }) },
    },
  };
});

function result(n: number) {
  return {
    chunkId: n,
    section: `S${n}`,
    headingPath: [`S${n}`],
    href: `https://example.com/p${n}#s`,
    snippet: [{ text: `snippet ${n}`, match: false }],
    whyMatched: ['word'],
    lanes: { lexical: n },
    score: 1 / n,
    url: `https://example.com/p${n}`,
    title: `Page ${n}`,
    site: 'example.com',
    lastVisit: Date.now() - 1000,
    visitCount: 1,
    more: [],
  };
}
const parsed = { text: 'word', terms: ['word'], phrases: [], sites: [], excludeSites: [], excluded: [] };
function response(n: number, extra: Record<string, unknown> = {}) {
  return { results: Array.from({ length: n }, (_, i) => result(i + 1)), parsed, tookMs: 5, lanesUsed: { lexical: true, dense: false }, ...extra };
}

let dom: Dom;
async function mount(): Promise<HTMLInputElement> {
  dom = installDom();
  handlers.set('stats', () => ({ pages: 12, chunks: 40, sites: 3, pendingEmbeddings: 0, bytesUsed: 1000 }));
  handlers.set('sites', () => [{ site: 'example.com', pages: 12 }]);
  handlers.set('forget/pending', () => []);
  handlers.set('open', (p) => {
    opened.push(p as { url: string; newTab: boolean });
    return undefined;
  });
  vi.resetModules();
  const { SearchView } = await import('../../popup/components/SearchView.js');
  render(h(SearchView, { mode: 'page', initialQuery: '' }), dom.document.getElementById('app')!);
  await dom.settle();
  return byTestId(dom.document, 'search-input') as HTMLInputElement;
}

const key = (el: Element, k: string, init: Record<string, unknown> = {}) => fire(el, 'keydown', { key: k, ...init });

afterEach(() => {
  handlers.clear();
  opened.length = 0;
});

describe('keyboard selection across the two answers of one search', () => {
  it('Enter opens a result after the hybrid answer arrives with fewer rows than the row selected', async () => {
    let releaseHybrid!: () => void;
    handlers.set('search', (p) => {
      const req = p as { awaitDense?: boolean };
      if (!req.awaitDense) return response(5, { denseLoading: true });
      return new Promise((r) => {
        releaseHybrid = () => r(response(2, { lanesUsed: { lexical: true, dense: true } }));
      });
    });
    const input = await mount();
    typeInto(input, 'word');
    await dom.settle();
    expect(dom.document.querySelectorAll('[data-testid="result"]').length).toBe(5);
    // The user moves to the 4th row while the meaning lane loads.
    for (let i = 0; i < 3; i++) {
      key(input, 'ArrowDown');
      await dom.settle(20);
    }
    expect(input.getAttribute('aria-activedescendant')).toBe('option-3');
    releaseHybrid();
    await dom.settle();
    expect(dom.document.querySelectorAll('[data-testid="result"]').length).toBe(2);
    // Some row is highlighted, and the active descendant names an option that exists.
    expect.soft(dom.document.querySelectorAll('.is-active').length).toBe(1);
    const active = input.getAttribute('aria-activedescendant');
    expect.soft(active && dom.document.getElementById(active), `aria-activedescendant=${active}`).toBeTruthy();
    key(input, 'Enter');
    await dom.settle();
    expect.soft(opened.length).toBe(1);
  });
});

describe('Enter on a "more" row and Ctrl+Enter (holds)', () => {
  it('ArrowDown to a more row, Ctrl+Enter opens that section in a new tab', async () => {
    const r1 = { ...result(1), more: [{ ...result(1), chunkId: 11, href: 'https://example.com/p1#more', headingPath: ['More'], section: 'More' }] };
    handlers.set('search', () => ({ ...response(2), results: [r1, result(2)] }));
    const input = await mount();
    typeInto(input, 'word');
    await dom.settle();
    key(input, 'ArrowDown');
    await dom.settle(20);
    key(input, 'Enter', { ctrlKey: true });
    await dom.settle();
    expect(opened).toEqual([{ url: 'https://example.com/p1#more', newTab: true }]);
  });
});

describe('the popup: "Forget this page" while its result is on screen', () => {
  it('the forgotten page is no longer offered (Enter does not open it)', async () => {
    dom = installDom();
    (globalThis as Record<string, unknown>).ResizeObserver = class {
      observe() {}
      unobserve() {}
      disconnect() {}
    };
    const tabUrl = 'https://example.com/p1';
    let forgotten = false;
    handlers.set('stats', () => ({ pages: 12, chunks: 40, sites: 3, pendingEmbeddings: 0, bytesUsed: 1000 }));
    handlers.set('sites', () => [{ site: 'example.com', pages: 12 }]);
    handlers.set('settings/get', () => ({ paused: false, excludedSites: [] }));
    handlers.set('dayone/status', () => ({ dismissed: true, historyPermission: false, history: { state: 'idle' }, backfill: { state: 'idle' }, titleOnly: 0, toRead: 0, pdfNotes: [] }));
    const pending = { id: 'f1', scope: { kind: 'page', url: tabUrl }, pages: 1, at: Date.now(), undoUntil: Date.now() + 30_000 };
    handlers.set('forget/pending', () => (forgotten ? [pending] : []));
    handlers.set('forget/preview', () => ({ pages: forgotten ? 0 : 1 }));
    handlers.set('forget', () => {
      forgotten = true;
      return pending;
    });
    handlers.set('search', () => (forgotten ? { ...response(1), results: [result(2)], forgets: [pending] } : response(2)));
    handlers.set('open', (p) => {
      opened.push(p as { url: string; newTab: boolean });
      return undefined;
    });
    vi.resetModules();
    const browser = (await import('webextension-polyfill')).default as unknown as { tabs: { query: () => Promise<unknown[]> } };
    browser.tabs.query = async () => [{ id: 7, url: tabUrl }];
    const { Popup } = await import('../../popup/components/Popup.js');
    render(h(Popup, {}), dom.document.getElementById('app')!);
    await dom.settle();
    const input = byTestId(dom.document, 'search-input') as HTMLInputElement;
    typeInto(input, 'word');
    await dom.settle();
    expect(dom.document.querySelectorAll('[data-testid="result"]').length).toBe(2);
    const forgetButton = byTestId(dom.document, 'forget-page');
    expect(forgetButton).toBeTruthy();
    fire(forgetButton!, 'click');
    await dom.settle(300);
    expect(byTestId(dom.document, 'undo-bar')).toBeTruthy();
    const titles = [...dom.document.querySelectorAll('[data-testid="result-title"]')].map((e) => e.textContent);
    expect(titles).not.toContain('Page 1');
  });
});
