/**
 * Entry of the offscreen document (Chrome): the embedding model (background/embedding/offscreenServer.ts)
 * and the page reader for the backfill and PDFs (background/reader/offscreenServer.ts).
 */
import { serveEmbeddings } from '../background/embedding/offscreenServer.js';
import { servePageReader } from '../background/reader/offscreenServer.js';

serveEmbeddings();
servePageReader();
