import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IdTable } from '../../src/idTable.js';

describe('IdTable', () => {
  it('holds one value per id like a Map, allocating pages only where ids are (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 5_000_000 }), fc.integer({ min: 0, max: 0xffff_ffff })), { maxLength: 300 }), fc.array(fc.integer({ min: 0, max: 5_000_000 }), { maxLength: 50 }), (sets, clears) => {
        const t = new IdTable();
        const m = new Map<number, number>();
        for (const [id, v] of sets) {
          t.set(id, v);
          m.set(id, v);
        }
        t.clear(clears);
        for (const id of clears) m.delete(id);
        for (const [id] of sets) expect(t.get(id)).toBe(m.get(id) ?? 0);
        expect(t.get(7_000_000)).toBe(0);
        expect(t.bytes).toBeLessThanOrEqual(new Set(sets.map(([id]) => id >>> 14)).size * 65_536);
      }),
      { numRuns: 100 },
    );
  });

  it('setAll, lookup and reset', () => {
    const t = new IdTable();
    t.setAll([3, 4, 5], [30, 40]);
    expect([3, 4, 5].map(t.lookup)).toEqual([30, 40, 0]);
    t.setAll([9, 10], 7);
    expect(t.get(10)).toBe(7);
    t.reset();
    expect(t.get(3)).toBe(0);
    expect(t.bytes).toBe(0);
  });

  it('setRun fills a run of ids as set() one by one would, across table pages (property)', () => {
    // Runs up to 40,000 ids from anywhere (a table page holds 16,384), with lengths from a part of a larger array.
    const run = fc.record({ first: fc.integer({ min: 0, max: 100_000 }), length: fc.integer({ min: 0, max: 40_000 }), offset: fc.integer({ min: 0, max: 50 }), seed: fc.integer({ min: 1, max: 1000 }), constant: fc.option(fc.integer({ min: 1, max: 0xffff_ffff })) });
    fc.assert(
      fc.property(fc.array(run, { maxLength: 5 }), (runs) => {
        const t = new IdTable();
        const m = new Map<number, number>();
        for (const { first, length, offset, seed, constant } of runs) {
          const values = Uint32Array.from({ length: offset + length }, (_, i) => (i * seed) % 70_000);
          t.setRun(first, constant ?? values, offset, offset + length);
          for (let i = 0; i < length; i++) m.set(first + i, constant ?? values[offset + i]!);
        }
        for (const [id, v] of m) if (t.get(id) !== v) expect(t.get(id), `id ${id}`).toBe(v);
        for (const { first, length } of runs) expect(t.get(first + length)).toBe(m.get(first + length) ?? 0);
      }),
      { numRuns: 40 },
    );
  });
});
