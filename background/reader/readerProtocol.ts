/**
 * Reading pages away from a tab: the backfill (fetch an imported page without cookies and read it) and
 * PDFs (fetch the PDF the tab just showed and read its text). Chrome runs it in the offscreen document
 * (DOMParser and pdf.js's worker need a document; the service worker has neither), over one Port named
 * READER_PORT that the document accepts only from the worker; Firefox runs the same code in its
 * background page (host.ts). Each side checks what it receives: a port message is untyped JSON.
 */
import type { Block, Chunk } from '../../src/chunker.js';
import type { SkipReason } from '../../src/backfillPolicy.js';
import type { PdfProblem } from '../../src/dayone.js';

export const READER_PORT = 'reread-reader';


export type ReadHtmlResult =
  | { ok: true; title: string; lang: string; blocks: Block[]; sections: Chunk[]; chunker: string; words: number; method: 'readability' | 'body' | 'merged' }
  | { ok: false; reason: SkipReason; status?: number };

export type ReadPdfResult =
  | { ok: true; title: string; blocks: Block[]; sections: Chunk[]; chunker: string; words: number; pages: number; pagesRead: number; bytes: number; ms: number }
  | { ok: false; problem: PdfProblem; detail?: string };

export type ReaderRequest =
  | { id: number; op: 'hello' }
  | { id: number; op: 'html'; url: string }
  | { id: number; op: 'pdf'; url: string; credentials: 'include' | 'omit' };

export type ReaderReply = { id: number; ok: true; data: ReadHtmlResult | ReadPdfResult | null } | { id: number; ok: false; error: string };

/** What reads pages: in-process (Firefox's background page) or the offscreen document (Chrome). */
export interface PageReader {
  readHtml(url: string): Promise<ReadHtmlResult>;
  readPdf(url: string, credentials: 'include' | 'omit'): Promise<ReadPdfResult>;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const READABLE = /^https?:\/\//i;
/** A PDF may also be a local file (pdfCapture.ts reads one only while the user allows file access). */
const READABLE_PDF = /^(?:https?:\/\/|file:\/\/)/i;

export function parseReaderRequest(v: unknown): ReaderRequest | null {
  if (!isObject(v) || typeof v.id !== 'number' || !Number.isSafeInteger(v.id)) return null;
  if (v.op === 'hello') return { id: v.id, op: 'hello' };
  if (typeof v.url !== 'string' || v.url.length > 8000 || !READABLE_PDF.test(v.url)) return null;
  if (v.op === 'html') return READABLE.test(v.url) ? { id: v.id, op: 'html', url: v.url } : null;
  if (v.op === 'pdf' && (v.credentials === 'include' || v.credentials === 'omit')) return { id: v.id, op: 'pdf', url: v.url, credentials: v.credentials };
  return null;
}

export function parseReaderReply(v: unknown): ReaderReply | null {
  if (!isObject(v) || typeof v.id !== 'number') return null;
  if (v.ok === false) return { id: v.id, ok: false, error: typeof v.error === 'string' ? v.error.slice(0, 500) : 'the reader failed' };
  if (v.ok !== true) return null;
  // The data is checked again where it is used (validateCapture caps blocks like a content script's).
  if (v.data === null || isObject(v.data)) return { id: v.id, ok: true, data: v.data as ReadHtmlResult | ReadPdfResult | null };
  return null;
}
