import { describe, expect, it } from 'vitest';
import { clip, describe as describeSuggestion, xmlEscape } from '../../src/omnibox.js';

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

describe('omnibox suggestion text', () => {
  it('cuts long text with an ellipsis, never inside an emoji', () => {
    expect(clip('short', 10)).toBe('short');
    expect(clip('abcdefghijkl', 10)).toBe('abcdefghi…');
    // The cut fell between the two halves of 🐍: the popup drew "�…".
    const title = 'a'.repeat(88) + '🐍 snake';
    for (let n = 80; n < 95; n++) expect(clip(title, n)).not.toMatch(LONE_SURROGATE);
    expect(clip(title, 90)).toBe('a'.repeat(88) + '…');
    const d = describeSuggestion(title, 'Section', [{ text: '🐍'.repeat(100), match: false }], true);
    expect(d).not.toMatch(LONE_SURROGATE);
    expect(describeSuggestion(title, '', [{ text: 'x 🐍'.repeat(60), match: false }], false)).not.toMatch(LONE_SURROGATE);
  });

  it('escapes page text and marks the matched words', () => {
    const d = describeSuggestion('<b>Title</b> & co', '', [{ text: 'see ', match: false }, { text: '<img src=x>', match: true }], true);
    expect(d).toBe('&lt;b&gt;Title&lt;/b&gt; &amp; co <dim>—</dim> <dim>see <match>&lt;img src=x&gt;</match></dim>');
    expect(xmlEscape('a\u0001"\'')).toBe('a&quot;&apos;');
  });
});
