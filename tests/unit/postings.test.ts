import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { appendToBlock, BLOCK_SIZE, decodeBlock, decodeBlocks, encodeBlock, lastId, patchPostingList, removeFromBlock, type EncodedBlock, type PostingEntry } from '../../src/postings.js';

/** Sorted, distinct ids with tf/len over the full uint32 range (varints up to 5 bytes). */
const entriesArb = (min = 0, maxLength = 1200) =>
  fc
    .uniqueArray(fc.oneof(fc.integer({ min, max: min + 5000 }), fc.integer({ min, max: 0xffff_ffff })), { minLength: 1, maxLength })
    .chain((ids) =>
      fc.tuple(
        fc.constant(ids.sort((a, b) => a - b)),
        fc.array(fc.tuple(fc.oneof(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 0xffff_ffff })), fc.integer({ min: 0, max: 0xffff_ffff })), {
          minLength: ids.length,
          maxLength: ids.length,
        }),
      ),
    )
    .map(([ids, v]): PostingEntry[] => ids.map((id, i) => ({ id, tf: v[i]![0], len: v[i]![1] })));

describe('encodeBlock / decodeBlock', { timeout: 30_000 }, () => {
  it('round-trips (property)', () => {
    fc.assert(
      fc.property(entriesArb(0, 600), (entries) => {
        const block = encodeBlock(entries);
        expect(block.first).toBe(entries[0]!.id);
        expect(block.n).toBe(entries.length);
        expect(decodeBlock(block)).toEqual(entries);
      }),
      { numRuns: 500 },
    );
  });

  it('round-trips with a key below the first entry', () => {
    fc.assert(
      fc.property(entriesArb(1000, 50), fc.integer({ min: 0, max: 1000 }), (entries, first) => {
        const block = encodeBlock(entries, first);
        expect(block.first).toBe(first);
        expect(decodeBlock(block)).toEqual(entries);
      }),
      { numRuns: 300 },
    );
  });

  it('is compact for dense ids and small numbers', () => {
    const entries = Array.from({ length: 100 }, (_, i) => ({ id: 1000 + i, tf: 1, len: 100 }));
    expect(encodeBlock(entries).data.length).toBe(300);
  });

  it('refuses an empty block and a key above the first entry', () => {
    expect(() => encodeBlock([])).toThrow();
    expect(() => encodeBlock([{ id: 5, tf: 1, len: 1 }], 6)).toThrow();
  });

  it('decodeBlocks concatenates blocks in order', () => {
    fc.assert(
      fc.property(entriesArb(0, 1500), (entries) => {
        const blocks = [];
        for (let i = 0; i < entries.length; i += 97) blocks.push(encodeBlock(entries.slice(i, i + 97)));
        const list = decodeBlocks(blocks);
        expect([...list.ids]).toEqual(entries.map((e) => e.id));
        expect([...list.tfs]).toEqual(entries.map((e) => e.tf));
        expect([...list.lens]).toEqual(entries.map((e) => e.len));
      }),
      { numRuns: 200 },
    );
  });
});

describe('appendToBlock', { timeout: 30_000 }, () => {
  const run = (from: number, n: number): PostingEntry[] => Array.from({ length: n }, (_, i) => ({ id: from + i, tf: 1 + (i % 3), len: 10 + i }));

  it('starts a term with blocks of at most BLOCK_SIZE, keyed by their first id', () => {
    const blocks = appendToBlock(undefined, run(1, 2 * BLOCK_SIZE + 3));
    expect(blocks.map((b) => b.n)).toEqual([BLOCK_SIZE, BLOCK_SIZE, 3]);
    expect(blocks.map((b) => b.first)).toEqual([1, 1 + BLOCK_SIZE, 1 + 2 * BLOCK_SIZE]);
    expect(decodeBlocks(blocks).ids).toEqual(Uint32Array.from(run(1, 2 * BLOCK_SIZE + 3).map((e) => e.id)));
  });

  it('fills the last block up to BLOCK_SIZE, keeps its key, then splits', () => {
    const [last] = appendToBlock(undefined, run(1, BLOCK_SIZE - 2));
    const out = appendToBlock(last, run(BLOCK_SIZE, 5));
    expect(out.map((b) => b.n)).toEqual([BLOCK_SIZE, 3]);
    expect(out[0]!.first).toBe(1);
    expect(out[1]!.first).toBe(BLOCK_SIZE + 2);
    expect([...decodeBlocks(out).ids]).toEqual([...run(1, BLOCK_SIZE - 2), ...run(BLOCK_SIZE, 5)].map((e) => e.id));
  });

  it('keeps a block key that is below its first entry', () => {
    const block = encodeBlock(run(10, 3), 4);
    const [out] = appendToBlock(block, run(20, 1));
    expect(out!.first).toBe(4);
    expect(decodeBlock(out!).map((e) => e.id)).toEqual([10, 11, 12, 20]);
  });

  it('refuses ids that do not grow', () => {
    const [last] = appendToBlock(undefined, run(10, 3));
    expect(() => appendToBlock(last, run(12, 1))).toThrow();
  });

  it('never loses or reorders entries (property)', () => {
    fc.assert(
      fc.property(entriesArb(0, 1200), fc.integer({ min: 0, max: 1200 }), (entries, cut) => {
        const head = entries.slice(0, Math.min(cut, BLOCK_SIZE));
        const tail = entries.slice(head.length);
        const last = head.length ? encodeBlock(head) : undefined;
        const out = appendToBlock(last, tail);
        for (const b of out) {
          expect(b.n).toBeLessThanOrEqual(BLOCK_SIZE);
          expect(b.first).toBeLessThanOrEqual(decodeBlock(b)[0]!.id);
        }
        expect(out.flatMap(decodeBlock)).toEqual(entries);
      }),
      { numRuns: 300 },
    );
  });
});

describe('appendToBlock equals encoding in one go', { timeout: 30_000 }, () => {
  /** Appends `entries` page by page (cut at `cuts`) as pageStore does: to the last block while it has room. */
  function appendInPages(entries: readonly PostingEntry[], cuts: readonly number[], key: number | undefined): EncodedBlock[] {
    const blocks: EncodedBlock[] = [];
    const bounds = [...new Set([0, ...cuts.map((c) => c % (entries.length + 1)), entries.length])].sort((a, b) => a - b);
    for (let j = 0; j + 1 < bounds.length; j++) {
      const page = entries.slice(bounds[j], bounds[j + 1]);
      const lastBlock = blocks[blocks.length - 1];
      let last = lastBlock && lastBlock.n < BLOCK_SIZE ? lastBlock : undefined;
      if (!blocks.length && key !== undefined) {
        // The term's first block, written with a key below its first id (as after deleting that entry).
        const firstOut = encodeBlock(page.slice(0, 1), key);
        blocks.push(firstOut);
        last = firstOut;
        page.shift();
      }
      const out = appendToBlock(last, page);
      if (last) blocks.pop();
      blocks.push(...out);
    }
    return blocks;
  }

  it('gives byte-identical blocks however the entries are split into pages (property)', () => {
    fc.assert(
      fc.property(entriesArb(1, 1500), fc.array(fc.nat(), { maxLength: 12 }), fc.boolean(), (entries, cuts, lowKey) => {
        const key = lowKey ? entries[0]!.id - 1 : undefined;
        const got = appendInPages(entries, cuts, key);
        const want: EncodedBlock[] = [];
        for (let i = 0; i < entries.length; i += BLOCK_SIZE) want.push(encodeBlock(entries.slice(i, i + BLOCK_SIZE), i === 0 ? key : undefined));
        expect(got).toEqual(want);
        for (const b of got) expect(lastId(b)).toBe(decodeBlock(b).at(-1)!.id);
      }),
      { numRuns: 300 },
    );
  });

  it('returns the last block unchanged when nothing is appended', () => {
    const block = encodeBlock([{ id: 3, tf: 1, len: 2 }]);
    expect(appendToBlock(block, [])).toEqual([block]);
  });
});

describe('removeFromBlock', { timeout: 30_000 }, () => {
  it('keeps the key when the first entry goes', () => {
    const block = encodeBlock([
      { id: 5, tf: 1, len: 3 },
      { id: 8, tf: 2, len: 4 },
      { id: 9, tf: 1, len: 5 },
    ]);
    const out = removeFromBlock(block, new Set([5]))!;
    expect(out.first).toBe(5);
    expect(decodeBlock(out)).toEqual([
      { id: 8, tf: 2, len: 4 },
      { id: 9, tf: 1, len: 5 },
    ]);
  });

  it('returns null when nothing is left', () => {
    expect(removeFromBlock(encodeBlock([{ id: 5, tf: 1, len: 3 }]), new Set([5]))).toBeNull();
  });

  it('removes exactly the given ids (property)', () => {
    fc.assert(
      fc.property(
        entriesArb(0, 600).chain((e) => fc.tuple(fc.constant(e), fc.subarray(e.map((x) => x.id)), fc.array(fc.integer({ min: 0, max: 0xffff_ffff }), { maxLength: 5 }))),
        ([entries, drop, strangers]) => {
          const ids = new Set([...drop, ...strangers]);
          const block = encodeBlock(entries);
          const out = removeFromBlock(block, ids);
          const want = entries.filter((e) => !ids.has(e.id));
          if (!want.length) expect(out).toBeNull();
          else {
            expect(out!.first).toBe(block.first);
            expect(decodeBlock(out!)).toEqual(want);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('patchPostingList (the cached copy of a term after a write)', { timeout: 30_000 }, () => {
  const asEntries = (l: ReturnType<typeof decodeBlocks>): PostingEntry[] => Array.from(l.ids, (id, i) => ({ id, tf: l.tfs[i]!, len: l.lens[i]! }));

  it('equals what storage holds after the same removals and appends (property)', () => {
    fc.assert(
      fc.property(entriesArb(1, 1500), fc.array(fc.boolean(), { minLength: 1500, maxLength: 1500 }), fc.integer({ min: 0, max: 700 }), (entries, removeMask, addCount) => {
        // Storage: blocks written by appends, removals block by block (pageStore's write path), appends to the last block.
        let blocks = appendToBlock(undefined, entries);
        const removed = entries.filter((_, i) => removeMask[i]).map((e) => e.id);
        const drop = new Set(removed);
        blocks = blocks.map((b) => removeFromBlock(b, drop)).filter((b): b is EncodedBlock => b !== null);
        const top = entries[entries.length - 1]!.id;
        fc.pre(top + 1 + addCount * 3 <= 0xffff_ffff);
        const added = Array.from({ length: addCount }, (_, i) => ({ id: top + 1 + i * 3, tf: 1 + (i % 4), len: 10 + i }));
        if (added.length) {
          const last = blocks.pop();
          if (last && last.n >= BLOCK_SIZE) blocks.push(last, ...appendToBlock(undefined, added));
          else blocks.push(...appendToBlock(last, added));
        }
        const patched = patchPostingList(decodeBlocks(appendToBlock(undefined, entries)), removed, added);
        expect(patched).not.toBeNull();
        expect(asEntries(patched!)).toEqual(asEntries(decodeBlocks(blocks)));
        expect(asEntries(patched!)).toEqual([...entries.filter((e) => !drop.has(e.id)), ...added]);
      }),
      { numRuns: 200 },
    );
  });

  it('returns a new list and leaves the one a search may hold as it was', () => {
    const list = decodeBlocks([encodeBlock([{ id: 1, tf: 1, len: 5 }, { id: 4, tf: 2, len: 6 }])]);
    const next = patchPostingList(list, [1], [{ id: 9, tf: 3, len: 7 }])!;
    expect(Array.from(next.ids)).toEqual([4, 9]);
    expect(Array.from(list.ids)).toEqual([1, 4]);
  });

  it('refuses appends that do not come after what the list keeps (the term is read again instead)', () => {
    const list = decodeBlocks([encodeBlock([{ id: 10, tf: 1, len: 5 }, { id: 20, tf: 1, len: 5 }])]);
    expect(patchPostingList(list, undefined, [{ id: 15, tf: 1, len: 1 }])).toBeNull();
    expect(patchPostingList(list, undefined, [{ id: 20, tf: 1, len: 1 }])).toBeNull();
    expect(patchPostingList(list, undefined, [{ id: 30, tf: 1, len: 1 }, { id: 25, tf: 1, len: 1 }])).toBeNull();
    // Removing the top entry makes room below it.
    expect(Array.from(patchPostingList(list, [20], [{ id: 15, tf: 1, len: 1 }])!.ids)).toEqual([10, 15]);
    // Nothing to do: the same list.
    expect(patchPostingList(list, [99], [])).toBe(list);
  });
});
