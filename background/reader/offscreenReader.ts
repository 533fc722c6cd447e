/**
 * The worker's side of the reader in Chrome's offscreen document: one channel (READER_PORT), re-opened
 * (and the document re-created) whenever it was closed. Requests that were in flight when the document
 * or the worker went away fail; the backfill tries those pages again later, a PDF note says so.
 */
import { OffscreenChannel } from '../offscreenChannel.js';
import { touchOffscreenDocument } from '../offscreenDocument.js';
import { parseReaderReply, READER_PORT, type PageReader, type ReaderRequest, type ReadHtmlResult, type ReadPdfResult } from './readerProtocol.js';

const channel = new OffscreenChannel<ReaderRequest>({ name: READER_PORT, who: 'the reader', timeoutMs: 2 * 60_000, receive: parseReaderReply });

export const offscreenReader: PageReader = {
  async readHtml(url: string): Promise<ReadHtmlResult> {
    touchOffscreenDocument();
    return (await channel.request({ op: 'html', url })) as ReadHtmlResult;
  },
  async readPdf(url: string, credentials: 'include' | 'omit'): Promise<ReadPdfResult> {
    touchOffscreenDocument();
    return (await channel.request({ op: 'pdf', url, credentials })) as ReadPdfResult;
  },
};
