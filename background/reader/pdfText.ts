/**
 * A PDF's text with pdf.js (`pdfjs-dist`): the outline (titles, levels, the page and height each entry
 * starts at) and every page's text as lines, turned into blocks by src/pdfSections.ts. pdf.js's worker
 * is bundled with the extension (dist/pdf.worker.min.mjs): no remote code. Runs in a document: Chrome's
 * offscreen document, Firefox's background page.
 */
import { getDocument, GlobalWorkerOptions } from 'pdfjs-dist';
import type { PDFDocumentProxy } from 'pdfjs-dist';
import { MAX_PDF_BYTES, MAX_PDF_PAGES, pdfBlocks, pdfWords, type PdfLine, type PdfOutlineEntry, type PdfPage } from '../../src/pdfSections.js';
import { cutSections } from '../../src/sections.js';
import { fetchWithTimeout, readCapped, TooLarge } from './fetchBody.js';
import type { ReadPdfResult } from './readerProtocol.js';

export const PDF_WORKER_FILE = 'pdf.worker.min.mjs';
/** pdf.js's CMap files, shipped with the extension (scripts/build.mjs): read from it, never from elsewhere. */
export const PDF_CMAPS_DIR = 'cmaps/';
const FETCH_TIMEOUT_MS = 60_000;

let workerSet = false;
const extensionApi = () => (globalThis as { browser?: typeof chrome; chrome?: typeof chrome }).browser ?? globalThis.chrome;
function useBundledWorker(): void {
  if (workerSet) return;
  GlobalWorkerOptions.workerSrc = extensionApi().runtime.getURL(PDF_WORKER_FILE);
  workerSet = true;
}

interface TextItemLike {
  str?: string;
  transform?: number[];
  hasEOL?: boolean;
  height?: number;
  width?: number;
}

/**
 * pdf.js text items into lines, top to bottom as the content stream has them. A line's pieces are
 * collected and joined once: testing the growing line at every item copied it each time (a page of
 * 80,000 glyphs placed one by one, no line ends, took 44 s).
 */
export function itemsToLines(items: readonly TextItemLike[]): PdfLine[] {
  const lines: PdfLine[] = [];
  let parts: string[] = [];
  let endsWithSpace = true;
  let y = NaN;
  let endX = NaN;
  const close = () => {
    const text = parts.join('');
    if (text.trim()) lines.push({ text: text.replace(/\s+/g, ' ').trim(), y });
    parts = [];
    endsWithSpace = true;
    y = NaN;
    endX = NaN;
  };
  for (const it of items) {
    if (typeof it.str !== 'string' || !it.transform) continue;
    const iy = it.transform[5]!;
    const ix = it.transform[4]!;
    const h = Math.abs(it.height ?? 0) || Math.abs(it.transform[3] ?? 0) || 10;
    if (!Number.isNaN(y) && Math.abs(iy - y) > h * 0.5) close();
    if (Number.isNaN(y)) y = iy;
    else if (it.str && !endsWithSpace && !/^\s/.test(it.str) && ix - endX > h * 0.15) parts.push(' ');
    if (it.str) {
      parts.push(it.str);
      endsWithSpace = /\s$/.test(it.str);
    }
    endX = ix + (it.width ?? 0);
    if (it.hasEOL) close();
  }
  close();
  return lines;
}

/**
 * The last page whose text is whole in the sections when the cut dropped some (past the section or
 * text caps): the page before the last one any section or part starts on. All of them otherwise.
 */
export function pagesKept(cut: { sections: readonly { anchor: unknown; parts?: unknown }[]; truncated: { chunks: number; chars: number } }, pagesRead: number): number {
  if (!cut.truncated.chunks && !cut.truncated.chars) return pagesRead;
  let last = 0;
  for (const m of JSON.stringify(cut.sections.map((s) => [s.anchor, s.parts ?? null])).matchAll(/"page=(\d+)"/g)) last = Math.max(last, Number(m[1]));
  return Math.max(0, Math.min(pagesRead, last - 1));
}

async function outlineEntries(pdf: PDFDocumentProxy): Promise<PdfOutlineEntry[]> {
  const out: PdfOutlineEntry[] = [];
  const outline = await pdf.getOutline().catch(() => null);
  if (!outline) return out;
  const walk = async (nodes: readonly { title: string; dest: unknown; items: unknown[] }[], level: number) => {
    for (const node of nodes) {
      if (out.length >= 2000) return;
      try {
        let dest = node.dest;
        if (typeof dest === 'string') dest = await pdf.getDestination(dest);
        if (Array.isArray(dest) && dest.length) {
          const target: unknown = dest[0];
          const index = typeof target === 'number' ? target : target && typeof target === 'object' ? await pdf.getPageIndex(target as never) : -1;
          // [page, {name: 'XYZ'}, left, top, zoom]: `top` is where the entry starts on its page.
          const kind = (dest[1] as { name?: string } | undefined)?.name;
          const top = kind === 'XYZ' && typeof dest[3] === 'number' ? dest[3] : kind === 'FitH' || kind === 'FitBH' ? (typeof dest[2] === 'number' ? dest[2] : undefined) : undefined;
          if (index >= 0) out.push({ title: node.title ?? '', level, page: index + 1, ...(top !== undefined ? { top } : {}) });
        }
      } catch {
        // A broken destination: the entry is left out, the rest of the outline stays.
      }
      if (Array.isArray(node.items) && node.items.length) await walk(node.items as typeof nodes, level + 1);
    }
  };
  await walk(outline as never, 1);
  return out;
}

/** Extracts a PDF already in memory. */
export async function pdfFromBytes(bytes: Uint8Array, fallbackTitle: string): Promise<ReadPdfResult> {
  const t = performance.now();
  if (!(bytes[0] === 0x25 && bytes[1] === 0x50 && bytes[2] === 0x44 && bytes[3] === 0x46) && !new TextDecoder('latin1').decode(bytes.subarray(0, 1024)).includes('%PDF-')) {
    return { ok: false, problem: 'not-pdf' };
  }
  useBundledWorker();
  const size = bytes.byteLength;
  // No eval, no fonts loaded, no scripting: text only.
  const task = getDocument({ data: bytes, isEvalSupported: false, disableFontFace: true, useSystemFonts: false, enableXfa: false, stopAtErrors: false, verbosity: 0, cMapUrl: extensionApi().runtime.getURL(PDF_CMAPS_DIR), cMapPacked: true });
  let pdf: PDFDocumentProxy;
  try {
    pdf = await task.promise;
  } catch (e) {
    await task.destroy().catch(() => undefined);
    const name = (e as { name?: string } | null)?.name;
    if (name === 'PasswordException') return { ok: false, problem: 'encrypted' };
    return { ok: false, problem: 'broken', detail: e instanceof Error ? e.message.slice(0, 200) : String(e) };
  }
  try {
    const meta = await pdf.getMetadata().catch(() => null);
    const info = (meta?.info ?? {}) as { Title?: unknown };
    const outline = await outlineEntries(pdf);
    const pagesRead = Math.min(pdf.numPages, MAX_PDF_PAGES);
    const pages: PdfPage[] = [];
    for (let n = 1; n <= pagesRead; n++) {
      const page = await pdf.getPage(n);
      const content = await page.getTextContent();
      pages.push({ n, lines: itemsToLines(content.items as TextItemLike[]) });
      page.cleanup();
    }
    const words = pdfWords(pages);
    if (!words) return { ok: false, problem: 'no-text' };
    // Cut here, as a content script cuts its page: the same step (src/sections.ts) every capture runs.
    const cut = await cutSections(pdfBlocks(pages, outline.filter((e) => e.page <= pagesRead)));
    // Past the caps the cut drops the rest: say where reading stopped (pdfCapture leaves a note), never "every page".
    return { ok: true, title: pdfTitle(info.Title, fallbackTitle), blocks: cut.blocks, sections: cut.sections, chunker: cut.chunker, words, pages: pdf.numPages, pagesRead: pagesKept(cut, pagesRead), bytes: size, ms: performance.now() - t };
  } catch (e) {
    return { ok: false, problem: 'broken', detail: e instanceof Error ? e.message.slice(0, 200) : String(e) };
  } finally {
    await pdf.destroy().catch(() => undefined);
  }
}

/**
 * The PDF's title as a person reads it. A UTF-16 title pdf.js cannot decode strictly (one unpaired
 * surrogate) comes back as its raw bytes, byte order mark and NULs included: decoded leniently here.
 * Control characters go; no title left, the file name.
 */
export function pdfTitle(raw: unknown, fallback: string): string {
  let t = typeof raw === 'string' ? raw : '';
  if (/^\u00fe\u00ff/.test(t) || /^\u00ff\u00fe/.test(t)) {
    const be = t.charCodeAt(0) === 0xfe;
    const bytes = Uint8Array.from(t.slice(2), (c) => c.charCodeAt(0) & 255);
    t = new TextDecoder(be ? 'utf-16be' : 'utf-16le').decode(bytes);
  }
  t = t.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ').replace(/\s+/g, ' ').trim();
  return (t || fallback).slice(0, 500);
}

/** A file name from the URL, for a PDF without a title. */
export function pdfFallbackTitle(url: string): string {
  try {
    const u = new URL(url);
    const last = decodeURIComponent(u.pathname.split('/').filter(Boolean).pop() ?? '');
    return last || u.hostname;
  } catch {
    return url.slice(0, 200);
  }
}

/**
 * Fetches the PDF the tab showed and reads it. `include`: right after the tab loaded it (the browser
 * has just fetched it as the user; README says so); `omit` otherwise. A `file:` URL is read by the same
 * fetch: Chromium lets an extension page fetch files while the user allows file access and `file:///*`
 * is granted (background/dayone/fileAccess.ts); a file answers status 0 or 200, never an HTTP error.
 */
export async function readPdf(url: string, credentials: 'include' | 'omit', cancel?: AbortSignal): Promise<ReadPdfResult> {
  const local = /^file:\/\//i.test(url);
  if (!local && !/^https?:\/\//i.test(url)) return { ok: false, problem: 'unreachable', detail: 'only web addresses and local files are read' };
  let bytes: Uint8Array;
  try {
    // One request, to the PDF's own address: a redirect is not followed (with the user's cookies, it would
    // carry them to wherever it points, an excluded site too, and store that site's file under this address).
    const { res, done } = await fetchWithTimeout(url, local ? { cache: 'no-store' } : { credentials, cache: 'no-store', redirect: 'manual', referrerPolicy: 'no-referrer' }, FETCH_TIMEOUT_MS, cancel);
    try {
      if (!local && (res.type === 'opaqueredirect' || (res.status >= 300 && res.status < 400))) {
        await res.body?.cancel().catch(() => undefined);
        return { ok: false, problem: 'unreachable', detail: 'the address now sends to another one' };
      }
      if (!res.ok && !(local && res.status === 0)) {
        await res.body?.cancel().catch(() => undefined);
        return { ok: false, problem: 'unreachable', detail: `HTTP ${res.status}` };
      }
      bytes = await readCapped(res, MAX_PDF_BYTES);
    } finally {
      done();
    }
  } catch (e) {
    if (e instanceof TooLarge) return { ok: false, problem: 'too-large' };
    return { ok: false, problem: 'unreachable', detail: e instanceof Error ? e.message.slice(0, 200) : String(e) };
  }
  return pdfFromBytes(bytes, pdfFallbackTitle(url));
}
