/**
 * Ground truth from the HTML itself, independent of Reread's extractor (content/extract.ts) and chunker:
 * the page's heading sections, where each link target lands, and the prose a query can be copied from.
 *
 * The rule (tests/eval/README.md, "Ground truth"):
 * - A section starts at a content heading (h1–h6 outside the excluded regions below) and runs to the next
 *   one. Text belongs to the nearest preceding content heading. RDoc's methods count as headings: a
 *   `<div class="method-detail" id>` (Darkfish) starts a section one level below the heading before it,
 *   headed by the text of its `div.method-heading`s (the call-seq lines), its id landing on it.
 * - A link `page#id` lands where the element with that id (or `<a name>`, first in document order) is:
 *   on the heading it is or is inside; else on the next content heading when no text lies between the
 *   element's start and that heading (an empty `<a id>`/`<span id>` just before the heading, a
 *   `<section id>` or `<div class="section" id>` wrapper), or only navigation when the element wraps that
 *   heading (texi2any's `<div class="section" id>` opens with a row of navigation links); else in the
 *   section of the nearest preceding
 *   content heading (an id on a definition, a table, a paragraph). Ids inside excluded regions land on
 *   no section.
 * - A text fragment `page#:~:text=words` lands where the words first occur in the page's text
 *   (case-insensitive, at word boundaries, whitespace collapsed), the whole page searched as a browser
 *   does, tables of contents included.
 * - Excluded regions (navigation, not content): <nav>, <header> with a role of banner, <footer>, <aside>,
 *   tables of class header and elements of class nav-panel (texi2any), and elements whose class is one of sphinxsidebar, related, footer, navheader, navfooter, docnav (Publican), toc, or id
 *   toc / footer. Their text is searchable by a text fragment, but they hold no heading and no
 *   paragraph of the ground truth.
 */
import { parseDocument } from './dom.js';

export interface GtSection {
  index: number;
  level: number;
  /** Heading text, whitespace collapsed, pilcrows (¶) and icon-font glyphs (private-use characters: the
   * permalink icon of MkDocs' default theme) removed, and a permalink mark at either end (a "#", "§" or "🔗"
   * link: Node's and MkDocs' headings; Darkfish's "↑" link to the page's top at its end) left out: the heading's words,
   * as a reader would type them. */
  heading: string;
  /** Ids that land on this heading (see the rule), in document order. */
  headingIds: string[];
  /** A stable reference within the page: its first heading id, else `h:` + heading text (+ `~n` when repeated). */
  key: string;
  /** Offsets in the page text: the heading's start, the next content heading's start. */
  start: number;
  end: number;
  /** The section's content text (excluded regions left out), heading first. */
  text: string;
  /** Text of each paragraph (<p>, Publican's <div class="para">) in the section, in order. */
  paragraphs: string[];
  /** Definition terms (<dt>) of the section: with the id a link can jump to, when they have one. */
  definitions: { term: string; id?: string; cls: string }[];
}

export interface GtPage {
  title: string;
  lang: string;
  /** The page's visible text, whitespace collapsed (what a text fragment searches). */
  text: string;
  sections: GtSection[];
  /** id -> section index it lands on (null: outside every section). First element with the id wins. */
  idLanding: Map<string, number | null>;
  /** Offsets of excluded regions in `text`. */
  excluded: [number, number][];
}

const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD', 'svg', 'SVG']);
const INLINE = new Set([
  'A', 'ABBR', 'B', 'BDI', 'BDO', 'BIG', 'CITE', 'CODE', 'DATA', 'DEL', 'DFN', 'EM', 'FONT', 'I', 'IMG', 'INS', 'KBD', 'LABEL',
  'MARK', 'NOBR', 'Q', 'S', 'SAMP', 'SMALL', 'SPAN', 'STRIKE', 'STRONG', 'SUB', 'SUP', 'TIME', 'TT', 'U', 'VAR', 'WBR',
]);
const HEADING = /^H([1-6])$/;
const EXCLUDED_TAGS = new Set(['NAV', 'FOOTER', 'ASIDE']);
// nav-panel: texi2any's navigation in Texinfo 7; docnav: Publican's Prev/Up/Home/Next rows.
const EXCLUDED_CLASSES = new Set(['sphinxsidebar', 'related', 'footer', 'navheader', 'navfooter', 'nav-panel', 'docnav', 'toc']);
const EXCLUDED_IDS = new Set(['toc', 'footer']);

function isExcluded(el: Element, tag: string): boolean {
  if (EXCLUDED_TAGS.has(tag)) return true;
  if (tag === 'HEADER' && el.getAttribute('role') === 'banner') return true;
  const role = el.getAttribute('role');
  if (role === 'navigation') return true;
  if (el.id && EXCLUDED_IDS.has(el.id)) return true;
  const cls = el.getAttribute('class');
  if (!cls) return false;
  const classes = cls.split(/\s+/);
  // texi2any's navigation: a table of class "header" (Texinfo 6; the class alone names no navigation).
  if (tag === 'TABLE' && classes.includes('header')) return true;
  return classes.some((c) => EXCLUDED_CLASSES.has(c));
}

/**
 * A wrapper that opens with its heading after at most this many characters (not counting spaces) of other text lands
 * on that heading: rustdoc's `<section id="method.is_ipv4"><span class="rightside">1.16.0 (const: 1.50.0) · source</span>…<h4>`,
 * floated beside the heading (the fixtures' resolveLinkSection allows the same lead-in, spaces counted).
 */
const LEAD_IN = 40;

export const collapse = (s: string): string => s.replace(/\s+/g, ' ').trim();
// A permalink mark at either end; RDoc's Darkfish closes every heading with "¶ ↑", the second a link back to the page's top.
export const headingText = (s: string): string => collapse(collapse(s.replace(/¶|\p{Co}/gu, '')).replace(/^[#§🔗]\s*|\s*[#§🔗↑]$/gu, ''));

/**
 * RDoc's Darkfish writes each method as `<div id="method-i-each" class="method-detail">` holding one
 * `<div class="method-heading">` per call-seq line (`array.each {|element| ... } → self`) and its description:
 * no heading element, so the rule treats it as one (see the module's comment).
 */
function isMethodDetail(el: Element, tag: string): boolean {
  return tag === 'DIV' && !!el.id && el.classList.contains('method-detail');
}

/** A Darkfish method's heading: the text of its `div.method-heading`s (not the "click to toggle source" advice). */
function methodHeading(el: Element): string {
  const parts: string[] = [];
  const text = (n: Node): string => {
    if (n.nodeType === 3) return n.nodeValue ?? '';
    if (n.nodeType !== 1) return '';
    const e = n as Element;
    if (SKIP.has(e.tagName) || SKIP.has(e.tagName.toUpperCase()) || e.classList.contains('method-click-advice')) return '';
    return Array.from(e.childNodes).map(text).join(INLINE.has(e.tagName.toUpperCase()) ? '' : ' ');
  };
  for (const c of Array.from(el.children)) if (c.classList.contains('method-heading')) parts.push(text(c));
  return headingText(parts.join(' '));
}

interface Pending {
  id: string;
  /** Ink (non-space characters so far) at the element's start. */
  ink: number;
  /** The same, counting content only (navigation left out). */
  contentInk: number;
  el: Element;
  /** Heading index it sits in, or -1. */
  inHeading: number;
  excluded: boolean;
}

/** Parses a page and derives its ground truth. */
export function groundTruth(html: string, fallbackLang = ''): GtPage {
  return groundTruthOf(parseDocument(html), fallbackLang);
}

export function groundTruthOf(doc: Document, fallbackLang = ''): GtPage {
  let acc = '';
  let ink = 0;
  let contentInk = 0;
  let lastSpace = true;
  const excluded: [number, number][] = [];
  const sections: (Omit<GtSection, 'text' | 'paragraphs' | 'end'> & { inkStart: number; contentInkStart: number; el: Element; textParts: string[]; paragraphs: string[] })[] = [];
  const ids: Pending[] = [];
  const seenIds = new Set<string>();
  let current = -1;
  let lastHeadingLevel = 0;

  const sep = () => {
    if (!lastSpace) {
      acc += ' ';
      lastSpace = true;
    }
  };
  const append = (raw: string, content: boolean) => {
    const s = raw.replace(/\s+/g, ' ');
    if (!s) return;
    const out = lastSpace && s.startsWith(' ') ? s.slice(1) : s;
    if (!out) return;
    acc += out;
    const n = out.replace(/ /g, '').length;
    ink += n;
    if (content) contentInk += n;
    lastSpace = out.endsWith(' ');
    if (content && current >= 0) sections[current]!.textParts.push(out);
  };

  type Frame = { el: Element; child: ChildNode | null; excluded: boolean; heading: number; inline: boolean; exStart: number; para: { start: number; section: number } | null };
  const root = doc.body as unknown as Element | null;
  if (!root) return { title: collapse(doc.title ?? ''), lang: fallbackLang, text: '', sections: [], idLanding: new Map(), excluded: [] };
  const stack: Frame[] = [{ el: root, child: root.firstChild, excluded: false, heading: -1, inline: false, exStart: 0, para: null }];
  while (stack.length) {
    const f = stack[stack.length - 1]!;
    const node = f.child;
    if (!node) {
      stack.pop();
      if (!f.inline) sep();
      if (f.excluded && !(stack[stack.length - 1]?.excluded ?? false)) excluded.push([f.exStart, acc.length]);
      if (f.para && f.para.section >= 0) {
        const text = collapse(acc.slice(f.para.start));
        if (text) sections[f.para.section]!.paragraphs.push(text);
      }
      if (f.heading >= 0 && !stack.some((s) => s.heading === f.heading)) {
        const s = sections[f.heading]!;
        s.heading = headingText(acc.slice(s.start));
      }
      continue;
    }
    f.child = node.nextSibling;
    if (node.nodeType === 3) {
      append(node.nodeValue ?? '', !f.excluded);
      continue;
    }
    if (node.nodeType !== 1) continue;
    const el = node as Element;
    const tag = el.tagName.toUpperCase();
    if (SKIP.has(el.tagName) || SKIP.has(tag)) continue;
    if (el.hasAttribute('hidden')) continue;
    const inline = INLINE.has(tag);
    if (!inline) sep();
    if (tag === 'BR') {
      sep();
      continue;
    }
    const ex = f.excluded || isExcluded(el, tag);
    let heading = f.heading;
    const hm = HEADING.exec(tag);
    if (hm && !ex && f.heading < 0) {
      heading = sections.length;
      current = heading;
      lastHeadingLevel = Number(hm[1]);
      sections.push({ index: heading, level: lastHeadingLevel, heading: '', headingIds: [], key: '', start: acc.length, inkStart: ink, contentInkStart: contentInk, el, textParts: [], paragraphs: [], definitions: [] });
    } else if (!ex && f.heading < 0 && isMethodDetail(el, tag)) {
      // RDoc's method: a section of its own, one level below the heading it sits under, headed by its call-seq lines.
      current = sections.length;
      sections.push({ index: current, level: Math.min(6, lastHeadingLevel + 1), heading: methodHeading(el), headingIds: [], key: '', start: acc.length, inkStart: ink, contentInkStart: contentInk, el, textParts: [], paragraphs: [], definitions: [] });
    }
    for (const id of [el.id, tag === 'A' ? el.getAttribute('name') : null]) {
      if (!id || seenIds.has(id)) continue;
      seenIds.add(id);
      ids.push({ id, ink, contentInk, el, inHeading: heading, excluded: ex });
    }
    if (tag === 'DT' && !ex && current >= 0) {
      // Its term is read when the frame closes; record the slot now (document order).
      sections[current]!.definitions.push({ term: '', ...(el.id ? { id: el.id } : {}), cls: el.getAttribute('class') ?? '' });
      const term = collapse((el.textContent ?? '').replace(/¶/g, ''));
      sections[current]!.definitions[sections[current]!.definitions.length - 1]!.term = term;
    }
    // A paragraph: <p>, or Publican's `<div class="para">` (DocBook's para; no <p> holds its prose).
    const para = (tag === 'P' || (tag === 'DIV' && el.classList.contains('para'))) && !ex ? { start: acc.length, section: current } : null;
    stack.push({ el, child: el.firstChild, excluded: ex, heading, inline, exStart: acc.length, para });
  }
  const text = acc;

  // Where each id lands.
  const idLanding = new Map<string, number | null>();
  for (const p of ids) {
    let target: number | null;
    if (p.excluded) target = null;
    else if (p.inHeading >= 0) target = p.inHeading;
    else {
      // The first content heading at or after the element, if no text lies between; or only navigation,
      // when the element is the heading's wrapper (texi2any's `<div class="section" id>` opens with a row
      // of navigation links: a browser scrolls to the row, the heading right under it).
      const next = sections.find((s) => s.inkStart >= p.ink);
      if (next && (next.inkStart === p.ink || (p.el.contains(next.el) && (next.contentInkStart === p.contentInk || next.inkStart - p.ink <= LEAD_IN)))) target = next.index;
      else {
        let prev: number | null = null;
        for (const s of sections) if (s.inkStart <= p.ink) prev = s.index;
        target = prev;
      }
    }
    idLanding.set(p.id, target);
  }
  // Ids on or inside the heading first, then those just before it (wrappers, empty anchors), then
  // wrappers with a short lead-in before it (LEAD_IN).
  for (const pass of ['inside', 'before', 'lead-in'] as const) {
    for (const p of ids) {
      const t = idLanding.get(p.id);
      if (t === null || t === undefined || (p.inHeading === t) !== (pass === 'inside')) continue;
      const s = sections[t]!;
      if (pass === 'inside' || (pass === 'before' ? s.inkStart === p.ink : s.inkStart !== p.ink && p.el.contains(s.el) && s.inkStart - p.ink <= LEAD_IN)) s.headingIds.push(p.id);
    }
  }

  const seenKeys = new Map<string, number>();
  const out: GtSection[] = sections.map((s, i) => {
    let key = s.headingIds[0] ?? `h:${s.heading}`;
    const n = seenKeys.get(key) ?? 0;
    seenKeys.set(key, n + 1);
    if (n) key += `~${n}`;
    return {
      index: s.index,
      level: s.level,
      heading: s.heading,
      headingIds: s.headingIds,
      key,
      start: s.start,
      end: sections[i + 1]?.start ?? text.length,
      text: collapse(s.textParts.join('')),
      paragraphs: s.paragraphs,
      definitions: s.definitions,
    };
  });
  const lang = (doc.documentElement?.getAttribute('lang') || doc.documentElement?.getAttribute('xml:lang') || fallbackLang).toLowerCase();
  return { title: collapse(doc.title ?? ''), lang, text, sections: out, idLanding, excluded };
}

/** The section a text offset falls in (null: before the first heading or inside an excluded region). */
export function sectionAt(page: GtPage, offset: number): number | null {
  if (page.excluded.some(([a, b]) => offset >= a && offset < b)) return null;
  let found: number | null = null;
  for (const s of page.sections) {
    if (s.start <= offset) found = s.index;
    else break;
  }
  return found;
}

const WORDCHAR = /[\p{L}\p{N}\p{M}_]/u;

/** Where a text fragment's words first occur (case-insensitive, at word boundaries), or -1. */
export function findText(page: GtPage, words: string): number {
  const needle = collapse(words).toLowerCase();
  if (!needle) return -1;
  const hay = page.text.toLowerCase();
  for (let from = 0; ; ) {
    const i = hay.indexOf(needle, from);
    if (i < 0) return -1;
    const before = i > 0 ? hay[i - 1]! : ' ';
    const after = hay[i + needle.length] ?? ' ';
    const startOk = !WORDCHAR.test(needle[0]!) || !WORDCHAR.test(before);
    const endOk = !WORDCHAR.test(needle[needle.length - 1]!) || !WORDCHAR.test(after);
    if (startOk && endOk) return i;
    from = i + 1;
  }
}

/**
 * The section a link's fragment lands on: `#id` by the id rule, `#:~:text=start[,end]` by where its
 * start text first occurs; null when it lands nowhere (unknown id, text not found, no fragment).
 */
export function landing(page: GtPage, fragment: string): number | null {
  if (!fragment) return null;
  if (fragment.startsWith(':~:text=')) {
    const directive = fragment.slice(':~:text='.length).split('&')[0]!;
    // [prefix-,]start[,end][,-suffix]: the parts are separated by raw commas, their text percent-encoded.
    const partsRaw = directive.split(',').filter((p) => !p.endsWith('-') && !p.startsWith('-'));
    const start = partsRaw[0];
    if (!start) return null;
    let words: string;
    try {
      words = decodeURIComponent(start);
    } catch {
      return null;
    }
    const at = findText(page, words);
    return at < 0 ? null : sectionAt(page, at);
  }
  let id: string;
  try {
    id = decodeURIComponent(fragment);
  } catch {
    id = fragment;
  }
  return page.idLanding.get(id) ?? null;
}
