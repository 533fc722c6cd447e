import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { editDistance, maxEditsFor, spellable, STEM_ENDINGS, TermDictionary } from '../../src/spelling.js';

/** Optimal string alignment distance, the textbook full table. */
function osa(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

const word = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'd', 'e'), maxLength: 9 });

describe('editDistance', () => {
  it('is the optimal string alignment distance, capped at max + 1 (property)', () => {
    fc.assert(
      fc.property(word, word, fc.integer({ min: 0, max: 4 }), (a, b, max) => {
        expect(editDistance(a, b, max)).toBe(Math.min(osa(a, b), max + 1));
      }),
      { numRuns: 3000 },
    );
  });

  it('counts a swap of neighbours as one edit', () => {
    expect(editDistance('argprase', 'argparse', 2)).toBe(1);
    expect(editDistance('optoins', 'options', 2)).toBe(1);
  });
});

describe('TermDictionary', () => {
  it('finds exactly the spellable terms within the distance that share the first or second letter (property)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(word, { maxLength: 60 }), word, fc.integer({ min: 1, max: 2 }), (terms, q, max) => {
        const dict = new TermDictionary();
        for (const t of terms) dict.add(t);
        // Each term is compared as it is and with each ending the stemmer takes off added back; the
        // nearest form counts (the plain term among equals, then the first ending).
        const nearest = (t: string) => {
          let out: { term: string; distance: number; ending?: string } = { term: t, distance: osa(q, t) };
          for (const ending of STEM_ENDINGS) {
            const d = osa(q, t + ending);
            if (d < out.distance) out = { term: t, distance: d, ending };
          }
          return out;
        };
        const want = terms
          .filter((t) => spellable(t) && spellable(q) && t !== q && (t[0] === q[0] || t[0] === q[1]))
          .map(nearest)
          .filter((c) => c.distance <= max)
          .sort((a, b) => a.distance - b.distance || (a.term < b.term ? -1 : 1));
        expect(dict.near(q, max)).toEqual(want);
      }),
      { numRuns: 1000 },
    );
  });

  it('compares a stem with the endings the stemmer takes off: a typo in -ing finds the stem', () => {
    const dict = new TermDictionary();
    for (const t of ['sett', 'setup', 'section']) dict.add(t);
    expect(dict.near('settign', 2)[0]).toEqual({ term: 'sett', distance: 1, ending: 'ing' });
    expect(dict.near('setp', 1)[0]).toEqual({ term: 'sett', distance: 1 });
  });

  it('keeps only words of letters, and allows more edits for longer words', () => {
    const dict = new TermDictionary();
    for (const t of ['os.path', '3.11', 'err_5041', '東京都', 'argparse']) dict.add(t);
    expect(dict.size).toBe(1);
    expect(maxEditsFor('abc')).toBe(0);
    expect(maxEditsFor('pyhton')).toBe(1);
    expect(maxEditsFor('argprase')).toBe(2);
  });
});
