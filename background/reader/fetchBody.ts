/** Fetching a page's bytes with a size cap and a timeout, and decoding HTML in the charset it declares. */

export class TooLarge extends Error {}

export interface Fetched {
  status: number;
  contentType: string;
  finalUrl: string;
  response: Response;
}

export async function fetchWithTimeout(url: string, init: RequestInit, timeoutMs: number): Promise<{ res: Response; done: () => void; signal: AbortSignal }> {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), timeoutMs);
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

/** HTML bytes as text: the charset of the Content-Type header, else of a `<meta>` near the start, else UTF-8. */
export function decodeHtml(bytes: Uint8Array, contentType: string): string {
  let charset = /charset=["']?([\w.:-]+)/i.exec(contentType)?.[1];
  if (!charset) {
    const head = new TextDecoder('latin1').decode(bytes.subarray(0, 4096));
    charset = /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1];
  }
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}
