/**
 * The result cards read only the sections they show (SearchSource.sectionPages): the answer must be
 * exactly the one the old way gives (every candidate read, up to the slice where the last page shown
 * was seen), damaged sections included, with fewer sections read.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemorySource } from '../../src/memorySource.js';
import { search, type SearchSource, type SectionView } from '../../src/search.js';
import type { SearchResponse } from '../../src/protocol.js';
import { MODELS } from '../../src/models.js';

const CALIBRATION = MODELS.find((m) => m.bundled)!.calibration;

const VOCAB = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet', 'kilo', 'lima'];

interface Corpus {
  pages: { sections: number[][] }[];
}

const corpusArb: fc.Arbitrary<Corpus> = fc.record({
  pages: fc.array(fc.record({ sections: fc.array(fc.array(fc.nat(VOCAB.length - 1), { minLength: 3, maxLength: 12 }), { minLength: 1, maxLength: 9 }) }), { minLength: 1, maxLength: 40 }),
});

function build(c: Corpus): MemorySource {
  const src = new MemorySource();
  c.pages.forEach((p, i) =>
    src.addPage({
      url: `https://p${i % 7}.test/page-${i}`,
      title: `Page ${i}`,
      chunks: p.sections.map((words, j) => ({ headingPath: [`Part ${j}`], section: `Part ${j}`, anchor: { id: `s${j}` }, text: `Part ${j}\n${words.map((w) => VOCAB[w]).join(' ')}` })),
    }),
  );
  return src;
}

/** The source as the search sees it, counting the sections read; `damaged` ids cannot be read; without sectionPages when `old`. */
function view(src: MemorySource, old: boolean, damaged: ReadonlySet<number>, read: number[], dense: SearchSource['dense']): SearchSource {
  return {
    settings: src.settings,
    pages: () => src.pages(),
    allowedChunks: (p, e) => src.allowedChunks(p, e),
    corpusStats: () => src.corpusStats(),
    postings: (t) => src.postings(t),
    sections: async (ids): Promise<SectionView[]> => {
      read.push(...ids);
      return (await src.sections(ids)).filter((s) => !damaged.has(s.id));
    },
    ...(old ? {} : { sectionPages: () => src.sectionPages() }),
    dense,
    similarTerms: (t, m) => src.similarTerms(t, m),
  };
}

const strip = (r: SearchResponse) => ({ ...r, tookMs: 0, timings: undefined });

describe('result cards read only the sections shown', () => {
  it('gives the same answer as reading every candidate, with no more sections read (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        corpusArb,
        fc.array(fc.nat(VOCAB.length - 1), { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 35 }),
        fc.array(fc.nat(400), { maxLength: 30 }),
        fc.boolean(),
        async (corpus, q, limit, damagedIds, withDense) => {
          const src = build(corpus);
          const damaged = new Set(damagedIds);
          // A dense lane that ranks sections by a fixed scramble: fusion then mixes pages across the slices.
          const dense: SearchSource['dense'] = withDense
            ? async (_text, k) => ({ hits: [...Array(400).keys()].map((i) => ({ id: 1 + ((i * 37) % 400), score: 1 - i / 400 })).slice(0, k), calibration: { ...CALIBRATION, floor: 0 } })
            : null;
          src.settings = { ...src.settings, denseEnabled: withDense };
          const req = { q: q.map((w) => VOCAB[w]).join(' '), limit };
          const readOld: number[] = [];
          const readNew: number[] = [];
          const before = await search(view(src, true, damaged, readOld, dense), req, { now: 0 });
          const after = await search(view(src, false, damaged, readNew, dense), req, { now: 0 });
          expect(strip(after)).toEqual(strip(before));
          expect(new Set(readNew).size).toBeLessThanOrEqual(new Set(readOld).size);
        },
      ),
      { numRuns: 150 },
    );
  });

  it("keeps a page's extra sections to the slices of candidates taken (as reading them did)", async () => {
    // Page 0 has two sections: the dense lane ranks the first 1st and the second 70th, past the first
    // slice of 64 candidates, in which the 30 pages asked for are already seen.
    const src = build({ pages: Array.from({ length: 80 }, (_, i) => ({ sections: i === 0 ? [[0], [1]] : [[2]] })) });
    const order = [1, ...Array.from({ length: 68 }, (_, i) => 3 + i), 2, ...Array.from({ length: 10 }, (_, i) => 71 + i)];
    const dense: SearchSource['dense'] = async (_t, k) => ({ hits: order.slice(0, k).map((id, i) => ({ id, score: 0.9 - i / 1000 })), calibration: { ...CALIBRATION, floor: 0 } });
    src.settings = { ...src.settings, denseEnabled: true };
    const req = { q: 'zzzzqqqq', limit: 30 };
    const old = await search(view(src, true, new Set(), [], dense), req, { now: 0 });
    const res = await search(view(src, false, new Set(), [], dense), req, { now: 0 });
    expect(old.results.length).toBe(30);
    expect(old.results[0]!.chunkId).toBe(1);
    expect(old.results[0]!.more).toEqual([]);
    expect(strip(res)).toEqual(strip(old));
  });

  it('reads only the sections its cards are drawn from (proximity, which reads its candidates, off)', async () => {
    // 60 pages of 8 sections, every section holding the word: 30 candidates, 5 pages shown.
    const src = build({ pages: Array.from({ length: 60 }, (_, i) => ({ sections: Array.from({ length: 8 }, (_, j) => [0, (i + j) % 12, (i * j) % 12]) })) });
    const opts = { now: 0, lexical: { proximity: { ordered: 0, unordered: 0, window: 8, sequenceMinWords: 0, heading: 0, candidates: 0 } } };
    const readNew: number[] = [];
    const res = await search(view(src, false, new Set(), readNew, null), { q: 'alpha', limit: 5 }, opts);
    const shown = res.results.flatMap((r) => [r.chunkId, ...r.more.map((m) => m.chunkId)]);
    expect(res.results.length).toBe(5);
    // Each card's best section and up to four more of its page (rows linking where an earlier row does
    // are skipped for the next): every one shown is among them, and no other page's.
    for (const id of shown) expect(readNew).toContain(id);
    expect(new Set(readNew).size).toBeLessThanOrEqual(5 * 5);
    const readOld: number[] = [];
    const old = await search(view(src, true, new Set(), readOld, null), { q: 'alpha', limit: 5 }, opts);
    expect(strip(res)).toEqual(strip(old));
    expect(new Set(readOld).size).toBe(30);
  });
});
