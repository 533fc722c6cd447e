/**
 * content-script payloads (src/validate.ts) holding text that is not well-formed, and addresses
 * longer than a field's cap. Block text is made well-formed (wellFormed) and an address a forget names is
 * checked whole, never cut ("a shortened address would name another page"); titles and the other
 * addresses are cut with String.slice.
 */
import { describe, expect, it } from 'vitest';
import { validateCapture, validateSearch } from '../../src/validate.js';

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const blocks = [{ kind: 'text', text: 'Some words on the page.' }];

describe('capture titles', () => {
  it('a title cut at the cap never ends in half an emoji', () => {
    // 499 characters, then 🐍 (two UTF-16 units) across the 500-character cap: the popup, the results page
    // and the omnibox then draw the stored title with a trailing �.
    const { payload } = validateCapture({ title: 'a'.repeat(499) + '🐍 and more', blocks });
    expect(payload.title).not.toMatch(LONE_SURROGATE);
  });

  it('a title holding a lone surrogate is stored well-formed, as block text is', () => {
    // A page can set document.title to any UTF-16 string; Chrome's messages carry it unchanged (JSON).
    const { payload } = validateCapture({ title: 'Snakes \ud83d and \udc0d ladders', blocks: [{ kind: 'text', text: 'x \ud83d y' }] });
    expect(payload.blocks[0]!.text).not.toMatch(LONE_SURROGATE);
    expect(payload.title).not.toMatch(LONE_SURROGATE);
  });
});

describe('addresses over a cap', () => {
  const long = 'https://example.com/app?state=' + 'a'.repeat(4100) + '&page=2';
  const verdict = (got: string | undefined) => (got === undefined ? 'dropped' : got === long ? 'whole' : `cut to ${got.length} of ${long.length} characters`);

  it("a capture's own address (a single-page app's pushState) is kept whole or dropped, never cut to another address", () => {
    // Cut, the capture is filed under the first 4,000 characters: a page nobody visited (capturedPageUrl
    // honours any address on the sender's own origin), while the sender's own address has no cap at all.
    const { payload } = validateCapture({ title: 't', blocks, url: long });
    expect(['whole', 'dropped']).toContain(verdict(payload.url));
  });

  it('a search leaves out exactly the page it names (related pages), or is refused', () => {
    // Cut, excludeUrl names no stored page (pageTable compares it whole), and the page itself comes back
    // first among the pages "related" to it.
    let got: string | undefined;
    try {
      got = validateSearch({ q: 'x', excludeUrl: long }).excludeUrl;
    } catch {
      return; // refused: fine
    }
    expect(verdict(got)).toBe('whole');
  });
});
