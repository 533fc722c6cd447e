/**
 * A browser-like document in Node (linkedom) for the content script's extraction code. Two gaps of
 * linkedom are filled as a browser behaves, so extract.ts runs unchanged: `DOMParser` parses an HTML
 * fragment into a full document (linkedom puts it beside an empty body, where the walk never finds it),
 * and `document.implementation.createHTMLDocument` (absent in linkedom) gives an empty document, which
 * extractDocument fills with the sanitised copy Readability reads.
 */
import { DOMParser as LinkedomParser, parseHTML } from 'linkedom';

const FULL_DOCUMENT = /^\s*(?:<!doctype|<html[\s>])/i;

class BrowserLikeDOMParser {
  parseFromString(markup: string, type: string): Document {
    const html = type === 'text/html' && !FULL_DOCUMENT.test(markup) ? `<!doctype html><html><head></head><body>${markup}</body></html>` : markup;
    return new LinkedomParser().parseFromString(html, type as 'text/html') as unknown as Document;
  }
}

let installed = false;

/** Puts DOMParser and Node where extract.ts looks for them (globals, as in a page). */
export function installDomGlobals(): void {
  if (installed) return;
  installed = true;
  const g = globalThis as Record<string, unknown>;
  g.DOMParser = BrowserLikeDOMParser;
  g.Node ??= parseHTML('<!doctype html><html><body></body></html>').Node;
}

export function parseDocument(html: string): Document {
  installDomGlobals();
  const doc = parseHTML(html).document as unknown as Document;
  if (!doc.implementation?.createHTMLDocument) {
    Object.defineProperty(doc, 'implementation', { value: { createHTMLDocument: (title = '') => emptyDocument(title) }, configurable: true });
  }
  return doc;
}

export function emptyDocument(title = ''): Document {
  const doc = parseDocument('<!doctype html><html><head><title></title></head><body></body></html>');
  doc.title = title;
  return doc;
}
