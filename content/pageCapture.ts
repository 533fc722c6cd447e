/**
 * DOM -> blocks -> sections: the one capture step every caller runs — the content script on the live
 * page, the backfill on a fetched page parsed with DOMParser (offscreen document / background page),
 * and, from its blocks on, a PDF's text (src/sections.ts cutSections). What it returns is what a
 * `page/capture` message carries (src/protocol.ts CapturePayload).
 *
 * The cleaned body is walked once (in slices) and its main content found (content/extract.ts
 * mainContent: the `main` landmark, or Readability on small pages without one); then the blocks are cut
 * into sections by the same chunker the background runs, in slices too.
 */
import type { CapturePayload, Extraction } from '../src/protocol.js';
import { cutSections } from '../src/sections.js';
import { tooLittleText } from '../src/chunker.js';
import { mainContent, pageTitle, walkBlocks } from './extract.js';
import { echoesTyped, typedText } from '../src/typedMirror.js';
import type { Block } from '../src/chunker.js';

/** A capture done in one go as the page goes away reads at most this much (about a large manual page). */
export const URGENT_LIMITS = { maxNodes: 60_000, maxChars: 500_000 };

export interface CaptureOptions {
  /** A live, rendered page (the content script): rendering is checked. A parsed document has no layout. */
  live: boolean;
  /** The page is going away: one go, no Readability, and less of a huge page. */
  urgent?: boolean;
  /** Called between slices; resolve to go on (the page's own work runs in between). */
  yieldToPage?: () => Promise<void>;
  /** Title when the document has none and no heading (the host name). */
  fallbackTitle: string;
  /** The page's address (its links are read against it); the live document's own URL by default. */
  url?: string;
}

export interface CapturedDocument {
  payload: Required<Pick<CapturePayload, 'title' | 'lang' | 'blocks' | 'sections' | 'chunker'>>;
  /** How the main content was found and how much of the visible text it kept (the caller adds its cost). */
  extraction: Omit<Extraction, 'costMs' | 'longestTaskMs' | 'tasks'>;
  /** Words of the main content. */
  words: number;
}

/** The document's main content, as blocks and as sections; null when it has no body. */
export async function captureDocument(doc: Document, opts: CaptureOptions): Promise<CapturedDocument | null> {
  const body = doc.body;
  if (!body) return null;
  const { urgent = false } = opts;
  const yieldToPage = urgent ? undefined : opts.yieldToPage;
  // When the page is going away there is no time to yield: do it in one go, without Readability, and
  // read less of a huge page so leaving it is not held up.
  const pace = urgent ? { limits: URGENT_LIMITS } : yieldToPage ? { yieldToPage } : {};
  const url = opts.url ?? (opts.live ? doc.URL : undefined);
  const read = async (keepContents: boolean) => {
    const mirror = urgent ? undefined : doc.implementation.createHTMLDocument('');
    const cleaned = await walkBlocks(body, { checkVisibility: opts.live, ...pace, ...(mirror ? { mirror } : {}), ...(url ? { url } : {}), ...(keepContents ? { keepContents } : {}) });
    const main = await mainContent(cleaned, { title: doc.title, readability: !urgent, ...(yieldToPage ? { yieldToPage } : {}) });
    if (yieldToPage) await yieldToPage();
    // What the page draws back of the visitor's typing (a Markdown editor's live preview) is left out.
    const typed = opts.live ? typedText(cleaned.typed) : null;
    if (typed) main.blocks = await withoutEchoes(main.blocks, typed, yieldToPage);
    const cut = await cutSections(main.blocks, yieldToPage ? { yieldToPage, now: () => performance.now() } : undefined);
    return { cleaned, ...main, cut, title: pageTitle(doc.title, cut.blocks, opts.fallbackTitle) };
  };
  let got = await read(false);
  // Tables of contents are left out like navigation; a page with nothing else (a chapter's index page)
  // is read again with them, or it would not be kept at all.
  if (got.cleaned.contentsLeft && tooLittleText(got.title, got.cut.sections)) got = await read(true);
  const { cleaned, words, method, cut, title } = got;
  return {
    payload: { title, lang: pageLanguage(doc), blocks: cut.blocks, sections: cut.sections, chunker: cut.chunker },
    extraction: { method, retention: cleaned.words ? Math.min(1, words / cleaned.words) : 1, visibleWords: cleaned.words },
    words,
  };
}

/**
 * The page's language: its root's `lang` (or `xml:lang`), else the language its title heading is written
 * in (the nearest `lang` around the first `h1`, else `h2`). DocBook's XHTML (the Debian Edu manual) leaves
 * the root without one and says it on the `div.article` that holds everything; stored as '' before.
 */
export function pageLanguage(doc: Document): string {
  const root = doc.documentElement;
  const own = (root?.getAttribute('lang') || root?.getAttribute('xml:lang'))?.trim();
  if (own) return own;
  const heading = doc.querySelector('h1') ?? doc.querySelector('h2');
  return heading?.closest('[lang]')?.getAttribute('lang')?.trim() ?? '';
}

/**
 * Characters of blocks tested between two yields to the page: 2,000 blocks of 60 characters took 8-20 ms
 * against 50,000 typed characters (Node 20), so a slice is a few milliseconds.
 */
const ECHO_SLICE_CHARS = 30_000;

/** The blocks that are no echo of what the visitor typed (src/typedMirror.ts), yielding to the page as it goes. */
async function withoutEchoes(blocks: readonly Block[], typed: NonNullable<ReturnType<typeof typedText>>, yieldToPage?: () => Promise<void>): Promise<Block[]> {
  const out: Block[] = [];
  let chars = 0;
  for (const b of blocks) {
    if (!echoesTyped(b.text, typed)) out.push(b);
    chars += b.text.length;
    if (yieldToPage && chars > ECHO_SLICE_CHARS) {
      chars = 0;
      await yieldToPage();
    }
  }
  return out;
}
