import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { groupByPage } from '../../src/group.js';
import { hash53, hashHex } from '../../src/hash.js';
import { topTerms } from '../../src/moreLikeThis.js';

describe('groupByPage', () => {
  it('groups by page in rank order, best section first, capped', () => {
    const ranked = [
      { id: 1, url: 'a' },
      { id: 2, url: 'b' },
      { id: 3, url: 'a' },
      { id: 4, url: 'a' },
      { id: 5, url: 'a' },
      { id: 6, url: 'c' },
      { id: 7, url: 'b' },
    ];
    expect(groupByPage(ranked, 2)).toEqual([
      { best: { id: 1, url: 'a' }, more: [{ id: 3, url: 'a' }, { id: 4, url: 'a' }] },
      { best: { id: 2, url: 'b' }, more: [{ id: 7, url: 'b' }] },
    ]);
    expect(groupByPage(ranked, 10, 1).every((g) => g.more.length === 0)).toBe(true);
    expect(groupByPage(ranked, 0)).toEqual([]);
  });

  it('keeps every page once, in order of its best hit (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'e'), { maxLength: 40 }), fc.integer({ min: 0, max: 6 }), fc.integer({ min: 1, max: 4 }), (urls, limit, per) => {
        const ranked = urls.map((url, id) => ({ id, url }));
        const groups = groupByPage(ranked, limit, per);
        const firstSeen = [...new Set(urls)].slice(0, limit);
        expect(groups.map((g) => g.best.url)).toEqual(firstSeen);
        for (const g of groups) {
          expect(g.more.length).toBeLessThanOrEqual(per - 1);
          const ids = [g.best, ...g.more].map((h) => h.id);
          expect(ids).toEqual(ranked.filter((h) => h.url === g.best.url).slice(0, per).map((h) => h.id));
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('topTerms', () => {
  it('prefers frequent terms that are rare in the corpus, skipping short words and numbers', () => {
    const terms = ['the', 'the', 'the', 'sourdough', 'sourdough', 'starter', 'of', '2024', 'flour'];
    const df = new Map([['the', 1000], ['sourdough', 3], ['starter', 10], ['flour', 50]]);
    expect(topTerms(terms, (t) => df.get(t) ?? 0, 1000, 3)).toEqual(['sourdough', 'starter', 'flour']);
  });

  it('is deterministic on ties', () => {
    expect(topTerms(['bbb', 'aaa', 'ccc'], () => 1, 10)).toEqual(['aaa', 'bbb', 'ccc']);
  });
});

describe('hash53', () => {
  it('is stable, 53-bit, and tells small changes apart', () => {
    expect(hash53('hello')).toBe(hash53('hello'));
    expect(Number.isSafeInteger(hash53('x'.repeat(1000)))).toBe(true);
    expect(hash53('hello')).not.toBe(hash53('hellp'));
    expect(hash53('a', 1)).not.toBe(hash53('a', 2));
    expect(hashHex('')).toMatch(/^[0-9a-f]{14}$/);
  });

  it('has no collisions on 20k near-identical strings', () => {
    const seen = new Set<number>();
    for (let i = 0; i < 20_000; i++) seen.add(hash53(`page ${i}\u0000body`));
    expect(seen.size).toBe(20_000);
  });
});
