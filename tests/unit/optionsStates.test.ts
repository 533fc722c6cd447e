/**
 * The options page rendered in Node (tests/unit/surfaceDom.ts), the worker's answers mocked: what it says when
 * the worker cannot answer or refuses a change, and where focus goes (review, session 33: each failed before its fix).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { byTestId, click, fire, installDom, typeInto, type Dom } from './surfaceDom.js';
import { DEFAULT_SETTINGS } from '../../src/settings.js';

type Handler = (payload: unknown) => unknown;
const handlers = new Map<string, Handler>();

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

vi.mock('webextension-polyfill', () => {
  const ev = { addListener: () => undefined, removeListener: () => undefined };
  return {
    default: {
      runtime: { getManifest: () => ({}), id: 'x' },
      permissions: { onAdded: ev, onRemoved: ev, request: async () => false, remove: async () => true, contains: async () => false },
      extension: { isAllowedFileSchemeAccess: async () => false },
      tabs: { create: async () => undefined, query: async () => [], getCurrent: async () => undefined },
    },
  };
});

const stats = { pages: 12, chunks: 40, sites: 3, pendingEmbeddings: 0, bytesUsed: 1000 };
const dayone = {
  historyPermission: false,
  dismissed: false,
  history: { state: 'idle', days: 90, from: 0, cursor: 0, startedAt: 0, imported: 0, seen: 0 },
  backfill: { state: 'idle', total: 0, done: 0, stored: 0, skipped: 0, reasons: {}, dailyCap: 500, day: '', today: 0, startedAt: 0 },
  titleOnly: 0,
  fromHistory: 0,
  toRead: 0,
  pdfNotes: [] as unknown[],
};

function baseHandlers(): void {
  handlers.clear();
  handlers.set('settings/get', () => ({ ...DEFAULT_SETTINGS }));
  handlers.set('stats', () => stats);
  handlers.set('sites', () => [{ site: 'example.com', pages: 12 }]);
  handlers.set('forget/pending', () => []);
  handlers.set('dayone/status', () => dayone);
  handlers.set('model/status', () => ({ active: 'reread/glove-100d', download: null, cached: [], pending: 0, chunks: 40 }));
}

let dom: Dom;
async function openOptions(): Promise<Dom> {
  dom = installDom();
  vi.resetModules();
  await import('../../popup/options.js');
  await dom.settle();
  return dom;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('options: an error from the worker', () => {
  it('when the settings cannot be read at open, the page says so (not "Loading…" for ever) and offers a next step', async () => {
    baseHandlers();
    handlers.set('settings/get', () => {
      throw new Error('Reread’s background is not answering. Try again in a moment.');
    });
    const { document, settle } = await openOptions();
    // The worker answers again a moment later (it had been stopped, and is woken by the next message).
    baseHandlers();
    await settle(3000);
    const text = (document.getElementById('app')!.textContent ?? '').trim();
    // Either the page loaded once the worker answered, or the error is on screen with a way on (a button):
    // never a bare "Loading…" with the error kept out of sight and nothing asked again.
    const loaded = !!byTestId(document, 'pause');
    const said = /not answering/i.test(text) && !!document.querySelector('#app button');
    expect(text.slice(0, 40)).not.toBe('Loading…');
    expect(loaded || said).toBe(true);
  });

  it('"Apply…" new limits that the worker refuses to store does not say "Applied"', async () => {
    baseHandlers();
    handlers.set('retention/preview', () => ({ pages: 5, byAge: 5, byStorage: 0, cutoff: Date.now() - 10 * 86_400_000 }));
    const { document, settle } = await openOptions();
    handlers.set('settings/set', () => {
      throw new Error('The browser ran out of storage for Reread.');
    });
    typeInto(byTestId(document, 'retention-days') as HTMLInputElement, '10');
    await settle();
    fire(document.querySelector('form.retention')!, 'submit');
    await settle();
    const ok = byTestId(document, 'confirm-ok');
    expect(ok, 'the confirmation opens').toBeTruthy();
    click(ok!);
    await settle();
    const message = byTestId(document, 'options-message')!.textContent ?? '';
    // The user is told the limits were applied and pages forgotten, though nothing was stored.
    expect(message).not.toMatch(/^Applied/);
    expect(message).toMatch(/ran out of storage/);
  });

  it('adding a site never to save that the worker refuses to store does not say it "will not be saved"', async () => {
    baseHandlers();
    handlers.set('forget/preview', () => ({ pages: 0, sites: 0 }));
    const { document, settle } = await openOptions();
    handlers.set('settings/set', () => {
      throw new Error('The browser ran out of storage for Reread.');
    });
    typeInto(byTestId(document, 'exclude-input') as HTMLInputElement, 'bank.example');
    await settle();
    fire(document.querySelector('form[aria-labelledby="h-never"]')!, 'submit');
    await settle();
    const message = byTestId(document, 'options-message')!.textContent ?? '';
    expect(message).not.toMatch(/will not be saved from now on/);
  });
});

describe('options: focus after an action that removes the control that had it', () => {
  const focusIsOnPage = (d: Document) => d.activeElement === d.body;

  it('removing a downloaded model: once it is gone, focus is not on the page body', async () => {
    baseHandlers();
    let cached = ['Xenova/all-MiniLM-L6-v2'];
    handlers.set('model/status', () => ({ active: 'reread/glove-100d', download: null, cached, pending: 0, chunks: 40 }));
    handlers.set('model/remove', () => {
      cached = [];
      return { files: 3, model: 'reread/glove-100d' };
    });
    const { document, settle } = await openOptions();
    click(byTestId(document, 'model-remove')!);
    await settle();
    click(byTestId(document, 'confirm-model-ok')!);
    await settle();
    expect(byTestId(document, 'model-remove')).toBeNull();
    expect(document.activeElement?.tagName).not.toBe('BODY');
    expect(focusIsOnPage(document)).toBe(false);
  });

  it('"Clear these notes" (PDFs): focus is not dropped on the page body', async () => {
    baseHandlers();
    const withNotes = { ...dayone, pdfNotes: [{ url: 'https://example.com/a.pdf', title: 'A report', at: Date.now(), problem: 'encrypted' }] };
    handlers.set('dayone/status', () => withNotes);
    handlers.set('pdf/notes-clear', () => ({ ...dayone, pdfNotes: [] }));
    const { document, settle } = await openOptions();
    click(byTestId(document, 'pdf-notes-clear')!);
    await settle();
    // Clearing is asked first (a destructive action confirms); Cancel keeps the notes.
    click(byTestId(document, 'confirm-pdf-notes-cancel')!);
    await settle();
    expect(byTestId(document, 'pdf-notes-clear')).not.toBeNull();
    click(byTestId(document, 'pdf-notes-clear')!);
    await settle();
    click(byTestId(document, 'confirm-pdf-notes-ok')!);
    await settle();
    expect(byTestId(document, 'pdf-notes-clear')).toBeNull();
    expect(focusIsOnPage(document)).toBe(false);
  });

  it('"Stop" on the history import: focus is not dropped on the page body', async () => {
    baseHandlers();
    let state = 'running';
    handlers.set('dayone/status', () => ({ ...dayone, historyPermission: true, history: { ...dayone.history, state, imported: state === 'running' ? 40 : 40, startedAt: Date.now(), cursor: Date.now() - 86_400_000, from: Date.now() - 90 * 86_400_000 } }));
    handlers.set('history/stop', () => {
      state = 'stopped';
      return { ...dayone, historyPermission: true, history: { ...dayone.history, state: 'stopped', imported: 40 } };
    });
    const { document, settle } = await openOptions();
    click(byTestId(document, 'dayone-import-stop')!);
    await settle();
    expect(byTestId(document, 'dayone-import-stop')).toBeNull();
    expect(focusIsOnPage(document)).toBe(false);
  });
});
