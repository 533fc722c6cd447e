/**
 * omnibox descriptions (src/omnibox.ts) from hostile page text. Chrome parses a description as
 * XML (whose characters exclude lone surrogates, as they exclude U+FFFE and U+FFFF, which xmlEscape already
 * drops); both browsers draw it as one line, where a page's bidi controls reorder what follows them.
 */
import { describe, expect, it } from 'vitest';
import { describe as describeSuggestion, xmlEscape } from '../../src/omnibox.js';

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * The bidi embeddings, overrides and isolates still open at `at` in `s` (UAX #9: PDF closes the last
 * embedding or override, PDI the last isolate and everything opened inside it).
 */
function openBidiAt(s: string, at: number): string[] {
  const stack: string[] = [];
  for (const ch of s.slice(0, at)) {
    if ('\u202a\u202b\u202d\u202e'.includes(ch)) stack.push(ch);
    else if ('\u2066\u2067\u2068'.includes(ch)) stack.push(ch);
    else if (ch === '\u202c') {
      if (stack.length && !'\u2066\u2067\u2068'.includes(stack[stack.length - 1]!)) stack.pop();
    } else if (ch === '\u2069') {
      let i = stack.length - 1;
      while (i >= 0 && !'\u2066\u2067\u2068'.includes(stack[i]!)) i--;
      if (i >= 0) stack.length = i;
    }
  }
  return stack;
}

describe('omnibox description text', () => {
  it('xmlEscape leaves no lone surrogate in XML (a page title holding one, or one cut from an emoji)', () => {
    expect(xmlEscape('a\ud800b')).not.toMatch(LONE_SURROGATE);
    expect(xmlEscape('a\udc00b')).not.toMatch(LONE_SURROGATE);
    // Whole pairs stay.
    expect(xmlEscape('🐍')).toBe('🐍');
    // Through a suggestion: a stored title with a lone surrogate (src/validate.ts keeps one in titles).
    const d = describeSuggestion('Snakes \ud83d and ladders', 'Rules', [{ text: 'roll \udc0d the die', match: false }], true);
    expect(d).not.toMatch(LONE_SURROGATE);
  });

  it.each([true, false])('a right-to-left override in a page title does not reorder the passage after it (markup %s)', (markup) => {
    // A title ending in U+202E RIGHT-TO-LEFT OVERRIDE draws the snippet after it backwards:
    // "— the snippet" shows as "teppins eht —". The popup isolates titles (tests/unit/bidiIsolation.test.ts).
    const d = describeSuggestion('Innocent title \u202e', 'Section \u202b', [{ text: 'the snippet', match: true }], markup);
    const dash = d.indexOf('—');
    expect(dash).toBeGreaterThan(0);
    expect(openBidiAt(d, dash)).toEqual([]);
  });
});
