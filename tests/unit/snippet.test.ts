import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { highlight, makeSnippet, type SnippetSegment } from '../../src/snippet.js';
import { tokenize } from '../../src/tokenizer.js';
import { hostileText } from './arbitraries.js';

const WORD = /[\p{L}\p{N}\p{M}_]+(?:(?:[.\-]|::)[\p{L}\p{N}\p{M}_]+)*/gu;
const join = (segs: SnippetSegment[]) => segs.map((s) => s.text).join('');
const marked = (segs: SnippetSegment[]) => segs.filter((s) => s.match).map((s) => s.text);

describe('highlight', { timeout: 30_000 }, () => {
  it('marks the words whose terms are searched, folded and compound', () => {
    const segs = highlight('Call getElementById, then see Café ERR_5041!', new Set(['element', 'cafe', '5041']));
    expect(marked(segs)).toEqual(['getElementById', 'Café', 'ERR_5041']);
    expect(join(segs)).toBe('Call getElementById, then see Café ERR_5041!');
  });

  it('marks nothing without terms and handles empty text', () => {
    expect(highlight('some text', new Set())).toEqual([{ text: 'some text', match: false }]);
    expect(highlight('', new Set(['a']))).toEqual([]);
  });

  it('never loses text and marks exactly the matching words (property)', () => {
    const vocab = ['cat', 'Cat', 'CATS', 'café', 'os.path', 'getElementById', 'x_1', '漢字', 'naïve', ' ', ', ', '\n', '-', '.'];
    const textArb = fc.oneof(hostileText(120), fc.array(fc.constantFrom(...vocab), { maxLength: 30 }).map((xs) => xs.join('')));
    fc.assert(
      fc.property(textArb, fc.uniqueArray(fc.constantFrom('cat', 'cats', 'cafe', 'path', 'get', 'id', 'x_1', '漢字', 'naive', 'zzz'), { maxLength: 4 }), (text, termList) => {
        const terms = new Set<string>(termList);
        const segs = highlight(text, terms);
        expect(join(segs)).toBe(text);
        for (const s of segs) {
          expect(s.text.length).toBeGreaterThan(0);
          const words = [...s.text.matchAll(WORD)].map((m) => m[0]);
          const hit = (w: string) => tokenize(w).some((t) => terms.has(t));
          if (s.match) {
            expect(words).toEqual([s.text]);
            expect(hit(s.text)).toBe(true);
          } else {
            expect(words.filter(hit)).toEqual([]);
          }
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('makeSnippet', { timeout: 30_000 }, () => {
  it('returns the whole (whitespace-collapsed) text when short', () => {
    const segs = makeSnippet('  a  cat\n\nsat ', new Set(['cat']));
    expect(join(segs)).toBe('a cat sat');
    expect(marked(segs)).toEqual(['cat']);
  });

  it('centres a long text on its matches, with ellipses', () => {
    const filler = (n: number, w: string) => Array.from({ length: n }, (_, i) => `${w}${i}`).join(' ');
    const body = `${filler(100, 'before')} the zephyrine litter box ${filler(100, 'after')}`;
    const segs = makeSnippet(body, new Set(['zephyrine']), 20);
    expect(segs[0]).toEqual({ text: '… ', match: false });
    expect(segs[segs.length - 1]).toEqual({ text: ' …', match: false });
    expect(marked(segs)).toEqual(['zephyrine']);
    const inner = join(segs.slice(1, -1));
    expect(body.includes(inner)).toBe(true);
    expect(inner.split(' ')).toHaveLength(20);
  });

  it('takes the window with the most matches, and the start when nothing matches', () => {
    const words = Array.from({ length: 200 }, (_, i) => (i === 20 || i === 150 || i === 155 || i === 158 ? 'match' : `w${i}`));
    const segs = makeSnippet(words.join(' '), new Set(['match']), 20);
    expect(marked(segs)).toHaveLength(3);
    const none = makeSnippet(words.join(' '), new Set(['absent']), 10);
    expect(none[0]!.text.startsWith('w0 ')).toBe(true);
    expect(none[none.length - 1]).toEqual({ text: ' …', match: false });
  });

  it('never throws and stays within the text (property)', () => {
    fc.assert(
      fc.property(hostileText(400), fc.uniqueArray(fc.constantFrom('a', 'cat', '漢', 'x'), { maxLength: 3 }), fc.integer({ min: 1, max: 50 }), (body, terms, max) => {
        const segs = makeSnippet(body, new Set(terms), max);
        const inner = join(segs).replace(/^… /, '').replace(/ …$/, '');
        expect(body.replace(/\s+/g, ' ').trim().includes(inner)).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it('shows a match whenever the text has one (property)', () => {
    const words = fc.array(fc.oneof({ weight: 20, arbitrary: fc.constantFrom('lorem', 'ipsum', 'dolor', 'sit', 'amet') }, { weight: 1, arbitrary: fc.constant('needle') }), { minLength: 1, maxLength: 300 });
    fc.assert(
      fc.property(words, fc.integer({ min: 1, max: 40 }), (ws, max) => {
        const segs = makeSnippet(ws.join(' '), new Set(['needle']), max);
        // As many matches as the best window of `max` words holds.
        let best = 0;
        for (let i = 0; i + Math.min(max, ws.length) <= ws.length; i++) best = Math.max(best, ws.slice(i, i + max).filter((w) => w === 'needle').length);
        expect(marked(segs)).toHaveLength(best);
      }),
      { numRuns: 1000 },
    );
  });
});
