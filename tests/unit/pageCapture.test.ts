/**
 * The capture step on a parsed document (what the backfill does with a fetched page, DOMParser in the
 * offscreen document or background page): the same function the content script runs on the live page,
 * and what it returns is what the background accepts.
 */
import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import { chunkBlocks, CHUNKER_VERSION } from '../../src/chunker.js';
import { validateCapture } from '../../src/validate.js';
import { captureDocument } from '../../content/pageCapture.js';

const words = (n: number, p: string) => Array.from({ length: n }, (_, i) => `${p}${i}`).join(' ');

describe('captureDocument on a parsed page', () => {
  it('extracts the main content, cuts it like the background would, and the background accepts it as sent', async () => {
    const { document } = parseHTML(`<!doctype html><html lang="en"><head><title>Fetched page</title></head><body>
      <nav>Home | About | Contact</nav>
      <main><h1 id="top">Fetched page</h1><p>${words(60, 'intro')}.</p>
      <h2 id="usage">Usage</h2><p>${words(500, 'use')}.</p><pre id="ex">x = 1\n  y = 2</pre></main>
      <footer>Copyright</footer></body></html>`);
    // linkedom has no DOMImplementation (browsers do): the sanitised copy for Readability comes from it.
    Object.defineProperty(document, 'implementation', { value: { createHTMLDocument: () => parseHTML('<!doctype html><html><head></head><body></body></html>').document } });
    let yields = 0;
    const got = (await captureDocument(document as unknown as Document, { live: false, fallbackTitle: 'example.com', yieldToPage: async () => void yields++ }))!;
    expect(got.payload.title).toBe('Fetched page');
    expect(got.payload.lang).toBe('en');
    expect(got.payload.chunker).toBe(CHUNKER_VERSION);
    expect(got.payload.blocks.map((b) => b.text).join(' ')).not.toMatch(/Home \| About|Copyright/);
    expect(got.payload.sections).toEqual(chunkBlocks(got.payload.blocks).chunks);
    expect(got.payload.sections.map((s) => s.anchor.id)).toContain('usage');
    expect(yields).toBeGreaterThan(0);
    const { payload } = validateCapture(JSON.parse(JSON.stringify(got.payload)));
    expect(payload.sections).toEqual(got.payload.sections);
  });

  it('returns null for a document without a body', async () => {
    const doc = { body: null } as unknown as Document;
    expect(await captureDocument(doc, { live: false, fallbackTitle: 'x' })).toBeNull();
  });
});
