/**
 * The reader's fetch (background/reader/fetchBody.ts): a read whose worker went away is aborted, and the
 * site sees its request end (the backfill's one request a host at a time holds across worker stops).
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchWithTimeout } from '../../background/reader/fetchBody.js';
import { readHtml } from '../../background/reader/readHtml.js';

let server: Server;
let base = '';
/** Requests the server is holding (never answered), and those the client gave up on. */
const holding = new Set<string>();
const closed: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = req.url ?? '/';
    holding.add(path);
    res.on('close', () => {
      if (!res.writableFinished) closed.push(path);
      holding.delete(path);
    });
    if (path.startsWith('/quick')) res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    // Else held: the answer never comes.
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const until = async (ok: () => boolean) => {
  for (let i = 0; i < 100 && !ok(); i++) await new Promise((r) => setTimeout(r, 20));
  return ok();
};

describe('fetchWithTimeout', () => {
  it('answers as fetch does when nothing cancels it', async () => {
    const { res, done } = await fetchWithTimeout(`${base}/quick`, {}, 5_000, new AbortController().signal);
    expect(await res.text()).toBe('ok');
    done();
  });

  it('aborts a request under way when the cancel signal fires: the server sees it closed', async () => {
    const cancel = new AbortController();
    // Its outcome taken at once: the rejection comes while the test waits for the server, not unhandled.
    const got = fetchWithTimeout(`${base}/held-1`, {}, 60_000, cancel.signal).then(
      () => 'answered',
      (e: unknown) => (e instanceof Error ? e.name : String(e)),
    );
    expect(await until(() => holding.has('/held-1'))).toBe(true);
    cancel.abort();
    expect(await until(() => closed.includes('/held-1'))).toBe(true);
    expect(await got).toBe('AbortError');
  });

  it('never starts a request whose signal has fired already', async () => {
    const cancel = new AbortController();
    cancel.abort();
    await expect(fetchWithTimeout(`${base}/held-2`, {}, 60_000, cancel.signal)).rejects.toThrow();
    await new Promise((r) => setTimeout(r, 100));
    expect(holding.has('/held-2')).toBe(false);
  });
});

describe('readHtml', () => {
  it('a page read cancelled midway is a network failure, and its request ends', async () => {
    const cancel = new AbortController();
    const got = readHtml(`${base}/held-3`, cancel.signal);
    expect(await until(() => holding.has('/held-3'))).toBe(true);
    cancel.abort();
    // Within two seconds (`until`), not at the read's own timeout.
    expect(await until(() => closed.includes('/held-3'))).toBe(true);
    expect(await got).toEqual({ ok: false, reason: 'network' });
  });
});
