/** Fetching a page's bytes with a size cap and a timeout, and decoding HTML in the charset it declares. */

export class TooLarge extends Error {}

export interface Fetched {
  status: number;
  contentType: string;
  finalUrl: string;
  response: Response;
}

/**
 * `fetch` aborted after `timeoutMs`, or as soon as `cancel` aborts (the service worker that asked for the
 * page stopped: nobody will take the answer, and the site should not see the request go on).
 */
export async function fetchWithTimeout(url: string, init: RequestInit, timeoutMs: number, cancel?: AbortSignal): Promise<{ res: Response; done: () => void; signal: AbortSignal }> {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), timeoutMs);
  if (cancel?.aborted) ctl.abort();
  else cancel?.addEventListener('abort', () => ctl.abort(), { once: true });
  try {
    const res = await fetch(url, { ...init, signal: ctl.signal });
    return { res, done: () => clearTimeout(timer), signal: ctl.signal };
  } catch (e) {
    clearTimeout(timer);
    throw e;
  }
}

/** The body, read up to `max` bytes (TooLarge past it: the rest is never downloaded). */
export async function readCapped(res: Response, max: number): Promise<Uint8Array> {
  const declared = Number(res.headers.get('content-length'));
  if (declared > max) {
    await res.body?.cancel().catch(() => undefined);
    throw new TooLarge();
  }
  if (!res.body) return new Uint8Array(await res.arrayBuffer());
  const reader = res.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      throw new TooLarge();
    }
    parts.push(value);
  }
  const out = new Uint8Array(size);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.byteLength;
  }
  return out;
}

/** The encoding a label names (`latin1` is windows-1252), or null for one TextDecoder does not know. */
function encodingOf(label: string | undefined): string | null {
  if (!label) return null;
  try {
    return new TextDecoder(label).encoding;
  } catch {
    return null;
  }
}

/**
 * HTML bytes as text, in the encoding a browser would read them in (the HTML standard's sniffing, in
 * short): a byte order mark wins over everything; then the charset of the Content-Type header; then a
 * `<meta>` charset near the start, where UTF-16 means UTF-8 (bytes a prescan can read as ASCII are no
 * UTF-16) and x-user-defined means windows-1252; else UTF-8.
 */
export function decodeHtml(bytes: Uint8Array, contentType: string): string {
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 'utf-8' : bytes[0] === 0xfe && bytes[1] === 0xff ? 'utf-16be' : bytes[0] === 0xff && bytes[1] === 0xfe ? 'utf-16le' : null;
  let encoding = bom ?? encodingOf(/charset=["']?([\w.:-]+)/i.exec(contentType)?.[1]);
  if (!encoding) {
    const head = new TextDecoder('latin1').decode(bytes.subarray(0, 4096));
    encoding = encodingOf(/<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1]);
    if (encoding === 'utf-16le' || encoding === 'utf-16be') encoding = 'utf-8';
    else if (encoding === 'x-user-defined') encoding = 'windows-1252';
  }
  // The decoder takes the byte order mark off (the one its encoding has).
  return new TextDecoder(encoding ?? 'utf-8').decode(bytes);
}
