/**
 * PDFs read in a tab. Chrome's viewer shows a PDF in a document the content script cannot read, so the
 * PDF itself is fetched once more and read with pdf.js (reader/pdfText.ts, in the offscreen document /
 * background page). Two signals say a tab shows a PDF: the content script in the viewer's outer
 * document (Chrome: `page/pdf`, any URL), and a tab that finished loading a URL ending in `.pdf`
 * (Firefox's viewer runs no content script). Right after the tab loaded it, the fetch carries the user's
 * credentials (the browser has just fetched the same URL as the user; README says so); a PDF found
 * later (a tab open before install) is fetched without them. Nothing is retried in the background:
 * what could not be read leaves a note in Options (encrypted, no text layer, broken, too large).
 *
 * Local files (`file://`, Chromium): the same way, only while the user has allowed file access and
 * granted `file:///*` (fileAccess.ts); otherwise nothing is attempted, not even a note. They are filed
 * under the one site "Local files" (src/url.ts LOCAL_FILES_SITE), excluded and forgotten like any site.
 * A file is read without credentials (there are none) and also when it was already open in a tab when
 * the permission was granted.
 */
import browser from 'webextension-polyfill';
import type { PdfNote, PdfProblem } from '../../src/dayone.js';
import { fileNameOf, isFileUrl, normalizeFileUrl, normalizeUrl } from '../../src/url.js';
import { validateCapture } from '../../src/validate.js';
import { PDF_NOTES_KEY } from '../db.js';
import type { Engine } from '../engine.js';
import type { PageReader } from '../reader/readerProtocol.js';
import { FILE_ORIGINS, localFilesReadable } from './fileAccess.js';

export { PDF_NOTES_KEY } from '../db.js';
const MAX_NOTES = 50;
/** A load this recent is "right after the tab loaded it". */
export const FRESH_LOAD_MS = 60_000;
/** The same tab and URL within this window is one PDF load (both signals fire for a `.pdf` URL in Chrome). */
const SAME_LOAD_MS = 30_000;

export const pdfLog = { read: 0, noted: 0, withCredentials: 0, ms: [] as number[], bytes: [] as { bytes: number; pages: number }[] };

export class PdfCapture {
  /** Tab and address → when it was read, and how many forgets had been made then. */
  private readonly recent = new Map<string, { at: number; forgets: number }>();
  /** Read-modify-writes of the notes, one after another (PDFs failing at once each leave theirs). */
  private notesChain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly engine: Engine,
    private readonly reader: PageReader,
  ) {}

  async notes(): Promise<PdfNote[]> {
    const got = (await (await this.engine.db()).get('meta', PDF_NOTES_KEY)) as PdfNote[] | undefined;
    return Array.isArray(got) ? got : [];
  }

  async clearNotes(): Promise<void> {
    await (await this.engine.db()).delete('meta', PDF_NOTES_KEY);
  }

  /** Replaces the note on `url` by `n` (none: drops it), in one transaction, after the notes written before. */
  private setNote(url: string, n: PdfNote | null): Promise<void> {
    const run = this.notesChain.then(async () => {
      const tx = (await this.engine.db()).transaction('meta', 'readwrite');
      const got = (await tx.store.get(PDF_NOTES_KEY)) as PdfNote[] | undefined;
      const list = (Array.isArray(got) ? got : []).filter((x) => x.url !== url);
      if (n || list.length !== (got?.length ?? 0)) await tx.store.put(n ? [n, ...list].slice(0, MAX_NOTES) : list, PDF_NOTES_KEY);
      await tx.done;
    });
    this.notesChain = run.catch(() => undefined);
    return run;
  }

  private async note(n: PdfNote): Promise<void> {
    pdfLog.noted++;
    await this.setNote(n.url, n);
  }

  /**
   * A tab shows a PDF at `rawUrl`. `fresh`: it has just loaded it (the fetch may carry credentials).
   * Returns what happened, for the content script's answer and the tests.
   */
  async handle(tabId: number, rawUrl: string, incognito: boolean, fresh: boolean, quietIfNotPdf = false): Promise<string> {
    if (incognito) return 'incognito';
    // Web addresses, and local files while the user allows Reread to read them.
    const local = isFileUrl(rawUrl);
    const url = local ? normalizeFileUrl(rawUrl) : normalizeUrl(rawUrl);
    if (!url) return 'not a web page';
    if (local && !(await localFilesReadable())) return 'no file access';
    // A note names a file by its name, not its folder (which holds the user's account name).
    const urlTitle = local ? fileNameOf(url) : url;
    // Exclusions and pause, before anything is fetched.
    const check = await this.engine.captureAllowed(url);
    if (!check.allowed) return check.reason ?? 'not allowed';
    const key = `${tabId} ${url}`;
    const now = Date.now();
    const forgets = this.engine.forget.forgets;
    // One load seen by two signals; not a load after a forget (a reload of a PDF just forgotten is a visit).
    const seen = this.recent.get(key);
    if (seen && now - seen.at < SAME_LOAD_MS && seen.forgets === forgets) return 'already read';
    this.recent.set(key, { at: now, forgets });
    for (const [k, t] of this.recent) if (now - t.at > SAME_LOAD_MS) this.recent.delete(k);
    const credentials = fresh && !local ? 'include' : 'omit';
    if (credentials === 'include') pdfLog.withCredentials++;
    let res: Awaited<ReturnType<PageReader['readPdf']>>;
    try {
      res = await this.reader.readPdf(rawUrl.split('#')[0]!, credentials);
    } catch (e) {
      await this.note({ url, title: urlTitle, at: now, problem: 'unreachable', detail: e instanceof Error ? e.message.slice(0, 200) : String(e) });
      return 'unreachable';
    }
    if (!res.ok) {
      // Only the URL said PDF (a `.pdf` link that answers with an error page): nothing worth a note.
      if (quietIfNotPdf && (res.problem === 'not-pdf' || res.problem === 'unreachable')) return res.problem;
      await this.note({ url, title: urlTitle, at: now, problem: res.problem, ...(res.detail ? { detail: res.detail } : {}) });
      return res.problem;
    }
    pdfLog.read++;
    pdfLog.ms.push(res.ms / Math.max(1, res.pagesRead));
    let payload;
    try {
      payload = validateCapture({ title: res.title, lang: '', blocks: res.blocks, sections: res.sections, chunker: res.chunker }).payload;
    } catch {
      await this.note({ url, title: res.title, at: now, problem: 'broken' });
      return 'broken';
    }
    const out = await this.engine.capture(url, payload, now, { kind: 'pdf', pdf: { pages: res.pages, read: res.pagesRead } });
    if (out.outcome === 'skipped') {
      const problem: PdfProblem = out.reason === 'too little text' ? 'no-text' : 'broken';
      if (out.reason === 'too little text') await this.note({ url, title: res.title, at: now, problem });
      return out.reason ?? problem;
    }
    pdfLog.bytes.push({ bytes: res.bytes, pages: res.pagesRead });
    // Read: a note from an earlier try (offline, say) no longer holds; one on pages left unread replaces it.
    if (res.pagesRead < res.pages) await this.note({ url, title: res.title, at: now, problem: 'capped', detail: `${res.pagesRead} of ${res.pages} pages read` });
    else await this.setNote(url, null);
    return out.outcome;
  }

  /** Registered at the top level: a tab that finished loading a `.pdf` URL. */
  register(): void {
    browser.tabs.onUpdated.addListener((tabId, change, tab) => {
      if (change.status !== 'complete' || !tab.url) return;
      let path: string;
      try {
        path = new URL(tab.url).pathname;
      } catch {
        return;
      }
      if (!/\.pdf$/i.test(path)) return;
      void this.handle(tabId, tab.url, tab.incognito, true, true).catch((e: unknown) => console.warn('reread: pdf', e));
    });
    // Local files granted just now: the PDFs already open from disk are read (their URLs were hidden before).
    browser.permissions.onAdded.addListener((added) => {
      if (added.origins?.some((o) => FILE_ORIGINS.includes(o))) void this.readOpenLocalPdfs().catch((e: unknown) => console.warn('reread: pdf', e));
    });
  }

  /** PDFs open from disk in normal tabs, read once each (nothing when file access is off). */
  async readOpenLocalPdfs(): Promise<string[]> {
    if (!(await localFilesReadable())) return [];
    const tabs = await browser.tabs.query({ url: FILE_ORIGINS }).catch(() => []);
    const out: string[] = [];
    for (const tab of tabs) {
      if (tab.id === undefined || !tab.url || tab.incognito || tab.status !== 'complete') continue;
      let path: string;
      try {
        path = new URL(tab.url).pathname;
      } catch {
        continue;
      }
      if (/\.pdf$/i.test(path)) out.push(await this.handle(tab.id, tab.url, tab.incognito, false, true));
    }
    return out;
  }
}

export function isPdfProblem(v: unknown): v is PdfProblem {
  return typeof v === 'string' && ['encrypted', 'no-text', 'broken', 'too-large', 'not-pdf', 'unreachable', 'capped'].includes(v);
}
