/**
 * The backfill's read of one page: fetched without cookies (`credentials: 'omit'`, no referrer, nothing
 * cached), parsed with DOMParser (an inert document: no script runs, nothing loads), and read by the
 * content script's own capture step (content/pageCapture.ts captureDocument: the same extractor and the
 * same chunker as on a page the user reads); the background checks the sections like a content script's. Runs where a DOM exists: Chrome's offscreen document, Firefox's
 * background page.
 */
import { checkBody, checkHead, FETCH_TIMEOUT_MS, MAX_HTML_BYTES } from '../../src/backfillPolicy.js';
import { captureDocument } from '../../content/pageCapture.js';
import { decodeHtml, fetchWithTimeout, readCapped, TooLarge } from './fetchBody.js';
import type { ReadHtmlResult } from './readerProtocol.js';

export async function readHtml(url: string, cancel?: AbortSignal): Promise<ReadHtmlResult> {
  if (!/^https?:\/\//i.test(url)) return { ok: false, reason: 'not-html' };
  let fetched: Awaited<ReturnType<typeof fetchWithTimeout>>;
  try {
    // A redirect is not followed: where it points may be a site the user excluded or an address on their
    // own network, and a browser hides where (an opaque answer). The address it leads to is in the
    // history on its own when the user read it there.
    fetched = await fetchWithTimeout(url, { credentials: 'omit', cache: 'no-store', redirect: 'manual', referrerPolicy: 'no-referrer', headers: { accept: 'text/html,application/xhtml+xml;q=0.9' } }, FETCH_TIMEOUT_MS, cancel);
  } catch {
    return { ok: false, reason: 'network' };
  }
  const { res, done } = fetched;
  try {
    if (res.type === 'opaqueredirect' || (res.status >= 300 && res.status < 400)) {
      await res.body?.cancel().catch(() => undefined);
      return { ok: false, reason: 'redirected', status: res.status };
    }
    const contentType = res.headers.get('content-type') ?? '';
    const head = checkHead({ status: res.status, contentType, url, finalUrl: res.url || url });
    if (head) {
      await res.body?.cancel().catch(() => undefined);
      return { ok: false, reason: head, status: res.status };
    }
    let bytes: Uint8Array;
    try {
      bytes = await readCapped(res, MAX_HTML_BYTES);
    } catch (e) {
      return { ok: false, reason: e instanceof TooLarge ? 'too-large' : 'network' };
    }
    const doc = new DOMParser().parseFromString(decodeHtml(bytes, contentType), 'text/html');
    const hasPasswordField = doc.querySelector('input[type="password" i]') !== null;
    // Its links are read against where the fetch ended (after redirects).
    const got = await captureDocument(doc, { live: false, fallbackTitle: new URL(url).hostname, url: res.url || url });
    if (!got) return { ok: false, reason: 'too-little-text' };
    const body = checkBody({ words: got.words, hasPasswordField });
    if (body) return { ok: false, reason: body };
    const { title, lang, blocks, sections, chunker } = got.payload;
    return { ok: true, title, lang, blocks, sections, chunker, words: got.words, method: got.extraction.method };
  } finally {
    done();
  }
}
