/** Firefox's background page (a document) reads pages itself; Chrome's worker uses host.chrome.ts. */
import { readHtml } from './readHtml.js';
import { readPdf } from './pdfText.js';
import type { PageReader } from './readerProtocol.js';

export const inProcessReader: PageReader = { readHtml, readPdf };
