/**
 * The offscreen document's side of the reader (Chrome): answers the service worker's read requests over
 * READER_PORT. Like the embedding server, it accepts a port only from this extension's own service
 * worker and ignores malformed requests.
 */
import { fromOwnServiceWorker } from '../embedding/offscreenServer.js';
import { readHtml } from './readHtml.js';
import { readPdf } from './pdfText.js';
import { parseReaderRequest, READER_PORT, type ReaderReply } from './readerProtocol.js';

export function servePageReader(): void {
  const workerUrl = chrome.runtime.getURL('background.js');
  chrome.runtime.onConnect.addListener((port) => {
    if (port.name !== READER_PORT) return;
    if (!fromOwnServiceWorker(port.sender, chrome.runtime.id, workerUrl)) {
      port.disconnect();
      return;
    }
    let open = true;
    // The worker that asked went away (stopped while a page was read): its reads are aborted, so no site
    // sees a request of a stopped worker go on beside the next one's (one request a host at a time).
    const gone = new AbortController();
    port.onDisconnect.addListener(() => {
      open = false;
      gone.abort();
    });
    const send = (m: ReaderReply) => {
      if (open) port.postMessage(m);
    };
    port.onMessage.addListener((raw: unknown) => {
      const req = parseReaderRequest(raw);
      if (!req) return;
      const work = req.op === 'hello' ? Promise.resolve(null) : req.op === 'html' ? readHtml(req.url, gone.signal) : readPdf(req.url, req.credentials, gone.signal);
      work.then(
        (data) => send({ id: req.id, ok: true, data }),
        (e: unknown) => send({ id: req.id, ok: false, error: e instanceof Error ? e.message : String(e) }),
      );
    });
  });
}
