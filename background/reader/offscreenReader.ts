/**
 * The worker's side of the reader in Chrome's offscreen document: one Port (READER_PORT), re-opened
 * (and the document re-created) whenever it was closed. Requests that were in flight when the document
 * or the worker went away fail; the backfill tries those pages again later, a PDF note says so.
 */
import { ensureOffscreenDocument, registerOffscreenUse, touchOffscreenDocument } from '../offscreenDocument.js';
import { parseReaderReply, READER_PORT, type PageReader, type ReaderRequest, type ReadHtmlResult, type ReadPdfResult } from './readerProtocol.js';

const REQUEST_TIMEOUT_MS = 2 * 60_000;
type Pending = { resolve: (v: unknown) => void; reject: (e: Error) => void; timer: ReturnType<typeof setTimeout> };
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

let port: chrome.runtime.Port | null = null;
let connecting: Promise<chrome.runtime.Port> | null = null;
let nextId = 1;
const pending = new Map<number, Pending>();
registerOffscreenUse(() => pending.size > 0);

function drop(reason: string): void {
  port = null;
  for (const [id, p] of pending) {
    clearTimeout(p.timer);
    p.reject(new Error(reason));
    pending.delete(id);
  }
}

function post(target: chrome.runtime.Port, req: DistributiveOmit<ReaderRequest, 'id'>): Promise<unknown> {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      pending.delete(id);
      reject(new Error('the reader did not answer in time'));
    }, REQUEST_TIMEOUT_MS);
    pending.set(id, { resolve, reject, timer });
    try {
      target.postMessage({ ...req, id });
    } catch (e) {
      pending.delete(id);
      clearTimeout(timer);
      reject(e instanceof Error ? e : new Error(String(e)));
    }
  });
}

function onMessage(raw: unknown): void {
  const m = parseReaderReply(raw);
  if (!m) return;
  const p = pending.get(m.id);
  if (!p) return;
  pending.delete(m.id);
  clearTimeout(p.timer);
  if (m.ok) p.resolve(m.data);
  else p.reject(new Error(m.error));
}

async function connect(): Promise<chrome.runtime.Port> {
  if (port) return port;
  connecting ??= (async () => {
    let lastError = 'the reader page did not answer';
    // The document's listener may not be registered yet right after creation: retry the hello.
    for (let attempt = 0; attempt < 40; attempt++) {
      await ensureOffscreenDocument();
      const p = chrome.runtime.connect({ name: READER_PORT });
      port = p;
      p.onMessage.addListener(onMessage);
      p.onDisconnect.addListener(() => {
        if (port === p) drop('the reader page closed');
      });
      try {
        await post(p, { op: 'hello' });
        return p;
      } catch (e) {
        lastError = e instanceof Error ? e.message : String(e);
        if (port === p) port = null;
        p.disconnect();
        await new Promise((r) => setTimeout(r, 25 * Math.min(attempt + 1, 8)));
      }
    }
    throw new Error(lastError);
  })().finally(() => {
    connecting = null;
  });
  return connecting;
}

export const offscreenReader: PageReader = {
  async readHtml(url: string): Promise<ReadHtmlResult> {
    touchOffscreenDocument();
    return (await post(await connect(), { op: 'html', url })) as ReadHtmlResult;
  },
  async readPdf(url: string, credentials: 'include' | 'omit'): Promise<ReadPdfResult> {
    touchOffscreenDocument();
    return (await post(await connect(), { op: 'pdf', url, credentials })) as ReadPdfResult;
  },
};
