import { describe, expect, it } from 'vitest';
import { expansionTerms, relevanceModel } from '../../src/expansion.js';

describe('pseudo-relevance feedback (RM3)', () => {
  const feedback = [
    { text: 'The garbage collector frees unreachable objects; the collector runs in generations.', score: 10 },
    { text: 'Generations of the collector: young objects are collected often.', score: 9 },
    { text: 'An unrelated section about sockets and ports.', score: 1 },
  ];

  it('proposes the words the best sections share, never the query’s own or stop words', () => {
    const c = relevanceModel(feedback, new Set(['garbage']), { docs: 3, terms: 2, weight: 0.5 }, { stem: true });
    const terms = c.map((x) => x.term);
    expect(terms[0]).toBe('collector');
    expect(terms).not.toContain('garbage');
    expect(terms).not.toContain('the');
    expect(terms.length).toBeLessThanOrEqual(6);
  });

  it('weighs the chosen terms by P(t|R) x idf, in all `weight`, and leaves out words in over a tenth of the sections', () => {
    const c = [
      { term: 'collector', p: 0.2 },
      { term: 'generation', p: 0.1 },
      { term: 'object', p: 0.15 },
    ];
    const df = (t: string) => ({ collector: 5, generation: 5, object: 400 })[t] ?? 0;
    const out = expansionTerms(c, df, 1000, { docs: 3, terms: 2, weight: 0.5 });
    expect(out.map((x) => x.term)).toEqual(['collector', 'generation']);
    expect(out.reduce((a, x) => a + x.weight, 0)).toBeCloseTo(0.5, 12);
    expect(out[0]!.weight).toBeGreaterThan(out[1]!.weight);
  });

  it('adds nothing when turned off', () => {
    expect(relevanceModel(feedback, new Set(), { docs: 3, terms: 0, weight: 0.5 }, {})).toEqual([]);
  });
});
