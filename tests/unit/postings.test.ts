import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { appendToBlock, BLOCK_SIZE, blockFromValue, blockValue, decodeBlock, decodeBlocks, decodeLegacyBlocks, decodeSegment, encodeBlock, encodeSegment, encodeVarintBlock, GROUP, lastId, removeFromBlock, USUAL_TF, type EncodedBlock, type PostingEntry } from '../../src/postings.js';
import { tfCode } from '../../src/indexing.js';

/**
 * Section lengths are not stored in postings (they come from the norms while decoding): the tests give
 * every id a length of its own through this lookup, so a decoded entry equals the one encoded.
 */
const L = (id: number): number => (id * 7 + 3) % 100_003;

/** Sorted, distinct ids with tfs over the full uint32 range (varints up to 5 bytes), lengths by L. */
const entriesArb = (min = 0, maxLength = 1200) =>
  fc
    .uniqueArray(fc.oneof(fc.integer({ min, max: min + 5000 }), fc.integer({ min, max: 0xffff_ffff })), { minLength: 1, maxLength })
    .chain((ids) =>
      fc.tuple(
        fc.constant(ids.sort((a, b) => a - b)),
        fc.array(fc.tuple(fc.oneof(fc.constant(USUAL_TF), fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 0xffff_ffff })), fc.integer({ min: 0, max: 0xffff_ffff })), {
          minLength: ids.length,
          maxLength: ids.length,
        }),
      ),
    )
    .map(([ids, v]): PostingEntry[] => ids.map((id, i) => ({ id, tf: v[i]![0], len: L(id) })));

describe('encodeBlock / decodeBlock', { timeout: 30_000 }, () => {
  it('round-trips (property)', () => {
    fc.assert(
      fc.property(entriesArb(0, 600), (entries) => {
        const block = encodeBlock(entries);
        expect(block.first).toBe(entries[0]!.id);
        expect(block.n).toBe(entries.length);
        expect(decodeBlock(block, L)).toEqual(entries);
      }),
      { numRuns: 500 },
    );
  });

  it('round-trips with a key below the first entry', () => {
    fc.assert(
      fc.property(entriesArb(1000, 50), fc.integer({ min: 0, max: 1000 }), (entries, first) => {
        const block = encodeBlock(entries, first);
        expect(block.first).toBe(first);
        expect(decodeBlock(block, L)).toEqual(entries);
      }),
      { numRuns: 300 },
    );
  });

  it('is compact for dense ids and the usual tf: a bit an entry, no length stored', () => {
    const entries = Array.from({ length: 100 }, (_, i) => ({ id: 1000 + i, tf: USUAL_TF, len: 100 }));
    // Deltas 0, 1, 1, ...: 1 bit each (13 bytes) and a header; the tf codes all usual: a header only.
    expect(encodeBlock(entries).data.length).toBe(15);
    expect(decodeBlock(encodeBlock(entries), () => 100)).toEqual(entries);
    expect(decodeBlock(encodeBlock(entries)).map((e) => e.len)).toEqual(entries.map(() => 0));
  });

  it('packs the usual tf code to nothing: it is the code of one body occurrence', () => {
    expect(USUAL_TF).toBe(tfCode(1, false, false, false));
  });

  it('keeps a short last group as varints when that is smaller (rare terms: a few far-apart ids)', () => {
    const entries = [3, 90_000, 400_000].map((id) => ({ id, tf: USUAL_TF, len: 0 }));
    const block = encodeBlock(entries);
    // Folded: the group marker, then each delta with the usual tf in its low bit (1 + 3 + 3 bytes).
    expect(block.data.length).toBe(1 + 1 + 3 + 3);
    expect(decodeBlock(block)).toEqual(entries);
  });

  it('stores values wider than the packed width as exceptions', () => {
    const entries = Array.from({ length: GROUP }, (_, i) => ({ id: i === 70 ? 0xffff_fff0 : i + 1, tf: i === 5 ? 0xffff_ffff : USUAL_TF, len: 0 })).sort((a, b) => a.id - b.id);
    const block = encodeBlock(entries);
    expect(block.data.length).toBeLessThan(40);
    expect(decodeBlock(block)).toEqual(entries);
  });

  it('refuses an empty block, more than BLOCK_SIZE entries and a key above the first entry', () => {
    expect(() => encodeBlock([])).toThrow();
    expect(() => encodeBlock(Array.from({ length: BLOCK_SIZE + 1 }, (_, i) => ({ id: i, tf: 8, len: 0 })))).toThrow();
    expect(() => encodeBlock([{ id: 5, tf: 1, len: 1 }], 6)).toThrow();
  });

  it('decodeBlocks concatenates blocks in order', () => {
    fc.assert(
      fc.property(entriesArb(0, 1500), (entries) => {
        const blocks = [];
        for (let i = 0; i < entries.length; i += 97) blocks.push(encodeBlock(entries.slice(i, i + 97)));
        const list = decodeBlocks(blocks, L);
        expect([...list.ids]).toEqual(entries.map((e) => e.id));
        expect([...list.tfs]).toEqual(entries.map((e) => e.tf));
        expect([...list.lens]).toEqual(entries.map((e) => e.len));
      }),
      { numRuns: 200 },
    );
  });
});

describe('appendToBlock', { timeout: 30_000 }, () => {
  const run = (from: number, n: number): PostingEntry[] => Array.from({ length: n }, (_, i) => ({ id: from + i, tf: 1 + (i % 3), len: L(from + i) }));

  it('starts a term with blocks of at most BLOCK_SIZE, keyed by their first id', () => {
    const blocks = appendToBlock(undefined, run(1, 2 * BLOCK_SIZE + 3));
    expect(blocks.map((b) => b.n)).toEqual([BLOCK_SIZE, BLOCK_SIZE, 3]);
    expect(blocks.map((b) => b.first)).toEqual([1, 1 + BLOCK_SIZE, 1 + 2 * BLOCK_SIZE]);
    expect(decodeBlocks(blocks, L).ids).toEqual(Uint32Array.from(run(1, 2 * BLOCK_SIZE + 3).map((e) => e.id)));
  });

  it('fills the last block up to BLOCK_SIZE, keeps its key, then splits', () => {
    const [last] = appendToBlock(undefined, run(1, BLOCK_SIZE - 2));
    const out = appendToBlock(last, run(BLOCK_SIZE, 5));
    expect(out.map((b) => b.n)).toEqual([BLOCK_SIZE, 3]);
    expect(out[0]!.first).toBe(1);
    expect(out[1]!.first).toBe(BLOCK_SIZE + 2);
    expect([...decodeBlocks(out, L).ids]).toEqual([...run(1, BLOCK_SIZE - 2), ...run(BLOCK_SIZE, 5)].map((e) => e.id));
  });

  it('keeps a block key that is below its first entry', () => {
    const block = encodeBlock(run(10, 3), 4);
    const [out] = appendToBlock(block, run(20, 1));
    expect(out!.first).toBe(4);
    expect(decodeBlock(out!, L).map((e) => e.id)).toEqual([10, 11, 12, 20]);
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
          expect(b.first).toBeLessThanOrEqual(decodeBlock(b, L)[0]!.id);
        }
        expect(out.flatMap((b) => decodeBlock(b, L))).toEqual(entries);
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
        for (const b of got) expect(lastId(b)).toBe(decodeBlock(b, L).at(-1)!.id);
      }),
      { numRuns: 300 },
    );
  });

  it('returns the last block unchanged when nothing is appended', () => {
    const block = encodeBlock([{ id: 3, tf: 1, len: L(3) }]);
    expect(appendToBlock(block, [])).toEqual([block]);
  });
});

describe('removeFromBlock', { timeout: 30_000 }, () => {
  it('keeps the key when the first entry goes', () => {
    const block = encodeBlock([
      { id: 5, tf: 1, len: L(5) },
      { id: 8, tf: 2, len: L(8) },
      { id: 9, tf: 1, len: L(9) },
    ]);
    const out = removeFromBlock(block, new Set([5]))!;
    expect(out.first).toBe(5);
    expect(decodeBlock(out, L)).toEqual([
      { id: 8, tf: 2, len: L(8) },
      { id: 9, tf: 1, len: L(9) },
    ]);
    // By predicate too; nothing removed gives the block itself back.
    expect(removeFromBlock(block, (id) => id > 100)).toBe(block);
    expect(decodeBlock(removeFromBlock(block, (id) => id === 8)!, L).map((e) => e.id)).toEqual([5, 9]);
  });

  it('returns null when nothing is left', () => {
    expect(removeFromBlock(encodeBlock([{ id: 5, tf: 1, len: L(5) }]), new Set([5]))).toBeNull();
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
            expect(decodeBlock(out!, L)).toEqual(want);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('stored blocks (blockValue / blockFromValue)', { timeout: 30_000 }, () => {
  it('round-trip with the first id kept in the key (property)', () => {
    fc.assert(
      fc.property(entriesArb(0, BLOCK_SIZE), (entries) => {
        const block = encodeBlock(entries);
        const value = blockValue(block);
        expect(value.length).toBeLessThanOrEqual(block.data.length + 2);
        const back = blockFromValue(block.first, value);
        expect(back.n).toBe(block.n);
        expect(decodeBlock(back, L)).toEqual(entries);
      }),
      { numRuns: 300 },
    );
  });

  it('refuses a header that claims more entries than its bytes can hold, or anything not bytes', () => {
    const value = blockValue(encodeBlock([{ id: 5, tf: 1, len: 0 }, { id: 9, tf: 2, len: 0 }]));
    value[0] = 100;
    expect(() => blockFromValue(5, value)).toThrow(/malformed/);
    expect(() => blockFromValue(5, new Uint8Array(0))).toThrow(/malformed/);
    expect(() => blockFromValue(5, 'abc' as unknown as Uint8Array)).toThrow(/malformed/);
    const big = blockValue(encodeBlock(Array.from({ length: 3 }, (_, i) => ({ id: i, tf: 1, len: 0 }))));
    big[0] = 0x80 | 0x7f; // a varint of more than BLOCK_SIZE
    expect(() => blockFromValue(0, big)).toThrow(/malformed/);
  });
});

describe('blocks users already have: the varint codec (tests/fixtures/postings-v3-varint.json)', { timeout: 30_000 }, () => {
  const fixture = JSON.parse(readFileSync(new URL('../fixtures/postings-v3-varint.json', import.meta.url), 'utf8')) as { blocks: { term: string; first: number; value: string; ids: number[]; tfs: number[] }[] };
  const stored = fixture.blocks.map((b) => ({ ...b, value: Uint8Array.from(Buffer.from(b.value, 'base64')) }));
  const entriesOf = (b: (typeof stored)[number]): PostingEntry[] => b.ids.map((id, i) => ({ id, tf: b.tfs[i]!, len: L(id) }));

  it('has blocks of every shape: full, partial, single entries, a key below its first entry', () => {
    expect(stored.some((b) => b.ids.length === BLOCK_SIZE)).toBe(true);
    expect(stored.some((b) => b.ids.length === 1)).toBe(true);
    expect(stored.some((b) => b.first < b.ids[0]!)).toBe(true);
    expect(stored.every((b) => b.value[0] !== 0)).toBe(true); // no marker: the count comes first
  });

  it('decode to the entries they were written from', () => {
    for (const b of stored) {
      const block = blockFromValue(b.first, b.value);
      expect(block.codec).toBeUndefined();
      expect(decodeBlock(block, L)).toEqual(entriesOf(b));
      expect(lastId(block)).toBe(b.ids.at(-1));
    }
  });

  it('are stored back byte for byte when nothing changes them', () => {
    for (const b of stored) {
      const block = blockFromValue(b.first, b.value);
      expect(blockValue(block)).toEqual(b.value);
      expect(removeFromBlock(block, () => false)).toBe(block);
    }
  });

  it('read as one list with packed blocks after them', () => {
    const byTerm = new Map<string, typeof stored>();
    for (const b of stored) byTerm.set(b.term, [...(byTerm.get(b.term) ?? []), b]);
    for (const blocks of byTerm.values()) {
      const old = blocks.map((b) => blockFromValue(b.first, b.value));
      const last = blocks.at(-1)!.ids.at(-1)!;
      const more = Array.from({ length: 700 }, (_, i) => ({ id: last + 1 + i * 3, tf: i % 5 ? USUAL_TF : 17, len: L(last + 1 + i * 3) }));
      const fresh = appendToBlock(undefined, more).map((b) => blockFromValue(b.first, blockValue(b)));
      expect(fresh.every((b) => b.codec === 'packed')).toBe(true);
      const list = decodeBlocks([...old, ...fresh], L);
      const want = [...blocks.flatMap(entriesOf), ...more];
      expect([...list.ids]).toEqual(want.map((e) => e.id));
      expect([...list.tfs]).toEqual(want.map((e) => e.tf));
      expect([...list.lens]).toEqual(want.map((e) => e.len));
    }
  });

  it('become packed when a merge appends to them or a sweep removes from them, losing nothing', () => {
    for (const b of stored) {
      const block = blockFromValue(b.first, b.value);
      const next = b.ids.at(-1)! + 1;
      const appended = appendToBlock(block, [{ id: next, tf: USUAL_TF, len: L(next) }]);
      if (block.n < BLOCK_SIZE) {
        expect(appended[0]!.codec).toBe('packed');
        expect(appended[0]!.first).toBe(b.first);
      }
      expect(appended.flatMap((x) => decodeBlock(blockFromValue(x.first, blockValue(x)), L))).toEqual([...entriesOf(b), { id: next, tf: USUAL_TF, len: L(next) }]);
      const kept = removeFromBlock(block, (id) => id === b.ids[0]);
      if (b.ids.length === 1) expect(kept).toBeNull();
      else {
        expect(kept!.codec).toBe('packed');
        expect(kept!.first).toBe(b.first);
        expect(decodeBlock(blockFromValue(kept!.first, blockValue(kept!)), L)).toEqual(entriesOf(b).slice(1));
      }
    }
  });

  it('take at least a third more bytes than the same entries packed', () => {
    let varint = 0;
    let packed = 0;
    for (const b of stored) {
      varint += b.value.length;
      packed += blockValue(encodeBlock(entriesOf(b), b.first)).length;
    }
    expect(packed / varint).toBeLessThan(0.75);
  });
});

describe('the format marker', { timeout: 30_000 }, () => {
  const entries = Array.from({ length: 300 }, (_, i) => ({ id: 10 + i * 2, tf: i % 7 ? USUAL_TF : 9, len: L(10 + i * 2) }));

  it('starts every packed value, and decides how the value is read', () => {
    const packed = blockValue(encodeBlock(entries));
    const varint = blockValue(encodeVarintBlock(entries));
    expect(packed[0]).toBe(0);
    expect(varint[0]).not.toBe(0);
    expect(blockFromValue(10, packed).codec).toBe('packed');
    expect(blockFromValue(10, varint).codec).toBeUndefined();
    expect(decodeBlock(blockFromValue(10, packed), L)).toEqual(entries);
    expect(decodeBlock(blockFromValue(10, varint), L)).toEqual(entries);
  });

  it('packed bytes read as varints (or the reverse) are not the entries', () => {
    const p = encodeBlock(entries);
    const v = encodeVarintBlock(entries);
    const asVarint = (() => {
      try {
        return decodeBlock({ first: 10, n: p.n, data: p.data }, L);
      } catch {
        return null;
      }
    })();
    expect(asVarint).not.toEqual(entries);
    // The varint value with a marker put in front: refused, or not the entries.
    const forged = Uint8Array.from([0, ...blockValue(v)]);
    let read: PostingEntry[] | null = null;
    try {
      read = decodeBlock(blockFromValue(10, forged), L);
    } catch {
      read = null;
    }
    expect(read).not.toEqual(entries);
  });

  it('mixes codecs in one term, old blocks first (property)', () => {
    fc.assert(
      fc.property(entriesArb(0, 1500), fc.integer({ min: 0, max: 3 }), (all, oldBlocks) => {
        const blocks: EncodedBlock[] = [];
        for (let i = 0, k = 0; i < all.length; i += BLOCK_SIZE, k++) {
          const slice = all.slice(i, i + BLOCK_SIZE);
          const b = k < oldBlocks ? encodeVarintBlock(slice) : encodeBlock(slice);
          blocks.push(blockFromValue(b.first, blockValue(b)));
        }
        const list = decodeBlocks(blocks, L);
        expect([...list.ids]).toEqual(all.map((e) => e.id));
        expect([...list.tfs]).toEqual(all.map((e) => e.tf));
      }),
      { numRuns: 200 },
    );
  });
});

describe('malformed packed blocks', { timeout: 30_000 }, () => {
  it('every truncation is refused when read', () => {
    fc.assert(
      fc.property(entriesArb(0, 400), (entries) => {
        const value = blockValue(encodeBlock(entries));
        for (let cut = 1; cut < value.length; cut++) expect(() => blockFromValue(entries[0]!.id, value.subarray(0, cut))).toThrow(/malformed/);
        expect(() => blockFromValue(entries[0]!.id, Uint8Array.from([...value, 0]))).toThrow(/malformed/);
      }),
      { numRuns: 100 },
    );
  });

  it('a corrupted byte is refused, or decodes to n entries without reading past the data (property)', () => {
    fc.assert(
      fc.property(entriesArb(0, 600), fc.nat(), fc.integer({ min: 0, max: 255 }), (entries, at, byte) => {
        const value = blockValue(encodeBlock(entries));
        const i = 1 + (at % (value.length - 1)); // keep the marker: a packed block, damaged
        value[i] = byte;
        let block: EncodedBlock;
        try {
          block = blockFromValue(entries[0]!.id, value);
        } catch (e) {
          expect(String(e)).toMatch(/malformed/);
          return;
        }
        const list = decodeBlocks([block]);
        expect(list.ids.length).toBe(block.n);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('legacy blocks (schema 1/2: the length in every posting)', () => {
  it('decode with their own lengths', () => {
    // Hand-encoded: id deltas from `first` 10, then tf, then len.
    const data = Uint8Array.from([0, 2, 120, 5, 1, 0x81, 0x01]);
    const list = decodeLegacyBlocks([{ first: 10, n: 2, data }]);
    expect([...list.ids]).toEqual([10, 15]);
    expect([...list.tfs]).toEqual([2, 1]);
    expect([...list.lens]).toEqual([120, 129]);
  });
});

describe('segments', { timeout: 30_000 }, () => {
  const segmentArb = fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), entriesArb(500, 40), { minKeys: 0, maxKeys: 30 });

  it('round-trip terms and postings relative to the base id (property)', () => {
    fc.assert(
      fc.property(segmentArb, (dict) => {
        const byTerm = new Map(Object.entries(dict));
        const seg = encodeSegment(byTerm, 500);
        const back = new Map<string, PostingEntry[]>();
        decodeSegment(seg, 500, (t, list) => back.set(t, list), L);
        expect(back).toEqual(byTerm);
      }),
      { numRuns: 200 },
    );
  });

  it('refuses ids below the base, and malformed data on decode', () => {
    expect(() => encodeSegment(new Map([['a', [{ id: 3, tf: 1, len: 0 }]]]), 5)).toThrow();
    const seg = encodeSegment(new Map([['a', [{ id: 7, tf: 1, len: 0 }]], ['b', [{ id: 8, tf: 2, len: 0 }]]]), 5);
    expect(() => decodeSegment({ t: seg.t, d: seg.d.subarray(0, 3) }, 5, () => undefined)).toThrow(/malformed/);
    expect(() => decodeSegment({ t: [...seg.t, 'c'], d: seg.d }, 5, () => undefined)).toThrow(/malformed/);
    expect(() => decodeSegment({ t: seg.t.slice(0, 1), d: seg.d }, 5, () => undefined)).toThrow(/malformed/);
    expect(() => decodeSegment({ t: 'x', d: seg.d } as never, 5, () => undefined)).toThrow(/malformed/);
  });
});
