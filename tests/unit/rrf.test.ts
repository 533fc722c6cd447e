import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyQuery, fuseHybrid, type DenseCalibration } from '../../src/hybrid.js';
import { DEFAULT_RRF_K, rrfFuse, type LaneHit } from '../../src/rrf.js';

const hits = (...ids: number[]): LaneHit[] => ids.map((id, i) => ({ id, score: 10 - i }));

describe('rrfFuse', { timeout: 30_000 }, () => {
  it('is the weighted formula, exactly', () => {
    const fused = rrfFuse(
      [
        { name: 'lexical', hits: hits(1, 2, 3), weight: 1 },
        { name: 'dense', hits: hits(3, 4), weight: 0.5 },
      ],
      60,
    );
    const byId = new Map(fused.map((f) => [f.id, f]));
    expect(byId.get(1)!.score).toBe(1 / 61);
    expect(byId.get(2)!.score).toBe(1 / 62);
    expect(byId.get(3)!.score).toBe(1 / 63 + 0.5 / 61);
    expect(byId.get(4)!.score).toBe(0.5 / 62);
    expect(byId.get(3)!.ranks).toEqual({ lexical: 3, dense: 1 });
    expect(byId.get(3)!.laneScores).toEqual({ lexical: 8, dense: 10 });
    expect(fused.map((f) => f.id)).toEqual([3, 1, 2, 4]);
  });

  it('matches the formula on random lanes, sorted by score then id (property)', () => {
    const lane = fc.uniqueArray(fc.integer({ min: 0, max: 60 }), { maxLength: 40 });
    fc.assert(
      fc.property(lane, lane, fc.double({ min: 0, max: 5, noNaN: true }), fc.double({ min: 0, max: 5, noNaN: true }), fc.integer({ min: 1, max: 100 }), (a, b, wa, wb, k) => {
        const fused = rrfFuse(
          [
            { name: 'lexical', hits: hits(...a), weight: wa },
            { name: 'dense', hits: hits(...b), weight: wb },
          ],
          k,
        );
        const want = new Map<number, number>();
        if (wa > 0) a.forEach((id, i) => want.set(id, (want.get(id) ?? 0) + wa / (k + i + 1)));
        if (wb > 0) b.forEach((id, i) => want.set(id, (want.get(id) ?? 0) + wb / (k + i + 1)));
        expect(new Set(fused.map((f) => f.id))).toEqual(new Set(want.keys()));
        for (const f of fused) expect(f.score).toBeCloseTo(want.get(f.id)!, 12);
        for (let i = 1; i < fused.length; i++) {
          const p = fused[i - 1]!;
          const c = fused[i]!;
          expect(p.score > c.score || (p.score === c.score && p.id < c.id)).toBe(true);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('a lane of weight 0 contributes nothing, not even its ids', () => {
    const fused = rrfFuse([
      { name: 'lexical', hits: hits(1), weight: 1 },
      { name: 'dense', hits: hits(2, 1), weight: 0 },
    ]);
    expect(fused).toEqual([{ id: 1, score: 1 / (DEFAULT_RRF_K + 1), ranks: { lexical: 1 }, laneScores: { lexical: 10 }, terms: [] }]);
  });

  it('counts a repeated id once per lane, at its best rank', () => {
    const [f] = rrfFuse([{ name: 'lexical', hits: hits(7, 7, 7), weight: 1 }], 60);
    expect(f!.score).toBe(1 / 61);
  });

  it('merges the lexical terms', () => {
    const [f] = rrfFuse([{ name: 'lexical', hits: [{ id: 1, score: 1, terms: ['a', 'b'] }], weight: 1 }]);
    expect(f!.terms).toEqual(['a', 'b']);
  });
});

describe('fuseHybrid', () => {
  const cal: DenseCalibration = {
    floor: 0.5,
    weights: { identifier: { lexical: 1, dense: 0.25 }, natural: { lexical: 0.5, dense: 1 }, phrase: { lexical: 1, dense: 1 } },
  };

  it('drops dense-only hits under the floor, keeps them when lexical found them too', () => {
    const fused = fuseHybrid({
      lexical: hits(1),
      dense: [
        { id: 2, score: 0.9 },
        { id: 1, score: 0.1 },
        { id: 3, score: 0.49 },
      ],
      queryClass: 'phrase',
      calibration: cal,
      rrfK: 60,
    });
    const ids = fused.map((f) => f.id).sort();
    expect(ids).toEqual([1, 2]);
    const one = fused.find((f) => f.id === 1)!;
    // Rank 2 in the dense lane: the dropped hit 3 came after it, so it does not shift the ranks.
    expect(one.ranks).toEqual({ lexical: 1, dense: 2 });
    expect(one.score).toBe(1 / 61 + 1 / 62);
  });

  it('uses the class weights times the user weights', () => {
    const fused = fuseHybrid({ lexical: hits(1), dense: [{ id: 2, score: 0.9 }], queryClass: 'identifier', calibration: cal, rrfK: 10, userWeights: { lexical: 2, dense: 4 } });
    expect(fused.find((f) => f.id === 1)!.score).toBe(2 / 11);
    expect(fused.find((f) => f.id === 2)!.score).toBe(1 / 11);
  });

  it('is lexical-only without a calibration (no model loaded)', () => {
    const fused = fuseHybrid({ lexical: hits(1, 2), dense: [{ id: 3, score: 0.99 }], queryClass: 'natural', calibration: null, rrfK: 60 });
    expect(fused.map((f) => f.id)).toEqual([1, 2]);
  });

  it('a user weight of 0 switches a lane off', () => {
    const fused = fuseHybrid({ lexical: hits(1), dense: [{ id: 2, score: 0.99 }], queryClass: 'phrase', calibration: cal, rrfK: 60, userWeights: { lexical: 1, dense: 0 } });
    expect(fused.map((f) => f.id)).toEqual([1]);
  });
});

describe('classifyQuery', () => {
  it.each([
    'ERR_5041',
    'getElementById',
    'os.path.join',
    'pg_stat_activity',
    'error 404',
    'python3',
    '__init__',
    'git --force',
    'XMLHttpRequest',
    'len()',
    'how does os.path.join work',
    'Read::bytes',
    'std::fs::File::open',
  ])('%s is an identifier query', (q) => {
    expect(classifyQuery(q)).toBe('identifier');
  });

  it.each(['how do I undo a commit', 'why is the sky blue', 'cats that like water?', 'the best way to bake sourdough bread at home'])('%s is natural language', (q) => {
    expect(classifyQuery(q)).toBe('natural');
  });

  it.each(['sourdough bread', 'litter box', 'undo commit', ''])('%s is a short phrase', (q) => {
    expect(classifyQuery(q)).toBe('phrase');
  });
});
