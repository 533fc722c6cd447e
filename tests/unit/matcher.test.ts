import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TOKENIZER } from '../../src/indexing.js';
import { QueryMatcher } from '../../src/matcher.js';
import { queryWords } from '../../src/queryPlan.js';

const pieces = ['cat', 'cats', 'Catalog', 'os.path.join', 'getElementById', 'ERR_5041', 'queries', 'query', 'parse', 'parsing', 'a::b', 'x-y', ' ', '  ', '. ', ', ', '.', '-', '::', ':', '\n', '(', ')', 'q', 'I', 'the', 'élan'];
const text = fc.array(fc.constantFrom(...pieces), { maxLength: 40 }).map((xs) => xs.join(''));
const query = fc.array(fc.constantFrom('cats', 'path', 'element', 'err', 'query', 'parse', 'the', 'a', 'x', 'I', 'join', 'q'), { minLength: 1, maxLength: 4 }).map((ws) => ws.join(' '));

describe('QueryMatcher.locate', () => {
  it('finds the words scan finds, with the same distances between matches near each other (property)', () => {
    fc.assert(
      fc.property(text, query, (t, q) => {
        const m = new QueryMatcher(queryWords(q, TOKENIZER).map((w) => w.terms), TOKENIZER);
        const a = m.locate(t);
        const b = m.scan(t);
        expect([a.start, a.end, a.mask]).toEqual([b.start, b.end, b.mask]);
        for (let i = 1; i < a.pos.length; i++) if (a.start[i]! - a.end[i - 1]! <= 80) expect(a.pos[i]! - a.pos[i - 1]!).toBe(b.pos[i]! - b.pos[i - 1]!);
      }),
      { numRuns: 3000 },
    );
  });
});
