/**
 * A recording HTTP proxy for the privacy tests (Chromium and Firefox): every request line and CONNECT
 * target is logged; only IPv4 loopback literals are forwarded, anything else is refused.
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';


export interface ProxyRecord {
  /** 'http': an absolute-form request line; 'connect': a tunnel (https, wss). */
  kind: 'http' | 'connect';
  method: string;
  /** host:port the browser asked for. */
  target: string;
  /** The request line's URL (http) or the CONNECT target. */
  url: string;
  forwarded: boolean;
}

export interface RecordingProxy {
  port: number;
  records: ProxyRecord[];
  close(): Promise<void>;
}

/** Only IPv4 loopback literals are forwarded; a name (even localhost) or any other address is refused. */
export const FORWARDABLE = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

export async function startRecordingProxy(): Promise<RecordingProxy> {
  const records: ProxyRecord[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      // Not a proxy request (origin-form): nobody should talk to the proxy directly.
      records.push({ kind: 'http', method: req.method ?? '?', target: '?', url: req.url ?? '', forwarded: false });
      res.writeHead(400).end();
      return;
    }
    const port = url.port || (url.protocol === 'https:' ? '443' : '80');
    const forwarded = url.protocol === 'http:' && FORWARDABLE.test(url.hostname);
    records.push({ kind: 'http', method: req.method ?? '?', target: `${url.hostname}:${port}`, url: url.href, forwarded });
    if (!forwarded) {
      res.writeHead(403, { 'content-type': 'text/plain' }).end('refused by the test proxy');
      return;
    }
    const headers = { ...req.headers };
    delete headers['proxy-connection'];
    delete headers['proxy-authorization'];
    const upstream = httpRequest({ host: url.hostname, port: Number(port), method: req.method, path: url.pathname + url.search, headers, agent: false }, (up: IncomingMessage) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => res.headersSent ? res.destroy() : res.writeHead(502).end());
    req.pipe(upstream);
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    const target = req.url ?? '';
    const [host, port] = [target.replace(/:\d+$/, ''), Number(/:(\d+)$/.exec(target)?.[1] ?? 443)];
    const forwarded = FORWARDABLE.test(host);
    records.push({ kind: 'connect', method: 'CONNECT', target, url: target, forwarded });
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    if (!forwarded) {
      client.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n');
      return;
    }
    const up = connect(port, host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) up.write(head);
      up.pipe(client);
      client.pipe(up);
    });
    up.on('error', () => client.destroy());
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return {
    port,
    records,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        for (const s of sockets) s.destroy();
        server.closeAllConnections();
      }),
  };
}
