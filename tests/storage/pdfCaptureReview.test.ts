/**
 * PDF capture: what a user does with a PDF tab against what README promises of it. Each
 * test failed on the code it was written against (main 3d73cde).
 * - README "First minute": the re-fetch of a PDF "carries your cookies for that site", and the exclusion
 *   list is "checked before anything is read". readPdf follows redirects (`redirect: 'follow'`) with
 *   `credentials: 'include'`, so a PDF address that now answers with a redirect sends the user's
 *   cookies to wherever it points, an excluded site included. The backfill's reader refuses redirects
 *   (tests/storage/readerFetch.test.ts); the credentialed fetch must too.
 * - Options' PDF notes: each PDF that could not be read leaves a note. PdfCapture.note reads the list
 *   and writes it back in two transactions, so PDFs failing at the same time (a session restored with
 *   several PDF tabs, a course page's PDFs opened together) overwrite each other's notes; and a note
 *   outlives a later successful read of the same PDF, so Options says a PDF searchable today could not
 *   be fetched. And a forgotten site's or day's notes stay: the forget drops the notes of the pages it
 *   deletes, and a PDF that could not be read (password-protected, too large) has no page, so Options
 *   keeps listing its address and title after "forget this site" (README: "the notes Options shows on
 *   PDFs go with their pages"; tests/storage/forgetFollower.test.ts covers only "forget everything").
 * - README "Privacy": after a forget, a new visit is a visit. A PDF forgotten and opened again in the
 *   same tab within 30 s (PdfCapture's SAME_LOAD_MS: one load seen by two signals) is answered
 *   "already read" and never stored.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// pdf.js in Node: its legacy build (the modern one needs DOMMatrix); the worker file the same build's.
vi.mock('pdfjs-dist', () => import('pdfjs-dist/legacy/build/pdf.mjs'));
vi.mock('webextension-polyfill', () => ({ default: { runtime: { getManifest: () => ({}) }, extension: {}, permissions: {} } }));
(globalThis as { chrome?: unknown }).chrome = { runtime: { getURL: () => new URL('../../node_modules/pdfjs-dist/legacy/build/pdf.worker.mjs', import.meta.url).href } };

const { engineOn, freshDb } = await import('./helpers.js');
const { PdfCapture } = await import('../../background/dayone/pdfCapture.js');
const { readPdf } = await import('../../background/reader/pdfText.js');
const { cutSections } = await import('../../src/sections.js');
const { makePdf, pageLines } = await import('../fixtures/makePdf.js');
const { siteOf } = await import('../../src/url.js');

let server: Server;
let port = 0;
const hits: { host: string; path: string }[] = [];
const pdfBytes = makePdf({ title: 'Quarterly statement', pages: [pageLines(1, 'ledger'), pageLines(2, 'balance')] });

beforeAll(async () => {
  server = createServer((req, res) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    hits.push({ host, path: req.url ?? '' });
    // The PDF's own site now sends its visitors on to another site: a sign-in page of an excluded
    // site, a link shortener, a file host's signed URL.
    if (req.url === '/statement.pdf' && host === '127.0.0.1') res.writeHead(302, { location: `http://localhost:${port}/elsewhere.pdf` }).end();
    else res.writeHead(200, { 'content-type': 'application/pdf' }).end(pdfBytes);
  });
  await new Promise<void>((r) => server.listen(0, r));
  port = (server.address() as { port: number }).port;
});

afterAll(() => {
  server?.closeAllConnections();
  server?.close();
});

describe('the one credentialed re-fetch of a PDF', () => {
  it('is exactly one request, to the PDF\'s own address: a redirect to another site is not followed', async () => {
    // Positive control: the other site is reachable here, so a request to it would be seen.
    await fetch(`http://localhost:${port}/control`);
    expect(hits.some((h) => h.host === 'localhost')).toBe(true);
    expect(siteOf(`http://localhost:${port}/`)).not.toBe(siteOf(`http://127.0.0.1:${port}/`));
    hits.length = 0;
    const res = await readPdf(`http://127.0.0.1:${port}/statement.pdf`, 'include');
    // What the user's cookies for 127.0.0.1 went to: that address and nothing else.
    expect(hits.map((h) => h.host + h.path)).toEqual(['127.0.0.1/statement.pdf']);
    // And the bytes of another site are not filed under the PDF's address.
    expect(res.ok).toBe(false);
  });
});

describe('a PDF forgotten and opened again', () => {
  it('in the same tab a few seconds later (a reload) is a fresh visit: it is read and stored again', async () => {
    const engine = engineOn(await freshDb());
    const url = 'https://reports.example/q3.pdf';
    const cut = await cutSections([{ kind: 'heading', level: 1, text: 'Page 1', id: 'page=1' }, { kind: 'text', text: 'The third quarter report on cormorant migration counts, with enough words in it to be stored as a page.' }]);
    let reads = 0;
    const pdf = new PdfCapture(engine, {
      readHtml: async () => ({ ok: false, reason: 'http-error', status: 404 }),
      readPdf: async () => {
        reads++;
        return { ok: true, title: 'Q3 report', blocks: cut.blocks, sections: cut.sections, chunker: cut.chunker, words: 20, pages: 1, pagesRead: 1, bytes: 1000, ms: 5 };
      },
    });
    expect(await pdf.handle(4, url, false, true)).toBe('new');
    // The user forgets the page (its undo window closes), then reloads the tab that still shows it.
    const mark = await engine.forget.mark({ kind: 'page', url });
    await engine.forget.purgeDue(mark.undoUntil);
    expect(await (await engine.db()).get('pages', url)).toBeUndefined();
    await new Promise((r) => setTimeout(r, 5));
    const again = await pdf.handle(4, url, false, true);
    expect(again).not.toBe('already read');
    expect(reads).toBe(2);
    expect((await (await engine.db()).get('pages', url))?.visitCount).toBe(1);
    expect((await engine.search({ q: 'cormorant' })).results.map((r) => r.url)).toEqual([url]);
  });
});

const cutOf = (word: string) => cutSections([{ kind: 'heading', level: 1, text: 'Page 1', id: 'page=1' }, { kind: 'text', text: `A page about ${word} with enough ordinary words in it to be stored as a page of text here.` }]);

describe('the PDF notes in Options', () => {
  it('five PDFs that fail at the same time leave five notes', async () => {
    const engine = engineOn(await freshDb());
    const pdf = new PdfCapture(engine, {
      readHtml: async () => ({ ok: false, reason: 'http-error', status: 404 }),
      readPdf: async () => {
        await new Promise((r) => setTimeout(r, 5));
        return { ok: false, problem: 'encrypted' };
      },
    });
    const urls = [1, 2, 3, 4, 5].map((i) => `https://school${i}.example/handout.pdf`);
    await Promise.all(urls.map((u, i) => pdf.handle(i + 1, u, false, true)));
    expect((await pdf.notes()).map((n) => n.url).sort()).toEqual(urls);
  });

  it('a PDF read in full after an earlier failure no longer has a note saying it could not be read', async () => {
    const engine = engineOn(await freshDb());
    const cut = await cutOf('heronry');
    let online = false;
    const pdf = new PdfCapture(engine, {
      readHtml: async () => ({ ok: false, reason: 'http-error', status: 404 }),
      readPdf: async () => (online ? { ok: true, title: 'Heronry survey', blocks: cut.blocks, sections: cut.sections, chunker: cut.chunker, words: 20, pages: 1, pagesRead: 1, bytes: 1000, ms: 5 } : { ok: false, problem: 'unreachable', detail: 'Failed to fetch' }),
    });
    const url = 'https://survey.example/heronry.pdf';
    // Offline: the re-fetch fails, a note says so.
    expect(await pdf.handle(1, url, false, true)).toBe('unreachable');
    expect((await pdf.notes()).map((n) => n.problem)).toEqual(['unreachable']);
    // The next day the user opens it again (another tab), online: it is read whole and found by search.
    online = true;
    expect(await pdf.handle(2, url, false, true)).toBe('new');
    expect((await engine.search({ q: 'heronry' })).results.map((r) => r.url)).toEqual([url]);
    // Options must not still say "Reread could not fetch it again".
    expect((await pdf.notes()).filter((n) => n.url === url)).toEqual([]);
  });
});

describe('forgetting a site or a range of days and the PDF notes', () => {
  for (const scope of ['site', 'range'] as const) {
    it(`"forget" by ${scope} leaves no note naming a PDF of it, read or not`, async () => {
      const engine = engineOn(await freshDb());
      const pdf = new PdfCapture(engine, {
        readHtml: async () => ({ ok: false, reason: 'http-error', status: 404 }),
        // A password-protected statement: nothing stored, a note left.
        readPdf: async () => ({ ok: false, problem: 'encrypted' }),
      });
      const url = 'https://bank.example/statements/2026-06.pdf';
      expect(await pdf.handle(3, url, false, true)).toBe('encrypted');
      expect(JSON.stringify(await pdf.notes())).toContain('bank.example');
      const now = Date.now();
      const mark = await engine.forget.mark(scope === 'site' ? { kind: 'site', site: 'bank.example' } : { kind: 'range', from: now - 3_600_000, to: now + 3_600_000 });
      await engine.forget.purgeDue(mark.undoUntil);
      expect(JSON.stringify(await pdf.notes())).not.toContain('bank.example');
    });
  }
});
