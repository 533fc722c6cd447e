/** Entry of the offscreen document (Chrome): see background/embedding/offscreenServer.ts. */
import { serveEmbeddings } from '../background/embedding/offscreenServer.js';

serveEmbeddings();
