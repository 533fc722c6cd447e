/**
 * Review finding: a page deleted from the browser's history while a history import is writing the window
 * it already read comes back as a title-only entry (the follower tells the outbox, never the import).
 */
import { describe, expect, it, vi } from 'vitest';

type Listener = (removed: { allHistory: boolean; urls?: string[] }) => void;
const listeners: Listener[] = [];
type Search = (q: { text: string; startTime: number; endTime: number; maxResults: number }) => Promise<{ url?: string; title?: string; lastVisitTime?: number; visitCount?: number }[]>;
/** The browser's history as DayOne's import reads it (set by a test). */
let historySearch: Search = async () => [];
const area = () => {
  const data: Record<string, unknown> = {};
  return {
    get: async (k: string | null) => (k === null ? { ...data } : { [k]: data[k] }),
    set: async (o: Record<string, unknown>) => void Object.assign(data, o),
    remove: async (k: string | string[]) => void (Array.isArray(k) ? k : [k]).forEach((x) => delete data[x]),
  };
};
vi.mock('webextension-polyfill', () => ({
  default: {
    storage: { local: area(), session: area() },
    history: { onVisitRemoved: { addListener: (l: Listener) => listeners.push(l) }, search: (q: Parameters<Search>[0]) => historySearch(q) },
    alarms: { create: async () => undefined, get: async () => undefined, onAlarm: { addListener: () => undefined } },
  },
}));

const { registerMaintenance } = await import('../../background/maintenance.js');
const { HistoryImport } = await import('../../background/dayone/historyImport.js');
const { engineOn, freshDb, heldHistory } = await import('./helpers.js');

const NOW = Date.UTC(2026, 10, 30, 12);

describe('history follower and the history import', { timeout: 30_000 }, () => {
  it('a page deleted from history after the import read its window is not brought back by that window', async () => {
    const engine = engineOn(await freshDb());
    await engine.updateSettings({ followHistoryDeletes: true });
    // As main.ts wires it: a history deletion is told to the import under way (DayOne.forgotUrls).
    let imp: InstanceType<typeof HistoryImport> | null = null;
    registerMaintenance(engine, { forgotAll: async () => undefined, forgotUrls: async (urls) => imp?.forgotUrls(urls), tellTabs: async () => undefined });
    const secret = 'https://clinic.example/results/42';
    // The user read the page: it is stored.
    await engine.capture(secret, { title: 'My test results', lang: 'en', blocks: [{ kind: 'heading', text: 'Results', level: 1 }, { kind: 'text', text: 'Your test results are ready and every word here is private to you alone, read them now' }] }, NOW - 60_000);
    expect((await engine.pages.get(secret))?.url).toBe(secret);
    const items = Array.from({ length: 120 }, (_, i) => ({ url: `https://site${i}.example/p`, title: `Entry ${i}`, lastVisitTime: NOW - i * 1000 - 10, visitCount: 1 }));
    items.splice(100, 0, { url: secret, title: 'My test results', lastVisitTime: NOW - 60_000, visitCount: 1 });
    let deleted = false;
    let goneBeforeWrite = false;
    imp = new HistoryImport(
      engine,
      () => ({
        async search(q) {
          const got = items.filter((i) => i.lastVisitTime >= q.startTime && i.lastVisitTime < q.endTime).slice(0, q.maxResults);
          if (!deleted) {
            deleted = true;
            // The user deletes the page from the browser's history just after the import read this window.
            const i = items.findIndex((x) => x.url === secret);
            items.splice(i, 1);
            for (const l of listeners) l({ allHistory: false, urls: [secret] });
            for (let t = 0; t < 200 && (await (await engine.db()).get('pages', secret)); t++) await new Promise((r) => setTimeout(r, 5));
            goneBeforeWrite = !(await (await engine.db()).get('pages', secret));
          }
          return got;
        },
      }),
      () => NOW,
    );
    await imp.start(0);
    await imp.whenIdle();
    expect((await imp.status()).state).toBe('done');
    expect(goneBeforeWrite).toBe(true); // the follower did delete it
    // The follower deleted it; the import's window must not bring it back.
    expect(await (await engine.db()).get('pages', secret)).toBeUndefined();
    expect((await engine.search({ q: 'results' })).results.map((r) => r.href)).toEqual([]);
  });
});

const { PdfCapture, PDF_NOTES_KEY } = await import('../../background/dayone/pdfCapture.js');
const { cutSections } = await import('../../src/sections.js');

describe('forget and the PDF notes', { timeout: 30_000 }, () => {
  it('forgetting everything leaves no note naming a forgotten PDF (its address and title)', async () => {
    const engine = engineOn(await freshDb());
    const url = 'https://bank.example/statements/2026-03.pdf';
    const cut = await cutSections([{ kind: 'heading', level: 1, text: 'Statement March' }, { kind: 'text', text: 'Account balance and every transaction of the month listed here in full, with enough words to be kept.' }]);
    const pdf = new PdfCapture(engine, {
      readHtml: async () => ({ ok: false, reason: 'http-error', status: 404 }),
      // A long PDF read in part: stored, with a "capped" note.
      readPdf: async () => ({ ok: true, title: 'Bank statement March 2026', blocks: cut.blocks, sections: cut.sections, chunker: cut.chunker, words: 20, pages: 900, pagesRead: 300, bytes: 1000, ms: 5 }),
    });
    expect(await pdf.handle(7, url, false, true)).not.toBe('skipped');
    expect((await engine.pages.get(url))?.url).toBe(url);
    expect(JSON.stringify(await pdf.notes())).toContain('bank.example');
    const mark = await engine.forget.mark({ kind: 'all' }, Date.now());
    await engine.forget.purgeDue(mark.undoUntil);
    expect(await (await engine.db()).count('pages')).toBe(0);
    // Nothing of the forgotten PDF is left: Options lists these notes with their links and titles.
    expect(JSON.stringify((await (await engine.db()).get('meta', PDF_NOTES_KEY)) ?? [])).not.toContain('bank.example');
  });
});

/** A PDF whose read (pdf.js) waits for `release()`; `started` resolves once the read has begun. */
async function slowPdf(engine: ReturnType<typeof engineOn>, month: string) {
  const cut = await cutSections([{ kind: 'heading', level: 1, text: `Statement ${month}` }, { kind: 'text', text: 'Account balance and every transaction of the month listed here in full, with enough words to be kept.' }]);
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let reading!: () => void;
  const started = new Promise<void>((r) => (reading = r));
  const pdf = new PdfCapture(engine, {
    readHtml: async () => ({ ok: false, reason: 'http-error', status: 404 }),
    readPdf: async () => {
      reading();
      await gate;
      return { ok: true, title: `Bank statement ${month} 2026`, blocks: cut.blocks, sections: cut.sections, chunker: cut.chunker, words: 20, pages: 300, pagesRead: 300, bytes: 1000, ms: 5 };
    },
  });
  return { pdf, started, release };
}

describe('forget and a PDF being read', { timeout: 30_000 }, () => {
  it('a PDF opened before "forget everything" and still being read when its undo window closes is not stored after it', async () => {
    const engine = engineOn(await freshDb());
    const url = 'https://bank.example/statements/2026-04.pdf';
    // A large PDF: pdf.js takes a while.
    const { pdf, started, release } = await slowPdf(engine, 'April');
    // The tab shows the PDF (Chrome's viewer sends page/pdf); the read starts.
    const handled = pdf.handle(9, url, false, true);
    await started;
    // The user forgets everything; the window closes while the PDF is still being read.
    const mark = await engine.forget.mark({ kind: 'all' }, Date.now() + 1);
    await engine.forget.purgeDue(mark.undoUntil);
    release();
    await handled;
    // The visit was made before the forget: nothing of it may be stored after it.
    expect(await (await engine.db()).get('pages', url)).toBeUndefined();
  });
});

const { forgetUrls } = await import('../../background/maintenance.js');

describe('history deletion and a PDF being read', { timeout: 30_000 }, () => {
  it('a PDF deleted from the browser\'s history while Reread reads it is not stored after the deletion', async () => {
    const engine = engineOn(await freshDb());
    const url = 'https://bank.example/statements/2026-05.pdf';
    const { pdf, started, release } = await slowPdf(engine, 'May');
    const handled = pdf.handle(11, url, false, true);
    await started;
    // The user deletes the PDF from the browser's history (followed: background/maintenance.ts forgetUrls).
    await forgetUrls(engine, [url]);
    release();
    await handled;
    expect(await (await engine.db()).get('pages', url)).toBeUndefined();
  });
});

const { DayOne } = await import('../../background/dayone/dayOne.js');

describe('a range forgotten while a history import runs', { timeout: 30_000 }, () => {
  it('a page the range forgot (a visit in it, its last visit after it) is not brought back by the import\'s later windows', async () => {
    const engine = engineOn(await freshDb());
    const now = Date.now();
    const jan5 = new Date(2026, 0, 5, 12).getTime();
    const jan20 = new Date(2026, 0, 20, 12).getTime();
    const secret = 'https://clinic.example/results/42';
    const text = { title: 'My test results', lang: 'en', blocks: [{ kind: 'heading' as const, text: 'Results', level: 1 }, { kind: 'text' as const, text: 'Your test results are ready and every word here is private to you alone, read them now' }] };
    // Read on 5 January and again on 20 January.
    await engine.capture(secret, text, jan5);
    await engine.capture(secret, text, jan20);
    const items = [
      ...Array.from({ length: 1000 }, (_, i) => ({ url: `https://site${i}.example/p`, title: `Entry ${i}`, lastVisitTime: now - 1000 - i, visitCount: 1 })),
      // The browser's history item: its last visit, 20 January.
      { url: secret, title: 'My test results', lastVisitTime: jan20, visitCount: 2 },
    ];
    const { source, held, release } = heldHistory(items, 2);
    historySearch = (q) => source.search(q);
    const dayOne = new DayOne(engine, { readHtml: async () => ({ ok: false, reason: 'http-error', status: 404 }), readPdf: async () => ({ ok: false, problem: 'unreachable' }) } as never);
    await dayOne.history.start(0);
    await held;
    // Forget 1–10 January while the import runs, as main.ts does: the pages it covers, what is pending, the mark.
    const scope = { kind: 'range' as const, from: new Date(2026, 0, 1).getTime(), to: new Date(2026, 0, 11).getTime() };
    await dayOne.forgot(scope, await engine.forget.urlsIn(scope));
    const mark = await engine.forget.mark(scope, Date.now());
    expect(mark.pages).toBe(1);
    await engine.forget.purgeDue(mark.undoUntil);
    expect(await (await engine.db()).get('pages', secret)).toBeUndefined();
    release();
    await dayOne.history.whenIdle();
    expect((await dayOne.history.status()).state).toBe('done');
    expect(await (await engine.db()).get('pages', secret)).toBeUndefined();
    historySearch = async () => [];
  });
});
