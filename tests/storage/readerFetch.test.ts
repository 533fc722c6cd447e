/**
 * what the backfill's reader sends and how it reads what comes back. A redirect is followed
 * to a site on the exclusion list (README: "never to an excluded site, checked right before each
 * request"), and the bytes of a page are decoded against the rules browsers follow (a byte order mark
 * wins over the header; `<meta charset=utf-16>` in an ASCII document means UTF-8), or what is stored is
 * mojibake. Each failed on the code it was written against.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { parseHTML } from 'linkedom';
import { engineOn, fakeHistory, freshDb } from './helpers.js';
import { HistoryImport } from '../../background/dayone/historyImport.js';
import { Backfill } from '../../background/dayone/backfill.js';
import { readHtml } from '../../background/reader/readHtml.js';
import { decodeHtml } from '../../background/reader/fetchBody.js';
import type { PageReader } from '../../background/reader/readerProtocol.js';

/** DOMParser as the offscreen document has it (linkedom; its documents lack `implementation`). */
class LinkedomParser {
  parseFromString(html: string): Document {
    const { document } = parseHTML(html);
    Object.defineProperty(document, 'implementation', { value: { createHTMLDocument: () => parseHTML('<!doctype html><html><head></head><body></body></html>').document } });
    return document as unknown as Document;
  }
}

const NOW = Date.UTC(2026, 10, 30, 12);
const body = `<!doctype html><html lang="en"><head><title>Inbox</title></head><body><main><h1>Inbox</h1><p>${Array.from({ length: 80 }, (_, i) => `mail${i}`).join(' ')}</p></main></body></html>`;

let server: Server;
let port = 0;
const hits: { host: string; path: string; headers: IncomingHttpHeaders }[] = [];

beforeAll(async () => {
  (globalThis as { DOMParser?: unknown }).DOMParser = LinkedomParser;
  server = createServer((req, res) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    hits.push({ host, path: req.url ?? '', headers: req.headers });
    // A page of a site the user did not exclude that sends its visitors on to one they did (a short link,
    // a "continue to your account" hop, a tracker's bounce).
    if (req.url === '/go') res.writeHead(302, { location: `http://localhost:${port}/inbox` }).end();
    else res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
  });
  // Every interface (IPv4 and IPv6): `localhost` reaches it whichever way it resolves.
  await new Promise<void>((r) => server.listen(0, r));
  port = (server.address() as { port: number }).port;
});

afterAll(() => {
  server?.closeAllConnections();
  server?.close();
  delete (globalThis as { DOMParser?: unknown }).DOMParser;
});

describe('the backfill and redirects', () => {
  it('never sends a request to where a redirect points (an excluded site, the user\'s own network)', async () => {
    // Positive control: the redirect's target is reachable here, so a request to it would be seen.
    await fetch(`http://localhost:${port}/control`);
    expect(hits.some((h) => h.host === 'localhost')).toBe(true);
    hits.length = 0;
    const res = await readHtml(`http://127.0.0.1:${port}/go`);
    expect(res).toMatchObject({ ok: false, reason: 'redirected' });
    expect(hits.map((h) => h.host + h.path)).toEqual(['127.0.0.1/go']);
  });

  it('leaves pages on the user\'s own network or computer title-only without asking them again', async () => {
    const engine = engineOn(await freshDb());
    const local = ['http://192.168.1.1/reboot.cgi', 'http://router/admin', 'http://printer.local/status', 'http://127.0.0.1:8080/dev', 'http://[fd00::5]/nas'];
    const items = [...local, 'https://docs.example/guide'].map((url, i) => ({ url, title: `Entry ${i}`, lastVisitTime: NOW - (i + 1) * 60_000, visitCount: 1 }));
    const imp = new HistoryImport(engine, () => fakeHistory(items), () => NOW);
    await imp.start(0);
    await imp.whenIdle();
    const asked: string[] = [];
    const reader: PageReader = {
      async readHtml(url) {
        asked.push(url);
        return { ok: false, reason: 'http-error', status: 500 };
      },
      readPdf: async () => ({ ok: false, problem: 'broken' }),
    };
    const bf = new Backfill(engine, reader, () => NOW);
    await bf.control('start');
    await bf.whenIdle();
    expect(asked).toEqual(['https://docs.example/guide']);
    const st = await bf.status();
    expect(st.reasons['local-network']).toBe(local.length);
    expect(`${st.done} of ${st.total}`).toBe(`${local.length + 1} of ${local.length + 1}`);
  });
});

describe('decoding a fetched page', () => {
  const enc = (s: string) => new TextEncoder().encode(s);

  it('a UTF-8 byte order mark wins over the charset the header names (as browsers read it)', () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...enc('<p>Café crème</p>')]);
    expect(decodeHtml(bytes, 'text/html; charset=iso-8859-1')).toBe('<p>Café crème</p>');
  });

  it('a UTF-16 byte order mark is read as UTF-16 when the header names no charset', () => {
    const text = '<p>Grüße</p>';
    const bytes = new Uint8Array([0xff, 0xfe, ...Array.from(text).flatMap((c) => [c.charCodeAt(0) & 255, c.charCodeAt(0) >> 8])]);
    expect(decodeHtml(bytes, 'text/html')).toBe(text);
  });

  it('<meta charset="utf-16"> in a document of ASCII bytes means UTF-8 (HTML prescan), not CJK mojibake', () => {
    const html = '<!doctype html><meta charset="utf-16"><title>Notes</title><p>hello world</p>';
    expect(decodeHtml(enc(html), 'text/html')).toBe(html);
  });

  it('the whole read: a page with a BOM and a wrong header is stored as the words it has', async () => {
    const words = Array.from({ length: 60 }, (_, i) => `crème${i}`).join(' ');
    const page = `<!doctype html><html lang="fr"><head><title>Crème brûlée</title></head><body><main><h1>Crème brûlée</h1><p>${words}</p></main></body></html>`;
    const local = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=iso-8859-1' }).end(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(page, 'utf8')])));
    await new Promise<void>((r) => local.listen(0, '127.0.0.1', r));
    try {
      const res = await readHtml(`http://127.0.0.1:${(local.address() as { port: number }).port}/`);
      expect(res.ok).toBe(true);
      if (!res.ok) return;
      expect(res.title).toBe('Crème brûlée');
      expect(res.blocks.map((b) => b.text).join(' ')).not.toContain('Ã');
    } finally {
      local.close();
    }
  });
});
