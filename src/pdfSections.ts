/**
 * A PDF's text as blocks for the chunker: one section per outline entry, or per page without an outline,
 * headings from the outline, and every page's first block anchored `page=N` so a result (or a window of
 * a long section) links to `#page=N` of the PDF. Pure: the text and outline come from pdf.js
 * (background/reader/pdfText.ts).
 */
import { measureWords, type Block } from './chunker.js';

export const MAX_PDF_BYTES = 50 * 1024 * 1024;
export const MAX_PDF_PAGES = 500;

/** One line of a page, top to bottom; `y` in PDF user space (larger is higher on the page). */
export interface PdfLine {
  text: string;
  y: number;
}

export interface PdfPage {
  /** 1-based. */
  n: number;
  lines: PdfLine[];
}

/** An outline entry, flattened in document order. `top` is where it starts on its page, when the PDF says. */
export interface PdfOutlineEntry {
  title: string;
  level: number;
  page: number;
  top?: number;
}

export const pageAnchor = (n: number): string => `page=${n}`;

/** Lines into paragraphs: a gap clearly larger than the page's usual line spacing starts a new one. */
function paragraphs(lines: readonly PdfLine[]): PdfLine[][] {
  if (!lines.length) return [];
  const gaps: number[] = [];
  for (let i = 1; i < lines.length; i++) {
    const g = lines[i - 1]!.y - lines[i]!.y;
    if (g > 0) gaps.push(g);
  }
  gaps.sort((a, b) => a - b);
  const usual = gaps.length ? gaps[Math.floor(gaps.length / 2)]! : 0;
  const out: PdfLine[][] = [[lines[0]!]];
  for (let i = 1; i < lines.length; i++) {
    const g = lines[i - 1]!.y - lines[i]!.y;
    if (usual > 0 && (g > usual * 1.6 || g < -usual)) out.push([]);
    out[out.length - 1]!.push(lines[i]!);
  }
  return out;
}

/**
 * Joins a paragraph's lines, mending words hyphenated across a line break. The lines are collected and
 * joined once: testing the growing paragraph at every line copied it each time (a page of 40,000 evenly
 * spaced lines, one paragraph, took 34 s).
 */
function joinLines(lines: readonly PdfLine[]): string {
  const parts: string[] = [];
  for (const l of lines) {
    const t = l.text.replace(/\s+/g, ' ').trim();
    if (!t) continue;
    const last = parts[parts.length - 1];
    if (last !== undefined && /[a-z]-$/.test(last) && /^[a-z]/.test(t)) parts[parts.length - 1] = last.slice(0, -1) + t;
    else parts.push(t);
  }
  return parts.join(' ');
}

export function pdfBlocks(pages: readonly PdfPage[], outline: readonly PdfOutlineEntry[]): Block[] {
  const blocks: Block[] = [];
  const entries = outline
    .filter((e) => e.title.trim() && Number.isInteger(e.page) && e.page >= 1)
    .map((e) => ({ ...e, title: e.title.replace(/\s+/g, ' ').trim().slice(0, 300), level: Math.min(6, Math.max(1, Math.round(e.level))) }));
  const byPage = new Map<number, typeof entries>();
  for (const e of entries) {
    const list = byPage.get(e.page) ?? [];
    list.push(e);
    byPage.set(e.page, list);
  }
  // Entries on one page in the order they appear on it (top first; without a position: the page's top).
  for (const list of byPage.values()) list.sort((a, b) => (b.top ?? Infinity) - (a.top ?? Infinity));
  let current: (typeof entries)[number] | null = null;
  for (const page of pages) {
    const starts = [...(byPage.get(page.n) ?? [])];
    const anchor = pageAnchor(page.n);
    let anchored = false;
    const heading = (level: number, text: string) => {
      blocks.push({ kind: 'heading', level, text, id: anchor });
      anchored = true;
    };
    // Entries that start above the first line open the page; otherwise the page continues the section
    // it is in (a heading that repeats it, so the page is its own section with its own link).
    const firstY = page.lines[0]?.y ?? -Infinity;
    while (starts.length && (starts[0]!.top === undefined || starts[0]!.top >= firstY - 1)) {
      current = starts.shift()!;
      heading(current.level, current.title);
    }
    // Pages before the outline's first entry (a title page, a preface, the contents) are a page each: as
    // one section their windows ran across page breaks and linked a word of page 2 to page 1.
    if (!anchored) heading(current?.level ?? 1, current?.title ?? `Page ${page.n}`);
    for (const para of paragraphs(page.lines)) {
      // An entry that starts inside this paragraph's span splits it at the entry's line.
      let rest = para;
      while (starts.length && rest.some((l) => l.y <= starts[0]!.top! + 1)) {
        const at = rest.findIndex((l) => l.y <= starts[0]!.top! + 1);
        const before = joinLines(rest.slice(0, at));
        if (before) blocks.push({ kind: 'text', text: before, ...(anchored ? {} : { id: anchor }) });
        if (before) anchored = true;
        current = starts.shift()!;
        heading(current.level, current.title);
        rest = rest.slice(at);
      }
      const text = joinLines(rest);
      if (!text) continue;
      blocks.push({ kind: 'text', text, ...(anchored ? {} : { id: anchor }) });
      anchored = true;
    }
    // Entries past the last line (a heading at the page's foot) open with the next page.
    while (starts.length) {
      current = starts.shift()!;
      heading(current.level, current.title);
    }
  }
  return blocks;
}

/** Words of text on all pages (a PDF without a text layer has none); Japanese and Chinese by characters (measureWords). */
export function pdfWords(pages: readonly PdfPage[]): number {
  let n = 0;
  for (const p of pages) for (const l of p.lines) n += measureWords(l.text);
  return n;
}
