/**
 * What the Chromium and Firefox end-to-end harnesses share: where things are, the fixture page server
 * (static folders and in-memory routes on a loopback address), and polling.
 */
import { createServer, type Server } from 'node:http';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname, join, normalize, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');
export const FIXTURES = join(ROOT, 'tests/fixtures');
export const PYTHON_DOCS = '/usr/share/doc/python3.11/html';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css',
  '.js': 'text/javascript',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

export interface FixtureServer {
  origin: string;
  url(path: string): string;
  /** Every request path seen, in order. */
  requests: string[];
  /** Dynamic routes: path -> html. */
  routes: Map<string, string>;
  close(): Promise<void>;
}

/** Serves `mounts` (url prefix -> folder) and dynamic routes on 127.0.0.1 at a free port. */
export async function serve(mounts: Record<string, string> = { '/': join(FIXTURES, 'pages') }, host = '127.0.0.1'): Promise<FixtureServer> {
  const requests: string[] = [];
  const routes = new Map<string, string>();
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    requests.push(path);
    const dynamic = routes.get(path);
    if (dynamic !== undefined) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(dynamic);
      return;
    }
    const prefix = Object.keys(mounts)
      .sort((a, b) => b.length - a.length)
      .find((p) => path.startsWith(p));
    if (prefix === undefined) {
      res.writeHead(404).end();
      return;
    }
    const base = mounts[prefix]!;
    let file = normalize(join(base, path.slice(prefix.length)));
    if (!file.startsWith(base)) {
      res.writeHead(403).end();
      return;
    }
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
    if (!existsSync(file)) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
    res.end(readFileSync(file));
  });
  await new Promise<void>((r) => server.listen(0, host, r));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  const origin = `http://${host}:${port}`;
  return {
    origin,
    url: (p) => origin + (p.startsWith('/') ? p : '/' + p),
    requests,
    routes,
    close: () =>
      new Promise((r) => {
        server.close(() => r());
        // Browsers keep connections alive for minutes; do not wait for them.
        server.closeAllConnections();
      }),
  };
}

/** Polls until `check` returns a truthy value. */
export async function until<T>(check: () => Promise<T>, what: string, timeoutMs = 20_000, everyMs = 100): Promise<NonNullable<T>> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v) return v as NonNullable<T>;
      last = v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what} (last: ${String(last)})`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
