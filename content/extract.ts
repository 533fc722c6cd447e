/**
 * DOM -> blocks. Reads the page, never changes it.
 *
 * `walkBlocks` walks the live body in time slices (so no task it runs takes long) and keeps what is
 * rendered and readable: headings (with the id a link can jump to), paragraphs, list items, definition
 * lists, quotes, code (`pre`) and tables as text, and what the page shows on request (the body of a closed
 * `<details>`, `hidden="until-found"`: see COLLAPSED). It leaves out navigation (`nav`, `role=navigation`,
 * or a class or id that names it), site header and footer, asides, cookie banners and other fixed
 * overlays, hidden and aria-hidden elements, scripts and styles, and never reads form controls,
 * editable regions, or what a page draws back of the user's typing (code editors, a query's suggestions:
 * `typedElsewhereRegions`). Along the way it
 * - notes the page's `main` landmark, which the caller prefers when it holds most of the text;
 * - turns definition entries with an id (Sphinx `<dt id="os.path.join">`, glossary terms) into
 *   sub-sections, so each can be its own result with its own anchor;
 * - optionally builds a sanitised copy of what it kept (`mirror`) for Readability, so Readability
 *   never sees a hidden element or a form value either.
 * `readabilityBlocks` runs Readability (one synchronous call) on that copy and walks its article.
 */
import { Readability } from '@mozilla/readability';
import type { Block, BlockKind } from '../src/chunker.js';
import { measureWords } from '../src/chunker.js';
import { classNamesNavigation, idNamesNavigation, namesContents } from '../src/navigationNames.js';
import { colourAlpha, TYPED_INPUT_TYPES, typesElsewhere, type InputLook } from '../src/typedElsewhere.js';

export const EXTRACT_LIMITS = {
  maxChars: 2_000_000,
  maxBlockChars: 200_000,
  maxBlocks: 20_000,
  maxNodes: 300_000,
  /** Headings are cut here; the chunker keeps what its path cannot hold in the section's body. */
  maxHeadingChars: 2_000,
  /**
   * Readability is one synchronous call on the main thread, and it scales with both elements and text:
   * it runs only on pages whose sanitised copy is at most this big. Boilerplate matters most on short
   * pages anyway; on long ones it is a small share of the text (see tests/eval/capture-report.ts).
   */
  readabilityMaxElements: 1_000,
  readabilityMaxWords: 2_500,
  /**
   * And only on a copy nested at most this deep: its passes grow with the square of the nesting (measured
   * in Chromium 156 on one paragraph under nested divs: 34 ms at depth 100, 93 ms at 200, 650 ms at 500,
   * 1.6 s at 900; the HTML parser nests up to 512). The deepest page of the 22 documentation sets the
   * evaluation reads is 29 elements deep.
   */
  readabilityMaxDepth: 80,
};

/** A main landmark needs this share of the cleaned body's words to be taken on its own. */
export const MAIN_MIN_SHARE = 0.5;
/** Readability's article is kept only if it holds at least this share of the cleaned body's words. */
export const READABILITY_MIN_SHARE = 0.8;

const SKIP_TAGS = new Set([
  'SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'SVG', 'CANVAS', 'IFRAME', 'FRAME', 'OBJECT', 'EMBED', 'VIDEO', 'AUDIO', 'MAP',
  'INPUT', 'TEXTAREA', 'SELECT', 'OPTION', 'OPTGROUP', 'DATALIST', 'OUTPUT', 'BUTTON', 'NAV', 'FOOTER', 'DIALOG',
  'MENU', 'HEAD', 'LINK', 'META', 'RP', 'SEARCH',
]);
const SKIP_ROLES = new Set(['navigation', 'banner', 'contentinfo', 'search', 'dialog', 'alertdialog', 'menu', 'menubar', 'toolbar', 'textbox', 'searchbox', 'combobox', 'listbox', 'tooltip']);
const BOILERPLATE = /(?:^|[\s_-])(?:cookies?|consent|gdpr|cmp-|onetrust|newsletter|subscribe-popup|share-?bar|breadcrumbs?|skip-?link|sidebar|sphinxsidebar|related|footer|masthead|site-?header|toc-?drawer)(?:$|[\s_-])/i;
const HEADINGS: Record<string, number> = { H1: 1, H2: 2, H3: 3, H4: 4, H5: 5, H6: 6 };

/** A class naming an element a sidebar (BOILERPLATE's word): kept when it is the text's own aside (textSidebar). */
const SIDEBAR_CLASS = /(?:^|[\s_-])sidebar(?:$|[\s_-])/i;
const SIDEBAR_CLASSES = /(?:^|[\s_-])sidebar(?:$|[\s_-])/gi;

/**
 * Whether an element sits between paragraphs of running text: the nearest element sibling before or after
 * it that holds text and is no sidebar itself (empty anchors and a run of sidebars skipped) is a paragraph
 * of 8+ words (a `<p>`, or a `<div>` that opens with text or inline elements). A site's sidebar sits beside
 * the content's container, whose siblings are containers and link lists.
 */
function inRunningText(el: Element): boolean {
  const paragraph = (e: Element): boolean => {
    const tag = e.tagName.toUpperCase();
    if (tag !== 'P' && tag !== 'DIV') return false;
    if (tag === 'DIV') {
      let first: ChildNode | null = e.firstChild;
      while (first && first.nodeType === 3 && !(first.nodeValue ?? '').trim()) first = first.nextSibling;
      if (!first || (first.nodeType === 1 && !INLINE_TAGS.has((first as Element).tagName.toUpperCase()))) return false;
    }
    return measureWords(e.textContent ?? '') >= 8;
  };
  const near = (step: (e: Element) => Element | null): Element | null => {
    for (let e = step(el), n = 0; e && n < 8; e = step(e), n++) if ((e.textContent ?? '').trim() && !SIDEBAR_CLASS.test(e.getAttribute('class') ?? '')) return e;
    return null;
  };
  const before = near((e) => e.previousElementSibling);
  const after = near((e) => e.nextElementSibling);
  return (!!before && paragraph(before)) || (!!after && paragraph(after));
}

/**
 * A class that BOILERPLATE matches only through "sidebar", on an element in the running text: DocBook's
 * `<sidebar>` (DocBook XSL and Publican write `<div class="sidebar">`: the TIP, NOTE, CULTURE boxes between
 * a section's paragraphs) is the text's own aside, not the site's. On pages without a main landmark every one
 * was dropped: 1,680 of them, 28% of the Debian Administrator's Handbook's words (tests/eval/README.md, hb25).
 */
function textSidebar(el: Element, cls: string): boolean {
  return SIDEBAR_CLASS.test(cls) && !BOILERPLATE.test(cls.replace(SIDEBAR_CLASSES, ' ')) && inRunningText(el);
}

const BLOCK_TAGS = new Set([
  'P', 'DIV', 'SECTION', 'ARTICLE', 'MAIN', 'LI', 'UL', 'OL', 'DL', 'DT', 'DD', 'BLOCKQUOTE', 'FIGURE', 'FIGCAPTION',
  'ADDRESS', 'DETAILS', 'SUMMARY', 'HR', 'CAPTION', 'CENTER', 'HGROUP', 'HEADER', 'FORM', 'FIELDSET', 'LEGEND', 'BODY', 'HTML',
]);
/** Elements that never break a word: `<code><span>os.path.</span><span>join</span></code>` is one word. */
const INLINE_TAGS = new Set([
  'A', 'ABBR', 'B', 'BDI', 'BDO', 'BIG', 'CITE', 'CODE', 'DATA', 'DEL', 'DFN', 'EM', 'FONT', 'I', 'IMG', 'INS', 'KBD', 'LABEL',
  'MARK', 'NOBR', 'PICTURE', 'Q', 'RB', 'RT', 'RTC', 'RUBY', 'S', 'SAMP', 'SMALL', 'SPAN', 'STRIKE', 'STRONG', 'SUB', 'SUP', 'TIME',
  'TT', 'U', 'VAR', 'WBR', 'SLOT',
]);
const LIST_TAGS = new Set(['LI', 'DD', 'DT']);

export interface WalkOptions {
  /** Check rendering (live DOM only; a parsed or cloned document has no layout). */
  checkVisibility: boolean;
  /** Called between slices; resolve to continue (lets the page's own work run in between). */
  yieldToPage?: () => Promise<void>;
  /** Milliseconds of work per slice. */
  sliceMs?: number;
  now?: () => number;
  /** An empty document to fill with a sanitised copy of what is kept (dropped above the Readability limit). */
  mirror?: Document;
  /**
   * The page's address, which its links are read against (`namesSite`); on the live page its own URL
   * by default. Without it no link is judged.
   */
  url?: string;
  limits?: Partial<typeof EXTRACT_LIMITS>;
  /**
   * Keep tables of contents (`namesContents`), which are otherwise left out like navigation: for a page
   * whose only text is its table of contents (a chapter's index page), read again (captureDocument).
   */
  keepContents?: boolean;
}

export interface Landmark {
  /** Block range [start, end) inside the landmark. */
  start: number;
  end: number;
  words: number;
}

export interface WalkResult {
  blocks: Block[];
  /**
   * Words of the blocks by measureWords: a run of Japanese, Chinese or Thai counts by its characters (two a
   * word), not as one word per space-free run, so every share and floor below (main landmark, Readability's
   * article, prose, a page too small to keep) judges those languages as it judges English.
   */
  words: number;
  truncated: boolean;
  nodes: number;
  elements: number;
  /** Visible `main` / `role=main` landmarks, outermost only. */
  mains: Landmark[];
  /** The sanitised copy, or null when none was asked for, the page has a main landmark, or it grew past Readability's limits. */
  mirror: Document | null;
  /** For each block, the share of its characters inside links (navigation-like blocks are mostly links). */
  linkShare: number[];
  /** Tables of contents left out (`WalkOptions.keepContents`). */
  contentsLeft: number;
  /**
   * On a live page, what the visitor typed (`typedValue`) into the form controls and editable regions the
   * walk left out, and the text of the editors that draw what is typed (`typedElsewhereRegions`).
   */
  typed: string[];
}

// Soft hyphens (a hyphenation script puts one between the syllables of every long word: "Kon\u00ADfi\u00ADgu…")
// are hints for line breaks, not letters: kept, they cut each such word in pieces no query finds. So is a
// zero-width no-break space (U+FEFF), which `\s` would turn into a space inside the word; the other
// characters no reader sees go where both sides normalise blocks (src/validate.ts withoutInvisible).
const SOFT_HYPHEN = /[\u00ad\ufeff]/g;
const cleanText = (s: string) => s.replace(SOFT_HYPHEN, '').replace(/\s+/g, ' ').trim();
const ZERO_WIDTH = /[\u200b-\u200d\u2060\ufeff]/g;
// HTML elements in HTML documents report upper-case names already (no new string per element); SVG,
// MathML and XHTML documents report lower case.
const tagOf = (el: Element) => {
  const t = el.tagName;
  return t.charCodeAt(0) >= 97 ? t.toUpperCase() : t;
};
/** One options object for every visibility check (the walk makes thousands). */
const VISIBILITY = { visibilityProperty: true };

/**
 * Hidden by an attribute: `hidden` (not `hidden="until-found"`, which the browser reveals for its find
 * in page and for a link to the text: see `rendered`) or `aria-hidden="true"`.
 */
function isHiddenAttr(el: Element): boolean {
  const hidden = el.getAttribute('hidden');
  return (hidden !== null && hidden.toLowerCase() !== 'until-found') || el.getAttribute('aria-hidden') === 'true';
}

/**
 * Whether a class or id marks `el` as page navigation (src/navigationNames.ts: `navheader`, `topNav`,
 * `site-nav`, `pagination`…). Read outside the main content only, like BOILERPLATE. An element that is
 * or holds the page's title (`h1`), a main landmark or an article is a layout wrapper whatever its
 * class says (`<div class="nav-open">` around a page whose menu is open, `<article class="nav-menu">`):
 * dropping it would drop the page.
 */
function namesNavigation(el: Element, tag: string, cls: string | null, id: string): boolean {
  if (!(cls && classNamesNavigation(cls)) && !(id && idNamesNavigation(id))) return false;
  return tag !== 'H1' && !holdsPage(el, tag);
}

/** Whether an element is or holds the page's title (`h1`), a main landmark or an article: never chrome to drop. */
function holdsPage(el: Element, tag: string): boolean {
  return tag === 'MAIN' || tag === 'ARTICLE' || el.getAttribute('role') === 'main' || !!el.querySelector('h1, main, article, [role="main"]');
}

/**
 * A table of contents beside the content, not part of it: no element around it (below `body`) holds a
 * heading of its own. Texinfo's `#tocframe` is the body's child next to `#main`, and leaves; a chapter's
 * own table of contents (DocBook's `div.toc` in the `div.chapter` under its title) stays with the
 * chapter, as does one holding the page's title or its main content.
 */
function sidebarContents(el: Element, tag: string): boolean {
  if (holdsPage(el, tag)) return false;
  for (let a = el.parentElement; a && a.tagName !== 'BODY' && a.tagName !== 'HTML'; a = a.parentElement) {
    for (const h of a.querySelectorAll('h1, h2, h3, h4, h5, h6')) if (!el.contains(h)) return false;
  }
  return true;
}

/**
 * A table of contents inside the content whose links go to this page's own sections (DocBook's `div.toc`
 * under a one-page manual's or a chapter's title, a README's contents list): the headings it names are
 * on the page below it, each with its own section, so it says nothing they do not. Kept, it was stored
 * as sections of 700–1,300 words of headings under the title (a one-page DocBook manual: 22 of 988
 * sections, tests/eval/README.md session 39) that matched any phrase naming a chapter. Eight links at
 * least, nine in ten of them to this page (a fragment of its address), none of the page's title or main
 * content inside; a contents list of other pages (a chapter's index page) stays (and a page left with
 * too little text without it is read again keeping it: content/pageCapture.ts).
 */
function contentsOfThisPage(el: Element, tag: string, pageUrl: string | undefined): boolean {
  if (!pageUrl || holdsPage(el, tag)) return false;
  const here = resolvedWithoutHash(pageUrl, pageUrl);
  let links = 0;
  let own = 0;
  // Judged on its first thousand links, read lazily: a hostile page's million-link "toc" costs no more.
  const anchors = el.getElementsByTagName('a');
  // (By index until none: a live collection's `length` would walk all of it first.)
  for (let i = 0, a = anchors[0]; a && links < 1000; a = anchors[++i]) {
    const href = a.getAttribute('href');
    if (href === null) continue;
    links++;
    if (href.startsWith('#') ? href.length > 1 : href.includes('#') && resolvedWithoutHash(href, pageUrl) === here) own++;
  }
  return links >= 8 && own * 10 >= links * 9;
}

/**
 * Editable regions are never read: their text is the user's, not the page's. `contenteditable="false"`
 * is not editable whatever linkedom's `isContentEditable` (the evaluation's and the unit tests' DOM) says:
 * it answers whether the attribute is there, where a browser answers false.
 */
function isEditable(el: Element): boolean {
  const ce = el.getAttribute('contenteditable')?.toLowerCase();
  if (ce === 'false') return false;
  if (ce === '' || ce === 'true' || ce === 'plaintext-only') return true;
  return (el as HTMLElement).isContentEditable === true;
}

/**
 * A `role=textbox` that says it cannot be edited (`contenteditable="false"`): CodeMirror 6's read-only view
 * (`EditorView.editable.of(false)`), which documentation sites use to show code. Its text is the page's and
 * is read as such; left out with every other textbox (SKIP_ROLES), a CodeMirror 6 example was not stored
 * at all (measured with @codemirror/view 6.44 in Chromium 156). An editable one (`contenteditable="true"`,
 * read-only by `EditorState.readOnly` or not) is never read (`isEditable`).
 */
function readOnlyTextbox(el: Element, role: string): boolean {
  return role === 'textbox' && el.getAttribute('contenteditable')?.toLowerCase() === 'false';
}

/**
 * A positioned block wholly left of or above the page (`left: -9999px`), where no scrolling reaches: not
 * read. What sits there is a textarea's auto-size mirror holding what the user typed (jQuery autogrow's
 * `div` at `top: -10000px; left: -10000px`, never hidden otherwise), text stuffed for search engines, or a
 * closed off-canvas panel. A box of at most 1 x 1 px is the older "visually hidden" pattern (WebAIM's
 * `left: -10000px; width: 1px; height: 1px; overflow: hidden`) and is read, like the `clip` one: screen
 * readers read both, and their text labels what is on screen ("Download the report *as PDF*"). Inline
 * elements are not looked at (no style read for them: most of a page's elements).
 * Left as they are, by decision: text moved out of its own box (`text-indent: -9999px` image replacement)
 * names the logo or icon a reader sees instead; `font-size: 0` text is the same trick, and checking it
 * would cost a style read per element for text that is rare and harmless.
 */
function offPage(r: DOMRect, view: Window): boolean {
  return (r.right + view.scrollX <= 0 || r.bottom + view.scrollY <= 0) && (r.width > 1 || r.height > 1);
}

/** Text inputs looked at per walk for `typedElsewhereRegions` (a page of forms holds a few dozen). */
const TYPED_MAX_INPUTS = 200;
/**
 * How many ancestors up from a hidden input its editor is looked for: Ace's and Monaco's textarea is a
 * child of the editor's box, CodeMirror 5's a grandchild.
 */
const EDITOR_MAX_DEPTH = 4;
/**
 * What no code editor draws, and every page around one has: headings, paragraphs, landmarks. An ancestor
 * that is or holds one is the page, not the editor: a hidden input (a honeypot field at `left: -9999px`,
 * a shortcut catcher under `body`) never takes the page's text out with it.
 */
const PAGE_STRUCTURE = 'h1, h2, h3, h4, h5, h6, p, main, article, [role="main"]';

/**
 * What a text input looks like to a reader (src/typedElsewhere.ts InputLook): its box cut by `clip`,
 * `clip-path: inset(50%)` (the "visually hidden" patterns) and by every ancestor up to the body that
 * clips its overflow (CodeMirror 5's 3 x 0 px box around its 1,002 px textarea).
 */
function inputLook(el: HTMLInputElement | HTMLTextAreaElement, view: Window): InputLook {
  const style = view.getComputedStyle(el);
  const r = el.getBoundingClientRect();
  let [left, top, right, bottom] = [r.left, r.top, r.right, r.bottom];
  const clip = /^rect\(([-\d.]+)px,?\s*([-\d.]+)px,?\s*([-\d.]+)px,?\s*([-\d.]+)px\)$/.exec(style.clip);
  if (clip) [top, right, bottom, left] = [top + Number(clip[1]), left + Number(clip[2]), top + Number(clip[3]), left + Number(clip[4])];
  if (style.clipPath.startsWith('inset(50%')) right = left;
  for (let a = el.parentElement; a && a.tagName !== 'BODY' && a.tagName !== 'HTML'; a = a.parentElement) {
    const s = view.getComputedStyle(a);
    const b = a.getBoundingClientRect();
    if (s.overflowX !== 'visible') [left, right] = [Math.max(left, b.left), Math.min(right, b.right)];
    if (s.overflowY !== 'visible') [top, bottom] = [Math.max(top, b.top), Math.min(bottom, b.bottom)];
  }
  const fill = style.getPropertyValue('-webkit-text-fill-color');
  return {
    disabled: el.disabled,
    readOnly: el.readOnly,
    opaque: el.checkVisibility({ opacityProperty: true }),
    fontPx: parseFloat(style.fontSize) || 0,
    textAlpha: Math.min(colourAlpha(style.color), fill ? colourAlpha(fill) : 1),
    shownWidth: Math.max(0, right - left),
    shownHeight: Math.max(0, bottom - top),
    offPage: r.right + view.scrollX <= 0 || r.bottom + view.scrollY <= 0,
  };
}

/** Whether `el` holds text that is not inside `input` (at most 2,000 text nodes looked at). */
function drawsText(el: Element, input: Element): boolean {
  const walker = el.ownerDocument.createTreeWalker(el, 4 /* NodeFilter.SHOW_TEXT */);
  for (let n = walker.nextNode(), i = 0; n && i < 2_000; n = walker.nextNode(), i++) {
    if ((n.nodeValue ?? '').trim() && !input.contains(n)) return true;
  }
  return false;
}

/** The editor around a hidden input: its nearest ancestor that draws text of its own, if that is no part of the page's structure. */
function editorAround(input: Element): Element | null {
  let a = input.parentElement;
  for (let depth = 0; a && depth < EDITOR_MAX_DEPTH; depth++, a = a.parentElement) {
    const tag = tagOf(a);
    if (tag === 'BODY' || tag === 'HTML' || a.matches(PAGE_STRUCTURE) || a.querySelector(PAGE_STRUCTURE)) return null;
    if (drawsText(a, input)) return a;
  }
  return null;
}

/**
 * Where a live page draws back what the user types, outside any form control or editable region. Never
 * read, like the form controls themselves ("never capture form field values", README):
 * - Code editors that take keystrokes in an input nobody sees and draw the text themselves (CodeMirror 5,
 *   Ace, a hand-made one: src/typedElsewhere.ts): the editor around such an input (`editorAround`).
 *   Its code is left out whether the user typed into it or not: a playground's starting code is the
 *   page's, but nothing on the page tells the two apart, as for an editable region. A read-only editor
 *   (CodeMirror 5 `readOnly`, Ace `setReadOnly`) and a highlighted `pre` are read as code.
 * - A suggestion list that echoes the query: what a combobox (`role=combobox`, or an input with
 *   `aria-autocomplete`) names with `aria-controls` / `aria-owns` (the ARIA combobox pattern). Most are
 *   `role=listbox` already (SKIP_ROLES); this catches lists without the role. A `<datalist>` is never read.
 *   An input's `aria-controls` alone may name a table it filters, which is the page's: not left out.
 * - A Markdown editor's live preview, marked by nothing generic (an `<output>`, which some use, is never
 *   read): found by its text instead, after the walk (`WalkResult.typed`, src/typedMirror.ts).
 * Left as they are, by decision:
 * - A textarea's auto-size mirror: react-textarea-autosize clones a `textarea` (never read); mirrors made
 *   of a `div` are `visibility: hidden` (not rendered: never read) or off the page (`offPage`).
 * Empty off a live page (no layout, no typing).
 */
export function typedElsewhereRegions(root: Element): Set<Element> | null {
  const view = root.ownerDocument.defaultView;
  if (!view) return null;
  const out = new Set<Element>();
  const controls = root.querySelectorAll('textarea, input, [role="combobox"]');
  for (let i = 0; i < controls.length && i < TYPED_MAX_INPUTS; i++) {
    const el = controls[i]!;
    const tag = tagOf(el);
    if (el.getAttribute('role') === 'combobox' || el.hasAttribute('aria-autocomplete')) {
      for (const attr of ['aria-controls', 'aria-owns']) {
        for (const id of (el.getAttribute(attr) ?? '').split(/\s+/)) {
          const popup = id ? el.ownerDocument.getElementById(id) : null;
          if (popup && !popup.matches(PAGE_STRUCTURE) && !popup.querySelector(PAGE_STRUCTURE)) out.add(popup);
        }
      }
    }
    if (tag !== 'TEXTAREA' && !(tag === 'INPUT' && TYPED_INPUT_TYPES.has((el.getAttribute('type') ?? '').toLowerCase()))) continue;
    // Not rendered or `visibility: hidden`: no one types into it.
    if (!el.checkVisibility(VISIBILITY)) continue;
    if (!typesElsewhere(inputLook(el as HTMLInputElement | HTMLTextAreaElement, view))) continue;
    const editor = editorAround(el);
    if (editor) out.add(editor);
  }
  return out.size ? out : null;
}

/** Typed values kept per walk (`WalkResult.typed`; a page of forms holds a few dozen). */
const TYPED_MAX_FIELDS = 500;

/**
 * What the visitor typed into a form control or editable region the walk leaves out, for the test of its
 * echoes (src/typedMirror.ts): a text field's value when it differs from the page's own default (never a
 * password's), an editable region's text (outermost only; nothing tells typed text there from the
 * page's). Undefined for anything else. Only ever held in memory while the page is read.
 */
function typedValue(el: Element, tag: string): string | undefined {
  if (tag === 'TEXTAREA' || tag === 'INPUT') {
    const type = (el.getAttribute('type') ?? '').toLowerCase();
    if (tag === 'INPUT' && (type === 'password' || !TYPED_INPUT_TYPES.has(type))) return undefined;
    const f = el as HTMLInputElement | HTMLTextAreaElement;
    return f.value && f.value !== f.defaultValue ? f.value : undefined;
  }
  return isEditable(el) ? (el.textContent ?? '') : undefined;
}

/**
 * Content the page shows on request, as HTML defines it: the body of a closed `<details>` (all but its
 * first `<summary>`) and what a `hidden="until-found"` element holds. The browser renders neither, yet
 * a reader opens it with one click, the browser's find in page finds it, and a link to an id or to a
 * text inside it opens it (Chrome 97+, Firefox too): FAQ answers, MkDocs Material's collapsible notes,
 * rustdoc's folded implementations, GitHub READMEs' "click to expand". A panel a script collapses with
 * `display: none` is not this: neither find in page nor a link can open it, and nothing tells it from a
 * menu that is hidden for real, so it stays out.
 */
const COLLAPSED =
  'details:not([open]) > :not(summary:first-of-type), details:not([open]) > :not(summary:first-of-type) *, [hidden="until-found" i] *';

/**
 * The most elements collapsed content (a closed `<details>`'s body, a `hidden="until-found"` element) may
 * hold to be read. The browser computes no style for it until it is opened, and the first look inside
 * makes it compute the style of all of it in one go, which no slice can cut: measured in Chromium 156
 * (loaded 2-core machine), 6-25 ms for 1,500-3,000 elements, 40-66 ms for 10,000, 300+ ms for 50,000.
 * A FAQ of 300 closed entries cost 30 ms in all. A larger body (a log, a long diff folded away) is left
 * out as it was before: its summary stays.
 */
export const COLLAPSED_MAX_ELEMENTS = 2_000;

/** Whether `el` holds more than `max` elements (looks at `max + 1` of them at most, styles none). */
function holdsMoreThan(el: Element, max: number): boolean {
  return el.getElementsByTagName('*')[max] !== undefined;
}

/** A live closed `<details>` or `hidden="until-found"` element too big to read (COLLAPSED_MAX_ELEMENTS). */
function collapsedTooBig(el: Element, tag: string): boolean {
  const collapses = tag === 'DETAILS' ? !(el as HTMLDetailsElement).open : el.getAttribute('hidden')?.toLowerCase() === 'until-found';
  return collapses && holdsMoreThan(el, COLLAPSED_MAX_ELEMENTS);
}

/**
 * Whether a live element is rendered (`display: contents` has no box but its children are), or would be
 * once the collapsed content it sits in (COLLAPSED) is opened: its own style shows it. The walk checks
 * each element's ancestors before it, so an element inside a hidden one never gets here.
 */
function rendered(el: Element): boolean {
  const e = el as Element & { checkVisibility?: (o?: object) => boolean };
  if (!e.checkVisibility || e.checkVisibility(VISIBILITY)) return true;
  const style = el.ownerDocument.defaultView?.getComputedStyle(el);
  if (!style) return false;
  if (style.display === 'contents') return true;
  return style.display !== 'none' && style.visibility === 'visible' && el.closest(COLLAPSED) !== null;
}

/**
 * The text of a live element as shown: its innerText when it is rendered (lines kept, what CSS hides
 * left out); inside collapsed content, which has no innerText until opened, its text without the parts
 * that stay hidden once it is (`rendered`), form controls and editable regions.
 */
function shownText(el: Element, max: number, editors: ReadonlySet<Element> | null): string {
  if (holdsMoreText(el, max)) return readText(el, true, max, editors);
  // innerText holds what an editable region inside says, aria-hidden text and every option of a select:
  // read only where there is none of them.
  if ((el as Element & { checkVisibility?: (o?: object) => boolean }).checkVisibility?.(VISIBILITY) !== false && !holdsUnread(el, editors)) return (el as HTMLElement).innerText ?? '';
  return readText(el, true, max, editors);
}

/** Nodes an element read whole (a `pre`, a table cell) may hold for its innerText or textContent to be read. */
const WHOLE_MAX_NODES = 50_000;

/**
 * Whether an element read whole holds more than `max` characters of text, or more than WHOLE_MAX_NODES
 * nodes: looks at that much of it, no more. Such an element is read node by node up to the cap
 * (`readText`). Its innerText or textContent, cut to the cap only once made, was one task as long as the
 * text: a 10 MB `pre` (a log, a plain-text file, which the browser shows in one `pre`) took 200 ms of
 * the page's main thread, a 10 MB table cell 800 ms (Chromium 156).
 */
function holdsMoreText(el: Element, max: number): boolean {
  let chars = 0;
  let nodes = 0;
  let n: Node | null = el.firstChild;
  while (n) {
    if (++nodes > WHOLE_MAX_NODES) return true;
    if (n.nodeType === 3 && (chars += (n.nodeValue ?? '').length) > max) return true;
    if (n.firstChild) {
      n = n.firstChild;
      continue;
    }
    while (n && n !== el && !n.nextSibling) n = n.parentNode;
    n = n && n !== el ? n.nextSibling : null;
  }
  return false;
}

/**
 * Whether an element read whole (a table cell, a `pre`) holds something never read: a form control, an
 * editable region, hidden markup, a template, an editor that draws what is typed (`typedElsewhereRegions`).
 */
function holdsUnread(el: Element, editors: ReadonlySet<Element> | null = null): boolean {
  for (const d of Array.from(el.querySelectorAll('*'))) if (SKIP_TAGS.has(tagOf(d)) || isHiddenAttr(d) || isEditable(d) || editors?.has(d)) return true;
  return false;
}

/**
 * An element's text without what is never read (SKIP_TAGS, hidden or aria-hidden markup, editable
 * regions, `editors`) and, on a live page, without what is not rendered; a line break after each block. At
 * most `max` characters, read from at most WHOLE_MAX_NODES nodes when `max` is given.
 */
function readText(el: Element, live: boolean, max = Infinity, editors: ReadonlySet<Element> | null = null): string {
  let out = '';
  let nodes = 0;
  const maxNodes = max === Infinity ? Infinity : WHOLE_MAX_NODES;
  // An explicit stack, as in walkBlocks: a `pre` or a cell holding markup nested 10,000 deep (a script
  // builds any depth) overflowed the call stack, and the page was not captured at all.
  const stack: { child: ChildNode | null; tag: string }[] = [{ child: el.firstChild, tag: '' }];
  while (stack.length && out.length < max && nodes < maxNodes) {
    const frame = stack[stack.length - 1]!;
    const c = frame.child;
    if (!c) {
      stack.pop();
      if (stack.length && (BLOCK_TAGS.has(frame.tag) || /^(?:TR|TABLE|PRE|H[1-6])$/.test(frame.tag))) out += '\n';
      continue;
    }
    frame.child = c.nextSibling;
    nodes++;
    if (c.nodeType === 3) {
      const v = c.nodeValue ?? '';
      out += v.length > max - out.length ? v.slice(0, max - out.length) : v;
    }
    else if (c.nodeType === 1) {
      const e = c as Element;
      const tag = tagOf(e);
      if (tag === 'BR') out += '\n';
      else if (!SKIP_TAGS.has(tag) && !isHiddenAttr(e) && !isEditable(e) && !editors?.has(e) && (!live || rendered(e))) stack.push({ child: e.firstChild, tag });
    }
  }
  return out;
}

/**
 * The text of an element read whole in a document without layout: its textContent, unless it holds
 * something never read or more than `max` characters (`holdsMoreText`).
 */
function markupText(el: Element, max: number): string {
  return holdsMoreText(el, max) || holdsUnread(el) ? readText(el, false, max) : (el.textContent ?? '');
}

/**
 * How much of one text node a heading's reader takes: a heading is cut at a few thousand characters, and
 * the whole of a 10 MB text node in an `h1` was copied and cleaned first (840 ms in one task, Chromium 156).
 * Four times the cap leaves room for the whitespace cleaning removes.
 */
const headingRead = (v: string, max: number) => (v.length > 4 * max ? v.slice(0, 4 * max) : v);

/** Visible text of a small element (a heading): skips hidden parts and permalink markers. */
function visibleText(el: Element, max: number, live: boolean): string {
  let out = '';
  const stack: Node[] = [el];
  while (stack.length && out.length < max) {
    const n = stack.pop()!;
    if (n.nodeType === 3) {
      out += headingRead(n.nodeValue ?? '', max);
      continue;
    }
    if (n.nodeType !== 1) continue;
    const e = n as Element;
    if (e !== el) {
      const tag = tagOf(e);
      if (SKIP_TAGS.has(tag) || isHiddenAttr(e) || isEditable(e) || e.classList.contains('headerlink') || (live && !rendered(e))) continue;
      if (!INLINE_TAGS.has(tag)) out += ' ';
    }
    for (let c = e.lastChild; c; c = c.previousSibling) stack.push(c);
  }
  // Permalink markers that are plain text ("¶", "#", "§", "🔗") at either end; Docusaurus's hash
  // link is a zero-width space.
  return cleanText(out.replace(ZERO_WIDTH, '')).replace(/^[¶#§🔗]\s*|\s*[¶#§🔗]$/gu, '').slice(0, max).trim();
}

/** A site's root: `/`, or its index page (`/index.html`), without a query. */
const SITE_ROOT = /^\/(?:index\.[a-z]{2,5})?$/i;

const hostKey = (u: URL) => u.host.toLowerCase().replace(/^www\./, '');
/** A path with its index page as its folder (`/docs/index.html` is `/docs/`). */
const folderPath = (path: string) => path.replace(/\/index\.[a-z]{2,5}$/i, '/');

/** Where a link points, without its fragment, `www.` and scheme: the same page whatever way it is written. */
function pageKey(u: URL): string {
  return `${hostKey(u)}${folderPath(u.pathname)}${u.search}`;
}

/**
 * Whether a heading names the site rather than the page: its whole text is one link, to a site's root
 * (`/`, `/index.html`, another host's root) that is not this page: 'root'; or to the home of the
 * project the page belongs to, a folder above the page on its own host (GitHub Pages'
 * `https://user.github.io/project/`, `https://example.org/docs/`): 'home'. Exim's specification opens
 * every chapter with `<h1><a href="https://www.exim.org/">Exim Internet Mailer</a></h1>` before the
 * content, which would head every section's path. A heading that links to its own page (a blog's
 * `<h1><a href="/this-post/">Title</a></h1>`, Exim's `<h2><a href="ch-acl.html">Chapter 43…</a></h2>`)
 * names the page and stays, as does any heading of the root page (or the project's home page) itself.
 * A folder above the page may also be a chapter the page is part of, whose heading can be the page's
 * own (`<h1><a href="../">Installing</a></h1>` over the text): the walk leaves out a 'home' heading only
 * when another heading follows it before any content. The walk asks this only before any content,
 * outside the main landmark.
 */
function namesSite(el: Element, text: string, pageUrl: string | undefined, live: boolean): 'root' | 'home' | null {
  if (!pageUrl) return null;
  let link: Element | null = null;
  for (const a of Array.from(el.querySelectorAll('a[href]'))) {
    // Permalink markers ("¶", "#") beside the heading's text are not its text.
    if (a.classList.contains('headerlink') || SHORT_MARK.test(a.textContent ?? '')) continue;
    if (link) return null;
    link = a;
  }
  if (!link || visibleText(link, text.length + 1, live) !== text) return null;
  let page: URL;
  let target: URL;
  try {
    page = new URL(pageUrl);
    const base = el.ownerDocument.querySelector('base[href]')?.getAttribute('href');
    target = new URL(link.getAttribute('href')!, base ? new URL(base, page) : page);
  } catch {
    return null;
  }
  if (!/^https?:$/.test(target.protocol) || target.search || pageKey(target) === pageKey(page)) return null;
  if (SITE_ROOT.test(target.pathname)) return 'root';
  // A folder above the page, on the page's own host.
  const home = folderPath(target.pathname);
  const at = folderPath(page.pathname);
  return home.endsWith('/') && hostKey(target) === hostKey(page) && at !== home && at.startsWith(home) ? 'home' : null;
}

/** The first child of `el` that is a block of its own (a paragraph, a list, a heading...), if any. */
function firstBlockChild(el: Element): Element | null {
  for (let c = el.firstElementChild; c; c = c.nextElementSibling) {
    const tag = tagOf(c);
    if ((BLOCK_TAGS.has(tag) && tag !== 'HGROUP') || HEADINGS[tag] || tag === 'PRE' || tag === 'TABLE') return c;
  }
  return null;
}

/** Visible text of the children of `el` before `stop`. */
function textBefore(el: Element, stop: Node, max: number, live: boolean): string {
  let out = '';
  for (let c = el.firstChild; c && c !== stop && out.length < max; c = c.nextSibling) {
    if (c.nodeType === 3) out += headingRead(c.nodeValue ?? '', max);
    else if (c.nodeType === 1) out += ' ' + visibleText(c as Element, max, live) + ' ';
  }
  return cleanText(out.replace(ZERO_WIDTH, '')).replace(/\s*[¶#§🔗]$/u, '').slice(0, max).trim();
}

const isEmptyMarker = (e: Element) => !e.firstElementChild && !(e.textContent ?? '').trim();

/** Permalink markers and their like: "¶", "#", "§", an icon, a zero-width space. */
const SHORT_MARK = /^[\s\u200b-\u200d\u2060\ufeff¶#§🔗]*$/u;

/** A link target that is no text of its own: `<a id="x"></a>`, `<a name="x">`, a "¶" permalink carrying an id. */
function markerId(e: Element): string | undefined {
  const id = e.id || (tagOf(e) === 'A' ? e.getAttribute('name') : null);
  if (!id) return undefined;
  return isEmptyMarker(e) || (tagOf(e) === 'A' && SHORT_MARK.test(e.textContent ?? '')) ? id : undefined;
}

/** Text that is no words: brackets, pipes, arrows, dots and spaces between the links of a navigation row. */
const NO_WORDS = /^[\s\p{P}\p{S}]*$/u;

/**
 * A row of navigation links laid out as a small table: every word in it is a link's, and there are two
 * links at least. texi2any (GNU Texinfo 6) opens every node with one
 * (`<table class="header">[ << ] | [ < ] | [ Up ] | [ > ] | [ >> ] | [Top] | [Contents]`), inside the
 * section's `<div class="section" id>`, between the wrapper's id and its heading; nothing names it as
 * navigation. It is no content to index, and its heading still opens the wrapper. At most 3 rows and 400
 * characters: a longer table of links (a chapter's menu, a table of contents) is the page's own.
 */
export function isLinkRow(e: Element): boolean {
  if (tagOf(e) !== 'TABLE') return false;
  // Stops at the first word outside a link or past any limit: a large table costs a few nodes, not a read
  // of all its text.
  let links = 0;
  let rows = 0;
  let chars = 0;
  let nodes = 0;
  let no = false;
  const visit = (n: Node) => {
    for (let c = n.firstChild; c && !no; c = c.nextSibling) {
      if (++nodes > 400) no = true;
      else if (c.nodeType === 3) {
        const v = c.nodeValue ?? '';
        chars += v.length;
        no = chars > 400 || !NO_WORDS.test(v);
      } else if (c.nodeType === 1) {
        const el = c as Element;
        const tag = tagOf(el);
        if (tag === 'TR' && ++rows > 3) no = true;
        else if (tag === 'A' && el.hasAttribute('href')) {
          const text = el.textContent ?? '';
          chars += text.length;
          no = chars > 400;
          if (!NO_WORDS.test(text) || el.querySelector('img')) links++;
        } else visit(el);
      }
    }
  };
  visit(e);
  return !no && links >= 2;
}

/**
 * A language switcher: a block whose links lead to the page in other languages (`hreflang`, which HTML
 * defines for exactly that) with a short label and separators around them: httpd's "Langues Disponibles:
 * de | en | fr | ja" above and below every page of its manual, a blog's "English · Deutsch". It names
 * languages, not the page's subject: "langue" matched 446 sections of httpd's French manual through it.
 * - One link at least with `hreflang`, two links at least, and no other link but one to the page itself
 *   (httpd links the page's own language without `hreflang`: a page in two languages has one of each).
 *   A list of translations with their translators' addresses, or a sentence that links a translation
 *   and something else, is content.
 * - No heading in it, and at most three words outside the links ("Also available in:"): a page's header
 *   that holds its title, date or summary next to its translations is not one (the candidates are up to
 *   three levels above each link).
 * - At most 200 nodes read.
 */
export function isLanguageSwitcher(e: Element, pageUrl?: string): boolean {
  let alternates = 0;
  let self = 0;
  let plain = '';
  let nodes = 0;
  let no = false;
  const here = pageUrl ? resolvedWithoutHash(pageUrl, pageUrl) : null;
  const visit = (n: Node) => {
    for (let c = n.firstChild; c && !no; c = c.nextSibling) {
      if (++nodes > 200) no = true;
      else if (c.nodeType === 3) {
        plain += ` ${c.nodeValue ?? ''}`;
        no = plain.length > 200 || measureWords(plain.replace(/[\p{P}\p{S}]+/gu, ' ')) > 3;
      } else if (c.nodeType === 1) {
        const el = c as Element;
        const tag = tagOf(el);
        if (HEADINGS[tag] !== undefined || el.getAttribute('role') === 'heading') no = true;
        else if (tag === 'A' && el.hasAttribute('href')) {
          if (el.hasAttribute('hreflang')) alternates++;
          else no = !here || ++self > 1 || resolvedWithoutHash(el.getAttribute('href')!, pageUrl!) !== here;
        } else visit(el);
      }
    }
  };
  visit(e);
  return !no && alternates >= 1 && alternates + self >= 2;
}

function withoutHash(url: string): string {
  const i = url.indexOf('#');
  return i < 0 ? url : url.slice(0, i);
}

function resolvedWithoutHash(href: string, base: string): string | null {
  try {
    return withoutHash(new URL(href, base).href);
  } catch {
    return null;
  }
}

/** Where a language switcher may be: the blocks up to three levels above a link with `hreflang`. */
function switcherCandidates(root: Element): Set<Element> | null {
  const links = root.querySelectorAll('a[hreflang]');
  if (!links.length) return null;
  const out = new Set<Element>();
  for (const a of Array.from(links).slice(0, 500)) {
    let p = a.parentElement;
    for (let depth = 0; p && depth < 3 && p !== root; depth++, p = p.parentElement) out.add(p);
  }
  return out;
}

/**
 * What may stand before a heading in its wrapper without the wrapper's id ceasing to be the heading's:
 * empty markers and short inline bits (rustdoc's "§" link and "1.0.0 · Source" line), not a block;
 * a row of navigation links (`isLinkRow`).
 */
function leadsIn(e: Element): boolean {
  if (isEmptyMarker(e) || isLinkRow(e)) return true;
  const tag = tagOf(e);
  return (INLINE_TAGS.has(tag) || SKIP_TAGS.has(tag)) && (e.textContent ?? '').trim().length <= 24;
}

/** Wrappers whose id names the heading they open. Landmarks and the page itself do not. */
const ID_WRAPPERS = /^(?:SECTION|DIV|ARTICLE|HEADER|HGROUP|LI|UL|OL|DL|DD|SUMMARY|DETAILS|SPAN)$/;

/** How many wrappers up a heading's id is looked for (DocBook: h2 in div > div > div.titlepage > div.sect1#id). */
const MAX_ID_DEPTH = 5;

/** Whether the elements after this marker, past other empty markers, begin with a heading. */
function leadsToHeading(marker: Element): boolean {
  let e = marker.nextElementSibling;
  for (let n = 0; e && n < 8 && isEmptyMarker(e); n++) e = e.nextElementSibling;
  return !!e && tagOf(e) in HEADINGS;
}

/**
 * The id a link can jump to for this heading, nearest first: its own; one inside it (DocBook's
 * `<h2><a name="x"></a>…`, MediaWiki's `<span class="mw-headline" id>`); a marker just before it or
 * before a wrapper it opens (Javadoc's `<a id="m(int)"></a><ul><li><h4>`), or the id of a wrapper it
 * opens (Sphinx `<section id>`, DocBook `div.sect1#id`, rustdoc `section#method.x`, Javadoc
 * `section.detail#id`); a permalink marker just after it (GitHub's `<a id="user-content-x">`) unless a
 * heading follows that marker (then it is that heading's); the
 * target of a "¶" link inside it.
 */
function headingId(el: Element): string | undefined {
  if (el.id) return el.id;
  const inner = el.querySelector('[id], a[name]');
  if (inner) return inner.id || inner.getAttribute('name') || undefined;
  let cur: Element = el;
  for (let depth = 0; ; depth++) {
    // Markers just before it, past lead-ins; a block before it means it opens nothing.
    let opens = true;
    for (let prev = cur.previousElementSibling; prev; prev = prev.previousElementSibling) {
      const id = markerId(prev);
      if (id) return id;
      if (!leadsIn(prev)) {
        opens = false;
        break;
      }
    }
    const parent = cur.parentElement;
    if (!opens || !parent || depth >= MAX_ID_DEPTH || !ID_WRAPPERS.test(tagOf(parent))) break;
    if (parent.id) return parent.id;
    cur = parent;
  }
  // Not a marker that leads into the next heading (Doxygen's `<h2 class="groupheader">Friends…</h2>
  // <a id="ae3c…"></a><h2 class="memtitle">◆ strcmp</h2>`): that one is the next heading's.
  const next = el.nextElementSibling;
  const after = next ? markerId(next) : undefined;
  if (after && !leadsToHeading(next!)) return after;
  // A permalink inside the heading ("¶" links) names the target even when it sits on a wrapper.
  const self = el.querySelector('a[href^="#"]')?.getAttribute('href')?.slice(1);
  if (self) {
    let target: string;
    try {
      target = decodeURIComponent(self);
    } catch {
      target = self;
    }
    if (el.ownerDocument.getElementById(target)) return target;
  }
  return undefined;
}

/**
 * What a `<details>` summary says when it names no content, only the toggle ("Click to expand", "Show
 * more", rustdoc's "Expand description" and "Show 40 variants", "Details"): no section heading. Leading
 * and trailing marks ("▶ Click to expand") aside.
 */
const TOGGLE_LABEL =
  /^(?:(?:click|tap|press)(?:\s+here)?(?:\s+(?:to|for))?(?:\s+\S+){0,4}|(?:expand|collapse|show|hide|toggle|reveal|view|see|read)(?:\s+\S+){0,3}|more(?:\s+\S+)?|details|spoilers?)$/i;

/** A `<details>` body needs this many words outside links (measureWords) for its summary to head a section. */
export const DETAILS_MIN_WORDS = 6;
/** How many words of a `<details>` body are read to judge it (its first ones: the walk reads the rest). */
const DETAILS_LOOK_WORDS = 60;
/** Headings and what marks a `<details>` as a menu or a tree rather than content. */
const HEADING_SELECTOR = 'h1, h2, h3, h4, h5, h6, [role="heading"]';
const MENU_SELECTOR = 'nav, [role="navigation"], [role="menu"], [role="menubar"], [role="tree"], [role="tablist"], [role="listbox"]';

/**
 * Words of a `<details>` body (all but `summary`), in and out of links: its first DETAILS_LOOK_WORDS or
 * so, past nothing a reader never sees by markup (scripts, hidden, aria-hidden, form controls).
 */
function detailsBodyWords(details: Element, summary: Element): { plain: number; linked: number } {
  const out = { plain: 0, linked: 0 };
  let nodes = 0;
  const visit = (n: Node, link: boolean) => {
    for (let c = n.firstChild; c && out.plain + out.linked < DETAILS_LOOK_WORDS && nodes < 2_000; c = c.nextSibling) {
      nodes++;
      if (c.nodeType === 3) {
        const w = measureWords(c.nodeValue ?? '');
        if (link) out.linked += w;
        else out.plain += w;
      } else if (c.nodeType === 1 && c !== summary) {
        const e = c as Element;
        const tag = tagOf(e);
        if (SKIP_TAGS.has(tag) || isHiddenAttr(e) || isEditable(e)) continue;
        const role = e.getAttribute('role');
        if (role && SKIP_ROLES.has(role) && !readOnlyTextbox(e, role)) continue;
        visit(e, link || tag === 'A');
      }
    }
  };
  visit(details, false);
  return out;
}

/** The id a link can jump to for a summary that heads a section: its own, one inside it, its `<details>`'s. */
function summaryId(summary: Element, details: Element): string | undefined {
  if (summary.id) return summary.id;
  const inner = summary.querySelector('[id], a[name]');
  return inner?.id || inner?.getAttribute('name') || details.id || undefined;
}

/**
 * A `<details>` whose summary heads a section of its own, one level below the heading it sits under: an
 * FAQ's question over its answer, MkDocs Material's collapsible notes ("??? question"), a README's
 * folded "Building on Windows". Each answer is then a section a result can link to, opened (see
 * `folded` on Block). Not when
 * - the summary holds a heading (rustdoc's method and impl toggles: that heading is the heading);
 * - it only names the toggle ("Click to expand", "Expand description": TOGGLE_LABEL);
 * - the body is a few words (DETAILS_MIN_WORDS) or mostly links (a menu, a table of contents), or the
 *   `<details>` sits in a menu or navigation;
 * - the body is too big to read (COLLAPSED_MAX_ELEMENTS: only the summary is kept, as before).
 */
function summaryHeading(details: Element, maxChars: number, live: boolean): { summary: Element; text: string; id?: string } | null {
  let summary: Element | null = null;
  for (let c = details.firstElementChild; c && !summary; c = c.nextElementSibling) if (tagOf(c) === 'SUMMARY') summary = c;
  if (!summary || summary.querySelector(HEADING_SELECTOR) || details.closest(MENU_SELECTOR)) return null;
  const text = visibleText(summary, maxChars, live);
  if (!text || TOGGLE_LABEL.test(text.replace(/^[\s\p{P}\p{S}]+|[\s\p{P}\p{S}]+$/gu, ''))) return null;
  const words = detailsBodyWords(details, summary);
  if (words.plain < DETAILS_MIN_WORDS || words.linked > words.plain) return null;
  const id = summaryId(summary, details);
  return { summary, text, ...(id ? { id } : {}) };
}

/** A class token naming a heading drawn without a heading element: `method-heading`, `entry_heading`, `heading`. */
const HEADING_CLASS = /(?:^|[-_])heading$/i;
/** Elements that are never such an entry: headings, definitions, summaries and what has its own handling. */
const NOT_ENTRY = new Set(['H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'DT', 'DD', 'DL', 'DETAILS', 'SUMMARY', 'TABLE', 'PRE', 'A', 'P', 'SPAN', 'UL', 'OL', 'LI', 'BODY', 'MAIN', 'ARTICLE', 'HEADER', 'FOOTER', 'NAV']);

/**
 * An entry that names something a link can jump to, drawn without a heading element: an element with an
 * id whose first children are short lines classed as headings. RDoc's Darkfish writes each method so
 * (`<div id="method-i-gsub" class="method-detail"><div class="method-heading"><span class="method-callseq">
 * gsub(pattern, replacement) → new_string</span></div>…`, one such line per call form), under one `h3`
 * "Public Instance Methods" for all of them: cut at headings only, 144 methods of String were stored as 42
 * sections all linked to that `h3`, and a search for `gsub` landed 57 methods above it (tests/eval/README.md,
 * session 39, the ruby corpus). Each entry is a section now, like a `dt` with an id (`isDefinitionTerm`):
 * its heading the lines joined, its link the entry's id. Not when the lines hold a heading element (that
 * heading is the section's), nor when they are long (over `maxChars` together: text, not a heading).
 */
function entryHeading(el: Element, tag: string, maxChars: number, live: boolean): { lines: Element[]; text: string } | null {
  if (!el.id || NOT_ENTRY.has(tag)) return null;
  const lines: Element[] = [];
  for (let c = el.firstElementChild; c; c = c.nextElementSibling) {
    const cls = c.getAttribute('class');
    if (!cls || !cls.split(/\s+/).some((t) => HEADING_CLASS.test(t))) break;
    lines.push(c);
  }
  if (!lines.length || lines.some((c) => HEADINGS[tagOf(c)] !== undefined || c.querySelector(HEADING_SELECTOR))) return null;
  const text = lines
    .map((c) => visibleText(c, maxChars, live))
    .filter(Boolean)
    .join('; ');
  return text && text.length <= maxChars ? { lines, text } : null;
}

/**
 * The rows of a table itself (directly under it or under its `thead`, `tbody`, `tfoot`), not those of a
 * table inside one of its cells: that one is in its cell's text already. Read as rows again, a table nested
 * in a cell was stored twice, and a layout of tables nested 500 deep (an old forum's) 100 times over,
 * its whole text read again for every level (1.3 s in one task in Chromium, for 4,000 characters).
 */
function* ownRows(table: Element): Generator<Element> {
  for (let c = table.firstElementChild; c; c = c.nextElementSibling) {
    const tag = tagOf(c);
    if (tag === 'TR') yield c;
    else if (tag === 'THEAD' || tag === 'TBODY' || tag === 'TFOOT') for (let r = c.firstElementChild; r; r = r.nextElementSibling) if (tagOf(r) === 'TR') yield r;
  }
}

/**
 * A table as text, one row a line, cells joined by " | ". On the live page only rendered rows and cells
 * count, and a cell's text is its text as shown (`shownText`: what CSS hides inside it left out). Its first
 * 2,000 rows at most, read in the walk's slices (`pace`).
 */
async function tableText(table: Element, max: number, live: boolean, pace: () => Promise<void>, editors: ReadonlySet<Element> | null): Promise<string> {
  const rows: string[] = [];
  let len = 0;
  let seen = 0;
  for (const tr of ownRows(table)) {
    if (++seen > 2000) break;
    // Row by row in the walk's slices: 2,000 rows of 10 cells were one task of 300 ms (Chromium 156).
    await pace();
    if (isHiddenAttr(tr) || (live && !rendered(tr))) continue;
    const cells: string[] = [];
    for (const c of Array.from(tr.children)) {
      if (isHiddenAttr(c) || isEditable(c) || (live && !rendered(c))) continue;
      const t = cleanText(live ? shownText(c, max, editors) : markupText(c, max));
      if (t) cells.push(t);
    }
    if (!cells.length) continue;
    const row = cells.join(' | ');
    rows.push(row);
    len += row.length + 1;
    if (len > max) break;
  }
  return rows.join('\n').slice(0, max);
}

/**
 * The heading for a definition term. Sphinx writes a method as `removeprefix(prefix, /)` under its class;
 * people search for `str.removeprefix`, which is the term's id: the qualified name takes the short one's place.
 */
function termHeading(text: string, id: string): string {
  if (!/^[A-Za-z_][\w.]*\.\w+$/.test(id) || text.includes(id)) return text;
  // The longest tail of the id the text shows (`aifc.getnchannels` for `aifc.aifc.getnchannels`).
  const parts = id.split('.');
  for (let k = 1; k < parts.length; k++) {
    const tail = parts.slice(k).join('.');
    const at = text.search(new RegExp(`(?<![\\w.])${tail.replace(/\./g, '\\.')}(?!\\w)`));
    if (at >= 0) return text.slice(0, at) + id + text.slice(at + tail.length);
  }
  return text;
}

/** A definition entry that names something a link can jump to: `<dl><dt id="os.path.join">`. */
function isDefinitionTerm(el: Element, tag: string): boolean {
  return tag === 'DT' && !!el.id && el.parentElement?.tagName.toUpperCase() === 'DL';
}

interface Frame {
  el: Element;
  child: ChildNode | null;
  insideMain: boolean;
  block: boolean;
  /** Mirror element the children are copied into. */
  m: Node | null;
  /** For `main` landmarks: where its blocks start. */
  landmark?: { start: number; words: number };
  /** For DL frames: the heading that was current when the list opened, and the level of its last term. */
  dl?: { context: Block | null; termLevel: number };
  /** Heading level of the definition this frame sits in (0 outside definitions). */
  defLevel: number;
  /**
   * The entry this frame sits in (`entryHeading`): its heading level, and how many levels its heading
   * elements are moved (set by the first): they go below it whatever their own levels, keeping their order
   * among themselves (File.new's "Examples", an h3, is File.new's, not a sibling of the "Public Class
   * Methods" h3 its entry sits under; IO.new's h2 "Open Mode" and h3 "IO Open Mode" stay one above the other).
   */
  entry?: { level: number; shift?: number };
  /** Inside a link. */
  link?: boolean;
  /** A closed `<details>` too big to read (`collapsedTooBig`): only this child of it (its summary) is walked. */
  only?: Element | null;
  /** A `<details>` whose summary heads a section (`summaryHeading`): that summary, not walked again. */
  skip?: Element;
  /** An entry whose first lines head a section (`entryHeading`): those lines, not walked again. */
  skipLines?: readonly Element[];
  /** And the section it sits in, which goes on after it: the heading and level before it. */
  details?: { context: Block | null; lastLevel: number; start: number };
}

/** Walks `root` into blocks. Runs in slices of `sliceMs`, awaiting `yieldToPage` between them. */
export async function walkBlocks(root: Element, opts: WalkOptions): Promise<WalkResult> {
  const now = opts.now ?? (() => performance.now());
  const sliceMs = opts.sliceMs ?? 5;
  const limits = { ...EXTRACT_LIMITS, ...opts.limits };
  const live = opts.checkVisibility;
  const view = live ? root.ownerDocument.defaultView : null;
  const viewportArea = view ? view.innerWidth * view.innerHeight : 0;
  let mirror: Document | null = opts.mirror ?? null;
  let mirrorElements = 0;

  const blocks: Block[] = [];
  const linkShare: number[] = [];
  const mains: Landmark[] = [];
  let chars = 0;
  let words = 0;
  let nodes = 0;
  let elements = 0;
  let truncated = false;
  let contentsLeft = 0;
  /** A block other than a heading has been kept: the content has begun (see `namesSite`). */
  let content = false;
  /**
   * A heading that links to the project's home (`namesSite` 'home'), the last block kept: left out if a
   * heading follows it (it names the site above the page's own heading), kept if content does.
   */
  let siteHeading: { words: number; m: Node | null } | null = null;
  const pageUrl = opts.url ?? (live ? root.ownerDocument.URL : undefined);
  let buffer = '';
  let bufferLinkChars = 0;
  let bufferKind: BlockKind = 'text';
  let pendingId: string | undefined;
  let lastLevel = 0;
  /** The innermost heading so far (a real one or a definition term). */
  let context: Block | null = null;
  /** Set when a definition list ends: the enclosing section goes on if text follows. */
  let reopen: Block | null = null;
  /** The re-opened heading was closed inside the element just over: re-opened before a heading below it too. */
  let reopenClosed = false;
  let sliceStart = now();
  /** Yields to the page when the slice is over, inside what is read whole (a table's rows; the walk checks between nodes). */
  const pace = async () => {
    if (opts.yieldToPage && now() - sliceStart > sliceMs) {
      await opts.yieldToPage();
      sliceStart = now();
    }
  };

  const push = (b: Block) => {
    if (siteHeading) {
      const site = siteHeading;
      siteHeading = null;
      if (b.kind === 'heading') {
        const dropped = blocks.pop()!;
        linkShare.pop();
        chars -= dropped.text.length;
        words -= site.words;
        site.m?.parentNode?.removeChild(site.m);
        // A landmark that began after it counted it in neither its blocks nor its words.
        for (const f of stack) {
          if (f.landmark && f.landmark.start > blocks.length) {
            f.landmark.start--;
            f.landmark.words -= site.words;
          }
        }
      }
    }
    // A heading below the re-opened one (the next entry, the next summary) sits in it: re-opened first when
    // a heading inside the element just over closed it (File.new's description has an h3 "Examples", the
    // level of the "Public Class Methods" all File's methods sit in). One at its level or above closes it anyway.
    if (reopen && (b.kind !== 'heading' || (reopenClosed && (b.level ?? 2) > (reopen.level ?? 2)))) {
      const r = reopen;
      reopen = null;
      push(r);
    }
    if (b.kind === 'heading') reopen = null;
    const room = Math.min(limits.maxBlockChars, limits.maxChars - chars);
    if (blocks.length >= limits.maxBlocks || room <= 0) {
      truncated = true;
      return;
    }
    if (b.text.length > room) {
      b.text = b.text.slice(0, room);
      truncated = true;
    }
    chars += b.text.length;
    words += measureWords(b.text);
    // Past Readability's word limit the copy is of no use (readabilityWorthIt): it is not built further.
    // Building it cost a large page tens of milliseconds in one task (a table's copy is made row by row in
    // one go). The margin: a heading that names the site, left out later, takes its words back.
    if (mirror && words > limits.readabilityMaxWords + limits.maxHeadingChars) mirror = null;
    if (b.kind !== 'heading') content = true;
    blocks.push(b);
    linkShare.push(b.kind === 'text' || b.kind === 'list' ? Math.min(1, bufferLinkChars / Math.max(1, buffer.length)) : 0);
  };
  const flush = () => {
    if (!buffer) return;
    const text = cleanText(buffer);
    if (text) push({ kind: bufferKind, text, ...(pendingId ? { id: pendingId } : {}) });
    buffer = '';
    bufferLinkChars = 0;
    if (!text) return;
    pendingId = undefined;
    bufferKind = 'text';
  };
  const addText = (s: string) => {
    // Never hold more than a block's worth: a 10 MB text node is cut, not copied around.
    if (buffer.length < limits.maxBlockChars) buffer += s.length > limits.maxBlockChars ? s.slice(0, limits.maxBlockChars) : s;
  };
  const mirrorAdd = (parent: Node | null, tag: string, el: Element | null, text?: string): Node | null => {
    if (!mirror || !parent) return null;
    if (++mirrorElements > limits.readabilityMaxElements) {
      mirror = null; // too big for Readability's one synchronous call: it will not run
      return null;
    }
    let m: Element;
    try {
      m = mirror.createElement(tag);
    } catch {
      m = mirror.createElement('div');
    }
    if (el) {
      for (const a of ['id', 'class', 'role']) {
        const v = el.getAttribute(a);
        if (v) m.setAttribute(a, v);
      }
      // Whether a <details> is open (its summary's section links differently: Block.folded).
      if (tag === 'details' && el.hasAttribute('open')) m.setAttribute('open', '');
      if (tag === 'a') {
        const href = el.getAttribute('href');
        if (href) m.setAttribute('href', href);
      }
    }
    if (text !== undefined) m.textContent = text;
    parent.appendChild(m);
    return m;
  };

  const switchers = switcherCandidates(root);
  const editors = live ? typedElsewhereRegions(root) : null;
  const typed: string[] = [];
  const noteTyped = (el: Element, tag: string): void => {
    if (!live || typed.length >= TYPED_MAX_FIELDS) return;
    const v = typedValue(el, tag);
    if (v) typed.push(v);
  };
  const skipped = (el: Element, tag: string, insideMain: boolean): boolean => {
    if (SKIP_TAGS.has(tag)) return true;
    if (editors?.has(el)) return true;
    // Outside the main content these are the site's header and sidebars; inside it, the article's own
    // header and its footnotes or call-outs.
    const role = el.getAttribute('role');
    if ((tag === 'HEADER' || tag === 'ASIDE' || role === 'complementary') && !insideMain) return true;
    if (isHiddenAttr(el) || el.getAttribute('aria-modal') === 'true') return true;
    if (role && SKIP_ROLES.has(role) && !readOnlyTextbox(el, role)) return true;
    if (isEditable(el)) {
      noteTyped(el, tag);
      return true;
    }
    // Inside the main content too: texi2any repeats it before every section.
    if (tag === 'TABLE' && isLinkRow(el)) return true;
    if (switchers?.has(el) && isLanguageSwitcher(el, pageUrl)) return true;
    if (!insideMain) {
      // A section's, a heading's or an anchor's id is usually made from the heading's words
      // ("import-related-module-attributes", AsciiDoc's `<h4 id="_footer">Footer</h4>`): not a hint.
      const cls = el.getAttribute('class');
      const id = tag === 'SECTION' || tag === 'A' || HEADINGS[tag] !== undefined ? '' : el.id;
      if ((cls && BOILERPLATE.test(cls) && !textSidebar(el, cls)) || (id && BOILERPLATE.test(id))) return true;
      if (namesNavigation(el, tag, cls, id)) return true;
      if (!opts.keepContents && namesContents(cls, id) && (sidebarContents(el, tag) || contentsOfThisPage(el, tag, pageUrl))) {
        contentsLeft++;
        return true;
      }
    }
    if (live) {
      if (!rendered(el)) return true;
      const position = INLINE_TAGS.has(tag) ? '' : view?.getComputedStyle(el).position;
      if (position === 'fixed' || position === 'absolute') {
        const r = el.getBoundingClientRect();
        // Fixed overlays (cookie and chat banners, sticky bars) that cover part of the screen.
        if (position === 'fixed' && !insideMain && r.width * r.height < viewportArea * 0.5) return true;
        if (offPage(r, view!)) return true;
      }
    }
    return false;
  };

  const mirrorRoot = mirror ? mirror.body : null;
  const stack: Frame[] = [{ el: root, child: root.firstChild, insideMain: false, block: true, m: mirrorRoot, defLevel: 0 }];
  // Explicit stack instead of recursion: deeply nested hostile markup must not overflow the call stack.
  while (stack.length) {
    if (truncated || nodes > limits.maxNodes) {
      truncated = true;
      break;
    }
    if (opts.yieldToPage && now() - sliceStart > sliceMs) {
      await opts.yieldToPage();
      sliceStart = now();
    }
    const frame = stack[stack.length - 1]!;
    const node = frame.child;
    if (!node) {
      stack.pop();
      if (frame.block) flush();
      if (frame.landmark) mains.push({ start: frame.landmark.start, end: blocks.length, words: words - frame.landmark.words });
      if (frame.details) {
        // The <details> is over: what follows belongs to the section around it again (re-opened by its
        // heading's id; a heading without one opens a section of the same path, linked by its own words).
        context = frame.details.context;
        lastLevel = frame.details.lastLevel;
        reopen = context ? { ...context } : null;
        const level = context?.level ?? 0;
        reopenClosed = false;
        for (let i = frame.details.start; i < blocks.length && !reopenClosed; i++) if (blocks[i]!.kind === 'heading' && (blocks[i]!.level ?? 2) <= level) reopenClosed = true;
      }
      if (frame.dl?.termLevel) {
        // The definitions are over: what follows belongs to the section around the list again.
        context = frame.dl.context;
        reopen = context?.id ? { ...context } : null;
        reopenClosed = false;
      }
      continue;
    }
    frame.child = node.nextSibling;
    nodes++;
    if ((frame.only !== undefined && node !== frame.only) || node === frame.skip || frame.skipLines?.includes(node as Element)) continue;
    if (node.nodeType === 3) {
      const v = node.nodeValue ?? '';
      if (frame.link) bufferLinkChars += v.trim().length;
      addText(v);
      // As much as the blocks keep: Readability reads the whole copy, and a 10 MB text node that counts as
      // one word (no spaces) passes its word limit.
      if (frame.m && mirror) frame.m.appendChild(mirror.createTextNode(v.length > limits.maxBlockChars ? v.slice(0, limits.maxBlockChars) : v));
      continue;
    }
    if (node.nodeType !== 1) continue;
    const el = node as Element;
    const tag = tagOf(el);
    if (skipped(el, tag, frame.insideMain)) continue;
    elements++;
    const role = el.getAttribute('role');
    const own = HEADINGS[tag] ?? (role === 'heading' ? Math.min(6, Math.max(1, Number(el.getAttribute('aria-level')) || 2)) : 0);
    const inEntry = own ? frame.entry : undefined;
    if (inEntry) inEntry.shift ??= inEntry.level + 1 - own;
    const level = inEntry ? Math.min(6, Math.max(inEntry.level + 1, own + inEntry.shift!)) : own;
    if (level) {
      flush();
      // An unclosed heading swallows the blocks after it (`<h1>Title<p>…`): the heading is its text
      // before the first block; the blocks are walked as content.
      const inner = firstBlockChild(el);
      const text = inner ? textBefore(el, inner, limits.maxHeadingChars, live) : visibleText(el, limits.maxHeadingChars, live);
      if (inner) stack.push({ el, child: inner, insideMain: frame.insideMain, block: true, m: frame.m, defLevel: frame.defLevel, ...(frame.entry ? { entry: frame.entry } : {}) });
      // The site's name above the page (a heading that is one link to the site's root) is no heading of
      // the page: left out, like a site header; one linking to the project's home, if a heading follows.
      const site = text && !content && !frame.insideMain ? namesSite(el, text, pageUrl, live) : null;
      if (site === 'root') continue;
      if (text) {
        const id = headingId(el);
        const b: Block = { kind: 'heading', level, text, ...(id ? { id } : {}) };
        push(b);
        // An id seen before the heading (its wrapper's, a marker) is not the id of what follows it.
        pendingId = undefined;
        lastLevel = level;
        context = b;
        const m = mirrorAdd(frame.m, `h${level}`, el, text);
        if (site === 'home' && blocks[blocks.length - 1] === b) siteHeading = { words: measureWords(b.text), m };
      }
      continue;
    }
    if (isDefinitionTerm(el, tag)) {
      flush();
      const text = termHeading(visibleText(el, limits.maxHeadingChars, live), el.id);
      if (text) {
        // `frame` is the list: one level below the heading (or definition) the list sits in.
        const termLevel = Math.min(6, (frame.defLevel || lastLevel) + 1);
        const b: Block = { kind: 'heading', level: termLevel, text, id: el.id };
        push(b);
        pendingId = undefined;
        context = b;
        if (frame.dl) frame.dl.termLevel = termLevel;
        mirrorAdd(frame.m, 'dt', el, text);
      }
      continue;
    }
    if (tag === 'PRE') {
      flush();
      // As shown: the lines of a `pre` kept, what CSS hides in it left out (`shownText`).
      const text = (live ? shownText(el, limits.maxBlockChars, editors) : markupText(el, limits.maxBlockChars)).slice(0, limits.maxBlockChars).replace(/\s+$/, '');
      if (text.trim()) push({ kind: 'code', text, ...(el.id ? { id: el.id } : pendingId ? { id: pendingId } : {}) });
      pendingId = undefined;
      mirrorAdd(frame.m, 'pre', el, text);
      continue;
    }
    if (tag === 'TABLE') {
      flush();
      const text = await tableText(el, limits.maxBlockChars, live, pace, editors);
      if (text) push({ kind: 'table', text, ...(el.id ? { id: el.id } : pendingId ? { id: pendingId } : {}) });
      pendingId = undefined;
      const t = mirrorAdd(frame.m, 'table', el);
      if (t && mirror) {
        for (const row of text.split('\n')) {
          const tr = t.appendChild(mirror.createElement('tr'));
          for (const cell of row.split(' | ')) tr.appendChild(mirror.createElement('td')).textContent = cell;
        }
      }
      continue;
    }
    if (tag === 'BR') {
      addText('\n');
      mirrorAdd(frame.m, 'br', null);
      continue;
    }
    const block = BLOCK_TAGS.has(tag);
    if (block) {
      flush();
      if (LIST_TAGS.has(tag)) bufferKind = 'list';
      else if (tag === 'BLOCKQUOTE') bufferKind = 'quote';
    } else if (!INLINE_TAGS.has(tag)) addText(' ');
    if (el.id && (block || !pendingId)) pendingId ??= el.id;
    const isMain = !frame.insideMain && (tag === 'MAIN' || role === 'main');
    // Too deep for Readability's one synchronous call (EXTRACT_LIMITS.readabilityMaxDepth): it will not run.
    if (mirror && stack.length > limits.readabilityMaxDepth) mirror = null;
    const child: Frame = {
      el,
      child: el.firstChild,
      insideMain: frame.insideMain || isMain || tag === 'ARTICLE',
      block,
      m: mirrorAdd(frame.m, tag.toLowerCase(), el),
      defLevel: frame.defLevel,
      link: frame.link || tag === 'A',
      ...(frame.entry ? { entry: frame.entry } : {}),
    };
    if (live && collapsedTooBig(el, tag)) {
      // Its summary stays; an until-found element has none (`only` null: nothing of it is walked).
      child.only = tag === 'DETAILS' ? (Array.from(el.children).find((c) => tagOf(c) === 'SUMMARY') ?? null) : null;
    }
    const summary = tag === 'DETAILS' && child.only === undefined ? summaryHeading(el, limits.maxHeadingChars, live) : null;
    if (summary) {
      // One level below the heading (or definition) it sits under; each answer of a FAQ is a section.
      const summaryLevel = Math.min(6, (frame.defLevel || lastLevel) + 1);
      child.details = { context, lastLevel, start: blocks.length };
      child.skip = summary.summary;
      // A closed one opens for a link only to something inside its body: the chunker links it by its
      // first words (Block.folded); an open one by the summary's id or text, as any heading.
      const b: Block = { kind: 'heading', level: summaryLevel, text: summary.text, ...(summary.id ? { id: summary.id } : {}), ...(el.hasAttribute('open') ? {} : { folded: true }) };
      push(b);
      pendingId = undefined;
      lastLevel = summaryLevel;
      context = b;
      mirrorAdd(child.m, 'summary', summary.summary, summary.text);
    }
    const entry = !summary && child.only === undefined ? entryHeading(el, tag, limits.maxHeadingChars, live) : null;
    if (entry) {
      // As a summary's: one level below the heading (or definition) it sits under, until the entry ends.
      const entryLevel = Math.min(6, (frame.defLevel || lastLevel) + 1);
      flush();
      child.details = { context, lastLevel, start: blocks.length };
      child.skipLines = entry.lines;
      child.entry = { level: entryLevel };
      const b: Block = { kind: 'heading', level: entryLevel, text: entry.text, id: el.id, entry: true };
      push(b);
      pendingId = undefined;
      lastLevel = entryLevel;
      context = b;
      mirrorAdd(child.m, `h${entryLevel}`, entry.lines[0]!, entry.text);
    }
    if (isMain) {
      child.landmark = { start: blocks.length, words };
      // The page says where its content is: Readability will not be needed.
      mirror = null;
      child.m = null;
    }
    if (tag === 'DL') child.dl = { context, termLevel: 0 };
    // Inside the description of a definition, nested terms go one level deeper.
    if (tag === 'DD' && frame.dl?.termLevel) child.defLevel = frame.dl.termLevel;
    stack.push(child);
  }
  flush();
  if (live) {
    // Every text field, hidden ones too: GitHub's comment box hides its textarea while its Preview tab
    // shows the draft. (A tag's list: 4 ms the first time on a page of 160,000 elements, Chromium 156.)
    for (const tag of ['textarea', 'input'] as const) {
      const fields = root.getElementsByTagName(tag);
      for (let i = 0; i < fields.length && typed.length < TYPED_MAX_FIELDS; i++) {
        const v = typedValue(fields[i]!, tag.toUpperCase());
        if (v) typed.push(v);
      }
    }
    for (const e of editors ?? []) if (typed.length < TYPED_MAX_FIELDS) typed.push(e.textContent ?? '');
  }
  return { blocks, words, truncated, nodes, elements, mains, mirror, linkShare, contentsLeft, typed };
}

/**
 * Whether Readability is worth its one synchronous call here: a small page (see EXTRACT_LIMITS) that is
 * not mostly links. On a page of links (an index, a table of contents) Readability finds no article,
 * and its link-density passes made it the slowest call measured (over 100 ms on a 400-word page).
 */
export function readabilityWorthIt(walk: WalkResult, limits = EXTRACT_LIMITS): boolean {
  if (!walk.mirror || walk.words === 0 || walk.words > limits.readabilityMaxWords) return false;
  let chars = 0;
  let linked = 0;
  walk.blocks.forEach((b, i) => {
    chars += b.text.length;
    linked += b.text.length * (walk.linkShare[i] ?? 0);
  });
  return linked <= chars * 0.5;
}

/** The blocks of the page's main landmark, when it holds most of the visible text. */
export function mainLandmark(walk: WalkResult): { blocks: Block[]; words: number } | null {
  const best = [...walk.mains].sort((a, b) => b.words - a.words)[0];
  if (!best || best.words < 20 || best.words < walk.words * MAIN_MIN_SHARE) return null;
  return { blocks: walk.blocks.slice(best.start, best.end), words: best.words };
}

/** Blocks that are neither prose nor links the forward span may cross to reach more prose. */
const SPAN_BRIDGE = 4;
/** Past SPAN_BRIDGE, up to this many blocks while they hold at most SPAN_LONG_BRIDGE_WORDS words and no heading. */
const SPAN_LONG_BRIDGE = 12;
const SPAN_LONG_BRIDGE_WORDS = 30;
/** The most words of the one linked paragraph the forward span may cross (`articleSpan`). */
const SPAN_LINKED_WORDS = 25;

/** Prose rather than navigation: a few words at least, ending like a sentence, mostly not links. */
function isProse(b: Block, linkShare: number): boolean {
  if (b.kind === 'code' || b.kind === 'table' || b.kind === 'quote') return true;
  return linkShare < 0.3 && measureWords(b.text) >= 8 && /[.!?:;)。！？」]$/u.test(b.text);
}

/**
 * Readability as a boundary finder: the cleaned body's blocks from the first to the last one Readability
 * kept, widened over the prose right around them (and a heading just before). Readability drops code
 * samples, notes, tables and stray paragraphs of reference pages; this keeps them while still leaving
 * out the navigation and link lists before and after the article.
 */
export function articleSpan(walk: Pick<WalkResult, 'blocks' | 'linkShare'>, article: readonly Block[], title = ''): { blocks: Block[]; words: number } | null {
  const body = walk.blocks;
  const kept = new Set(article.map((b) => b.text));
  let first = -1;
  let last = -1;
  let matched = 0;
  body.forEach((b, i) => {
    if (!kept.has(b.text)) return;
    matched++;
    if (first < 0) first = i;
    last = i;
  });
  // Readability rewrote the blocks too much to line them up: no span.
  if (first < 0 || matched < article.length * 0.3) return null;
  const prose = (i: number) => isProse(body[i]!, walk.linkShare[i] ?? 0);
  const heading = (i: number) => body[i]!.kind === 'heading';
  // Forward, the span also crosses a short run of blocks that are not prose but not links either (a
  // heading, definition-list terms such as "gitk --all -- Makefile", a line ending in a colon, list
  // items) when prose follows the run: reference pages put whole sections in that shape, and
  // Readability drops them (measured: gitk's Examples, Files and History). Link lists stop it.
  // What the run leads to may lack a full stop (a definition's "Show the changes … to the file gitk"),
  // but it is a sentence's worth of words that are not links.
  // The run may also hold one short paragraph that is mostly a link, when prose (a full sentence) follows
  // it: a footnote that only cites a page ("[23] See GNU Coding Standards: 7.2.4 DESTDIR.") between
  // footnotes that explain (measured: every later footnote of a DocBook chapter was lost). A list of
  // links (navigation), or two linked paragraphs, still stops it.
  const plain = (i: number) => (walk.linkShare[i] ?? 0) < 0.3;
  const linkedLine = (i: number) => body[i]!.kind === 'text' && measureWords(body[i]!.text) <= SPAN_LINKED_WORDS;
  const proseWithin = (from: number): boolean => {
    let linked = false;
    let words = 0;
    let headed = false;
    for (let i = from; i < Math.min(body.length, from + SPAN_LONG_BRIDGE + 1); i++) {
      // Past SPAN_BRIDGE blocks only while they stay short and under no heading of their own (a FAQ's
      // "Archive-Name: … Last-Modified: …" header, not a "Tags" section's list of words).
      if (i - from > SPAN_BRIDGE && (words > SPAN_LONG_BRIDGE_WORDS || headed)) return false;
      if (heading(i)) headed = true;
      words += measureWords(body[i]!.text);
      if (!plain(i)) {
        if (linked || !linkedLine(i)) return false;
        linked = true;
        continue;
      }
      if (prose(i) || (!linked && body[i]!.kind !== 'heading' && measureWords(body[i]!.text) >= 8)) return true;
    }
    return false;
  };
  // Backward, a span that does not start at a heading yet also crosses a short run of plain blocks
  // that are not prose (a "Table of Contents" label, a byline) to reach the heading just before them:
  // the heading of the section the article opens in. Readability drops a heading that repeats the
  // page's title (DocBook's `<h1><a id="build"></a>Chapter 6. …</h1>`), and without it the
  // chapter's introduction has no heading and no id to link to. Link lists stop it.
  const headingWithin = (from: number): number => {
    for (let i = from; i >= Math.max(0, from - SPAN_BRIDGE); i--) {
      if (heading(i)) return i;
      if (!plain(i) || prose(i)) return -1;
    }
    return -1;
  };
  // Backward, whether the span starts at a heading or not, it also reaches a heading that names the
  // page (its text and the document's title, one a prefix of the other) across a short run of plain
  // blocks, headings and prose included: the page's own title block. AsciiDoc man pages keep theirs in
  // `<div id="header">` (`<h1>git-ls-tree(1) Manual Page</h1>`, NAME, the one-line summary), which
  // Readability drops whole (its id reads as page chrome): without this, 61 of git's pages lost their
  // summary line and their h1. A site's own heading above a post names the site, not the page, and a
  // list of links (navigation) between stops it.
  const named = titleKey(title);
  const titleHeadingWithin = (from: number): number => {
    if (!named) return -1;
    for (let i = from; i >= Math.max(0, from - SPAN_BRIDGE); i--) {
      if (!plain(i)) return -1;
      if (heading(i) && namesPage(titleKey(body[i]!.text), named)) return i;
    }
    return -1;
  };
  // Backward, as forward: across a run of short plain list items (no links, no heading) to the prose
  // before them. A section that introduces a list ("The Calculator has the following tools:" and
  // nine one-word items) is dropped by Readability, and the span stopped at its last item: KiCad's
  // pcb_calculator lost its whole "1. Introduction" once its table of contents was left out.
  const listRunBefore = (from: number): number => {
    let words = 0;
    for (let i = from; i >= Math.max(0, from - SPAN_LONG_BRIDGE); i--) {
      if (!plain(i)) return -1;
      // To the sentence that introduces the list, right under its section's heading, only: a list right
      // under a heading may be a site's tags under its name, and a sentence in the middle of a section
      // would start the span there (git-imap-send's options: its NAME, SYNOPSIS and DESCRIPTION were
      // lost when the span, so widened, outgrew the share that picks it over the whole body).
      if (prose(i)) return i < from && i > 0 && heading(i - 1) ? i : -1;
      if (body[i]!.kind !== 'list') return -1;
      words += measureWords(body[i]!.text);
      if (words > SPAN_LONG_BRIDGE_WORDS) return -1;
    }
    return -1;
  };
  for (;;) {
    if (last + 1 < body.length && (prose(last + 1) || proseWithin(last + 1))) last++;
    else if (first > 0 && (prose(first - 1) || heading(first - 1))) first--;
    else if (first > 0 && listRunBefore(first - 1) >= 0) first = listRunBefore(first - 1);
    else if (first > 0 && !heading(first) && headingWithin(first - 1) >= 0) first = headingWithin(first - 1);
    else if (first > 0 && titleHeadingWithin(first - 1) >= 0) first = titleHeadingWithin(first - 1);
    else break;
  }
  const blocks = body.slice(first, last + 1);
  return { blocks, words: blocks.reduce((n, b) => n + measureWords(b.text), 0) };
}

/**
 * Gives the headings of Readability's article the ids the page's own headings have (matched by text, in
 * document order). The copy Readability reads holds a heading's text only, so an id found inside the heading
 * or in a marker before it (`<h1><a class="anchor" id="knowproblems">`: Doxygen, DocBook, MediaWiki,
 * Node's "#" links) is not in the article, which then links the section by its text or by a wrapper that
 * Readability made the heading's. The ids are not put on the copy itself: Readability reads ids as hints
 * ("social…", "header…", "menu…" mark a block unlikely to be content) and would drop such headings.
 */
export function headingIdsFromPage(article: Block[], page: readonly Block[]): void {
  const headings = page.filter((b) => b.kind === 'heading');
  if (!headings.some((b) => b.id)) return;
  // In document order: each article heading takes the next page heading with its text, so a heading
  // text used twice ("Examples") gets the id of its own place.
  let at = 0;
  for (const b of article) {
    if (b.kind !== 'heading') continue;
    let j = at;
    while (j < headings.length && headings[j]!.text !== b.text) j++;
    if (j === headings.length) continue;
    if (headings[j]!.id) b.id = headings[j]!.id;
    at = j + 1;
  }
}

/** A title or heading as compared for `namesPage`: lower case, spaces collapsed. */
function titleKey(text: string): string {
  return text.toLowerCase().replace(/\s+/g, ' ').trim();
}

/**
 * Whether a heading names the page titled `title` (both `titleKey`s): the same text, or one starts
 * with the other at a word boundary and the shorter holds at least 8 characters ("git-ls-tree(1)" and
 * "git-ls-tree(1) Manual Page"; "Python" alone is not the title of "Python Tutorial").
 */
function namesPage(heading: string, title: string): boolean {
  if (heading === title) return heading.length > 0;
  const [short, long] = heading.length < title.length ? [heading, title] : [title, heading];
  return short.length >= 8 && long.startsWith(short) && /[\s\p{P}]/u.test(long[short.length]!);
}

export interface MainContent {
  blocks: Block[];
  words: number;
  method: 'readability' | 'merged' | 'body';
}

/**
 * The page's main content out of the cleaned walk: its `main` landmark when that holds most of the
 * text; else, on pages where it is worth it (and when `readability` is allowed), Readability's article
 * widened by `articleSpan`, kept when it holds most of the text; else the whole cleaned body. The content
 * script and the evaluation (tests/eval, over linkedom) both call this.
 */
export async function mainContent(cleaned: WalkResult, opts: { title: string; readability: boolean; yieldToPage?: () => Promise<void> }): Promise<MainContent> {
  const main = mainLandmark(cleaned);
  if (main) return { blocks: main.blocks, words: main.words, method: 'body' };
  if (opts.readability && cleaned.mirror && readabilityWorthIt(cleaned)) {
    if (opts.yieldToPage) await opts.yieldToPage();
    cleaned.mirror.title = opts.title;
    const article = await readabilityBlocks(cleaned.mirror, opts.yieldToPage);
    if (article) {
      headingIdsFromPage(article.blocks, cleaned.blocks);
      // What Readability dropped inside the article (code, notes, tables) comes back from the body.
      const span = articleSpan(cleaned, article.blocks, opts.title);
      const pick = span && span.words > article.words ? { ...span, method: 'merged' as const } : { ...article, method: 'readability' as const };
      if (pick.words >= cleaned.words * READABILITY_MIN_SHARE) return { blocks: pick.blocks, words: pick.words, method: pick.method };
    }
  }
  return { ...withoutLeadingLinkRows(cleaned), method: 'body' };
}

/** A block this much link text, or more, is a row of links (`WalkResult.linkShare`). */
const LINK_ROW_SHARE = 0.6;
/** A link row longer than this (words) is left: a list of links that long may be the page's own. */
const LINK_ROW_MAX_WORDS = 40;

/**
 * The whole cleaned body, without the short rows of links before its first heading: on a page with
 * neither a main landmark nor an article Readability finds, the site's menu and breadcrumb ("Modules |
 * Directives | FAQ | Glossary | Sitemap", "Apache > HTTP Server > Documentation > Modules") were stored as
 * the page's first section, under names nothing marks as navigation (`div#page-header`, `div#path`).
 * Before the first heading such a row is never what the page is about; after it, it may be (a "See also"
 * line), and it stays.
 */
export function withoutLeadingLinkRows(walk: Pick<WalkResult, 'blocks' | 'words' | 'linkShare'>): { blocks: Block[]; words: number } {
  const first = walk.blocks.findIndex((b) => b.kind === 'heading');
  if (first <= 0) return { blocks: walk.blocks, words: walk.words };
  const row = (b: Block, i: number) => (b.kind === 'text' || b.kind === 'list') && (walk.linkShare[i] ?? 0) >= LINK_ROW_SHARE && measureWords(b.text) <= LINK_ROW_MAX_WORDS;
  let words = walk.words;
  const blocks = walk.blocks.filter((b, i) => {
    if (i >= first || !row(b, i)) return true;
    words -= measureWords(b.text);
    return false;
  });
  return { blocks, words };
}

/** The title a capture is filed under: the document's, else the first heading's, else `fallback` (the host). */
export function pageTitle(documentTitle: string, blocks: readonly Block[], fallback: string): string {
  return (documentTitle || '').trim() || blocks.find((b) => b.kind === 'heading')?.text || fallback;
}

export interface ReadabilityResult {
  blocks: Block[];
  words: number;
  title: string;
  /** Milliseconds of the synchronous Readability call. */
  ms: number;
}

/** Readability over the sanitised copy (never the live page), then the same walk over its article. */
export async function readabilityBlocks(mirror: Document, yieldToPage?: () => Promise<void>): Promise<ReadabilityResult | null> {
  let article: { content?: string | null; title?: string | null } | null;
  // Readability parses again (up to four times) while its article is shorter than charThreshold: on a
  // short page of links that is four passes for nothing. Ask for no more than a quarter of the text.
  const chars = mirror.body?.textContent?.length ?? 0;
  const charThreshold = Math.max(100, Math.min(500, Math.floor(chars / 4)));
  // The page's own link targets (the copy keeps them). Readability adds ids of its own
  // ("readability-page-1") that a link into the page must never use.
  const pageIds = new Set<string>();
  for (const e of Array.from(mirror.querySelectorAll('[id], a[name]'))) pageIds.add(e.id || e.getAttribute('name') || '');
  const t = performance.now();
  try {
    article = new Readability(mirror, { keepClasses: false, charThreshold }).parse();
  } catch {
    return null;
  }
  const ms = performance.now() - t;
  if (!article?.content) return null;
  if (yieldToPage) await yieldToPage();
  // DOMParser documents are inert: no scripts run, nothing loads.
  const parsed = new DOMParser().parseFromString(article.content, 'text/html');
  const res = await walkBlocks(parsed.body, { checkVisibility: false, ...(yieldToPage ? { yieldToPage } : {}) });
  for (const b of res.blocks) if (b.id && !pageIds.has(b.id)) delete b.id;
  return { blocks: res.blocks, words: res.words, title: article.title ?? '', ms };
}
