/**
 * Page-derived text (a page's title, a PDF's title) is drawn in its own direction and cannot
 * reorder the words around it. In HTML an element with `dir` (or <bdi>) isolates its text (the Unicode
 * bidi algorithm's isolate): without one, a title with a RIGHT-TO-LEFT OVERRIDE (U+202E) draws the rest
 * of the line backwards ("”. (15 s to undo)" as ")odnu ot s 51( .”"), and a Hebrew title's final "?" lands
 * at its start, as tests/e2e/surfaces.test.ts "shows right-to-left page text in its own direction" says
 * of result titles (which ResultCard isolates with dir="auto").
 */
import { describe, expect, it, vi } from 'vitest';
import { h, render } from 'preact';
import { installDom } from './surfaceDom.js';

vi.mock('../../popup/api.js', () => ({ call: async () => ({}), ApiError: Error }));
vi.mock('webextension-polyfill', () => ({ default: {} }));

const RLO = '\u202E';

/** The text node holding `needle`, and whether an element between it and `root` isolates it. */
function isolated(root: Element, needle: string): boolean {
  const walk = (n: Node): Text | null => {
    if (n.nodeType === 3 && (n as Text).data.includes(needle)) return n as Text;
    for (const c of Array.from(n.childNodes)) {
      const t = walk(c);
      if (t) return t;
    }
    return null;
  };
  const text = walk(root);
  expect(text, `"${needle}" is shown`).toBeTruthy();
  // The isolate must hold the page's text alone: an element around the whole sentence isolates nothing from it.
  for (let e = text!.parentElement; e && e !== root.parentElement; e = e.parentElement) {
    const own = (e.textContent ?? '').trim();
    const isolates = e.tagName === 'BDI' || e.hasAttribute('dir');
    if (isolates) return own === needle.trim();
  }
  return false;
}

describe('page titles in sentences are isolated', () => {
  it('(control) a result card\'s title is isolated: the check finds dir="auto"', async () => {
    const { document } = installDom();
    const { ResultCard } = await import('../../popup/components/ResultCard.js');
    const title = `${RLO}Quarterly report`;
    const r = { chunkId: 1, url: 'https://example.com/r', href: 'https://example.com/r', site: 'example.com', title, headingPath: [], snippet: [{ text: 'x', match: false }], lanes: { lexical: 1 }, lastVisit: Date.now(), whyMatched: [], more: [] };
    const app = document.getElementById('app')!;
    render(h(ResultCard, { result: r as never, firstOption: 0, selected: 0, compact: true, onOpen: () => undefined, onHover: () => undefined }), app);
    expect(isolated(app, title)).toBe(true);
    render(null, app);
  });

  it('the undo bar after "Forget this page" (popup, results page, options) isolates the page title', async () => {
    const { document } = installDom();
    const { UndoBar } = await import('../../popup/components/UndoBar.js');
    const title = `${RLO}Quarterly report`;
    const app = document.getElementById('app')!;
    render(h(UndoBar, { pending: { id: 'f1', scope: { kind: 'page', url: 'https://example.com/r' }, pages: 1, title, at: Date.now(), undoUntil: Date.now() + 15_000 } as never, onDone: () => undefined }), app);
    expect(app.textContent).toContain(title);
    expect(isolated(app, title)).toBe(true);
    render(null, app);
  });

  it('Options › PDFs: a PDF\'s title (from its metadata) is isolated from the problem said after it', async () => {
    const { document } = installDom();
    const title = `${RLO}Bank statement`;
    vi.doMock('../../popup/components/DayOneCard.js', () => ({
      useDayOne: () => [{ pdfNotes: [{ url: 'https://example.com/s.pdf', title, at: 0, problem: 'encrypted' }] }, () => undefined],
    }));
    vi.doMock('../../popup/components/LocalPdfs.js', () => ({ LocalPdfs: () => null }));
    const { PdfNotes } = await import('../../popup/components/PdfNotes.js');
    const app = document.getElementById('app')!;
    render(h(PdfNotes, {}), app);
    expect(app.textContent).toContain('password-protected');
    expect(isolated(app, title)).toBe(true);
    render(null, app);
  });
});
