import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addScores, bm25Ranked, bm25Search, DEFAULT_BM25, DEFAULT_FIELDS, idf, MAX_QUERY_TERMS, seek, TopK, type Bm25Params, type CorpusStats, type FieldWeights, type PostingList, type QueryTerm } from '../../src/bm25.js';
import { tfCode } from '../../src/indexing.js';

/** A section as BM25F sees it: body words (counted, length-normalised), heading, ancestors and title words (present or not). */
interface FDoc {
  body: string[];
  heading: string[];
  ancestors: string[];
  title: string[];
}

interface Corpus {
  docs: Map<number, FDoc>;
  stats: CorpusStats;
  postings: Map<string, PostingList>;
}

/** Body-only sections, or sections with fields. */
const asDoc = (d: string[] | FDoc): FDoc => (Array.isArray(d) ? { body: d, heading: [], ancestors: [], title: [] } : d);

/** Postings as src/indexing.ts indexSection writes them (tf codes), built the obvious way. */
function buildCorpus(input: Map<number, string[] | FDoc>): Corpus {
  const docs = new Map([...input].map(([id, d]) => [id, asDoc(d)]));
  const byTerm = new Map<string, { id: number; tf: number; len: number }[]>();
  let totalLength = 0;
  for (const [id, d] of docs) {
    totalLength += d.body.length;
    const terms = new Set([...d.body, ...d.heading, ...d.ancestors, ...d.title]);
    for (const t of terms) {
      const body = d.body.filter((x) => x === t).length;
      if (!byTerm.has(t)) byTerm.set(t, []);
      byTerm.get(t)!.push({ id, tf: tfCode(body, d.heading.includes(t), d.ancestors.includes(t), d.title.includes(t)), len: d.body.length });
    }
  }
  const postings = new Map<string, PostingList>();
  for (const [t, entries] of byTerm) {
    entries.sort((a, b) => a.id - b.id);
    postings.set(t, {
      ids: Uint32Array.from(entries.map((e) => e.id)),
      tfs: Uint32Array.from(entries.map((e) => e.tf)),
      lens: Uint32Array.from(entries.map((e) => e.len)),
    });
  }
  return { docs, stats: { N: docs.size, totalLength }, postings };
}

const EMPTY: PostingList = { ids: new Uint32Array(0), tfs: new Uint32Array(0), lens: new Uint32Array(0) };

/** The formula from bm25.ts's doc comment, computed the obvious way over the raw sections. */
function reference(corpus: Corpus, query: { term: string; weight?: number }[], params: Bm25Params, allowed: ReadonlySet<number> | null, fields: FieldWeights = DEFAULT_FIELDS) {
  const { N, totalLength } = corpus.stats;
  const avgLen = totalLength / N || 1;
  const used = query.filter((q) => corpus.postings.has(q.term)).slice(0, MAX_QUERY_TERMS);
  const has = (d: FDoc, t: string) => d.body.includes(t) || d.heading.includes(t) || d.ancestors.includes(t) || d.title.includes(t);
  const out = new Map<number, { score: number; terms: Set<string> }>();
  for (const [id, d] of corpus.docs) {
    if (allowed && !allowed.has(id)) continue;
    let score = 0;
    const matched = new Set<string>();
    for (const q of used) {
      if (!has(d, q.term)) continue;
      let df = 0;
      for (const e of corpus.docs.values()) if (has(e, q.term)) df++;
      const idfT = Math.log(1 + (N - df + 0.5) / (df + 0.5));
      const body = d.body.filter((t) => t === q.term).length;
      const tf = body / (1 - params.b + (params.b * d.body.length) / avgLen) + (d.heading.includes(q.term) ? fields.heading : 0) + (d.ancestors.includes(q.term) ? fields.ancestors : 0) + (d.title.includes(q.term) ? fields.title : 0);
      score += ((q.weight ?? 1) * idfT * tf * (params.k1 + 1)) / (tf + params.k1);
      matched.add(q.term);
    }
    if (matched.size) out.set(id, { score, terms: matched });
  }
  return out;
}

const VOCAB = ['alpha', 'beta', 'gamma', 'delta', 'eps', 'zeta', 'eta', 'theta', 'iota', 'kappa', 'lambda', 'mu'];
// Skewed so some terms are in most documents (low idf) and some in few.
const term = fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...VOCAB.slice(0, 4)) }, { weight: 3, arbitrary: fc.constantFrom(...VOCAB) });
const doc = fc.oneof(
  fc.array(term, { minLength: 0, maxLength: 30 }),
  fc.record({ body: fc.array(term, { maxLength: 30 }), heading: fc.uniqueArray(term, { maxLength: 3 }), ancestors: fc.uniqueArray(term, { maxLength: 4 }), title: fc.uniqueArray(term, { maxLength: 3 }) }),
);

const corpusArb = (sparse: boolean) =>
  fc
    .uniqueArray(sparse ? fc.integer({ min: 0, max: 0xffff_fffe }) : fc.integer({ min: 0, max: 400 }), { minLength: 1, maxLength: 60 })
    .chain((ids) => fc.tuple(fc.constant(ids), fc.array(doc, { minLength: ids.length, maxLength: ids.length })))
    .map(([ids, docs]) => buildCorpus(new Map<number, string[] | FDoc>(ids.map((id, i) => [id, docs[i]!]))));

const queryArb = fc.uniqueArray(
  fc.record({ term: fc.oneof(fc.constantFrom(...VOCAB), fc.constant('absent')), weight: fc.option(fc.double({ min: 0.1, max: 3, noNaN: true }), { nil: undefined }) }),
  { minLength: 1, maxLength: 6, selector: (q) => q.term },
);

const paramsArb = fc.oneof(fc.constant(DEFAULT_BM25), fc.record({ k1: fc.double({ min: 0, max: 3, noNaN: true }), b: fc.double({ min: 0, max: 1, noNaN: true }) }));

function toQuery(corpus: Corpus, q: { term: string; weight?: number }[]): QueryTerm[] {
  return q.map(({ term, weight }) => ({ term, postings: corpus.postings.get(term) ?? EMPTY, ...(weight !== undefined ? { weight } : {}) }));
}

function checkAgainstReference(corpus: Corpus, q: { term: string; weight?: number }[], k: number, params: Bm25Params, allowed: ReadonlySet<number> | null) {
  const got = bm25Search(toQuery(corpus, q), corpus.stats, { k, allowed, params });
  const ref = reference(corpus, q, params, allowed);
  const ranked = [...ref].sort((a, b) => b[1].score - a[1].score || a[0] - b[0]);
  expect(got.length).toBe(Math.min(k, ranked.length));
  for (let i = 0; i < got.length; i++) {
    const hit = got[i]!;
    const want = ref.get(hit.id);
    expect(want, `id ${hit.id} scored but matches nothing`).toBeDefined();
    expect(Math.abs(hit.score - want!.score)).toBeLessThan(1e-9);
    // Position i holds the i-th best score (ties may be ordered by rounding, never by more than 1e-9).
    expect(Math.abs(hit.score - ranked[i]![1].score)).toBeLessThan(1e-9);
    expect(new Set(hit.terms)).toEqual(want!.terms);
    expect(hit.terms.length).toBe(want!.terms.size);
    if (i > 0) {
      const prev = got[i - 1]!;
      expect(prev.score > hit.score || (prev.score === hit.score && prev.id < hit.id)).toBe(true);
    }
  }
  // Nothing clearly better than the last hit was left out.
  if (got.length === k && got.length > 0) {
    const last = got[got.length - 1]!.score;
    const ids = new Set(got.map((h) => h.id));
    for (const [id, r] of ranked) if (r.score > last + 1e-9) expect(ids.has(id)).toBe(true);
  }
  return got;
}

describe('bm25Search equals the formula (property)', { timeout: 30_000 }, () => {
  for (const sparse of [false, true]) {
    it(`${sparse ? 'sparse' : 'dense'} ids, no filter`, () => {
      fc.assert(
        fc.property(corpusArb(sparse), queryArb, fc.integer({ min: 1, max: 70 }), paramsArb, (corpus, q, k, params) => {
          checkAgainstReference(corpus, q, k, params, null);
        }),
        { numRuns: 600 },
      );
    });

    it(`${sparse ? 'sparse' : 'dense'} ids, with an allowed filter`, () => {
      fc.assert(
        fc.property(
          corpusArb(sparse).chain((c) => fc.tuple(fc.constant(c), fc.subarray([...c.docs.keys()]))),
          queryArb,
          fc.integer({ min: 1, max: 70 }),
          paramsArb,
          ([corpus, allowedIds], q, k, params) => {
            const allowed = new Set(allowedIds);
            const got = checkAgainstReference(corpus, q, k, params, allowed);
            for (const h of got) expect(allowed.has(h.id)).toBe(true);
          },
        ),
        { numRuns: 600 },
      );
    });
  }

  it('scores zero and negative weights like the formula (they take the Map path)', () => {
    const weightArb = fc.constantFrom(0, -0.5, 1, 2);
    fc.assert(
      fc.property(corpusArb(false), fc.uniqueArray(fc.record({ term: fc.constantFrom(...VOCAB), weight: weightArb }), { minLength: 1, maxLength: 4, selector: (q) => q.term }), fc.integer({ min: 1, max: 70 }), (corpus, q, k) => {
        checkAgainstReference(corpus, q, k, DEFAULT_BM25, null);
      }),
      { numRuns: 300 },
    );
  });

  it('takes the sparse path for ids far above the corpus size, and agrees with the dense path', () => {
    const docs = new Map<number, string[] | FDoc>([
      [5, ['alpha', 'beta']],
      [7, ['alpha']],
      [9, ['beta', 'beta', 'gamma']],
    ]);
    const shifted = new Map([...docs].map(([id, t]) => [id + 4_000_000_000, t]));
    const a = buildCorpus(docs);
    const b = buildCorpus(shifted);
    const q = [{ term: 'alpha' }, { term: 'beta' }];
    const ra = bm25Search(toQuery(a, q), a.stats, { k: 10 });
    const rb = bm25Search(toQuery(b, q), b.stats, { k: 10 });
    expect(rb.map((h) => h.id - 4_000_000_000)).toEqual(ra.map((h) => h.id));
    expect(rb.map((h) => h.score)).toEqual(ra.map((h) => h.score));
  });

  it('leaves no state behind between queries (scratch space is reused)', () => {
    const c = buildCorpus(new Map([[1, ['alpha']], [2, ['alpha', 'beta']], [3, ['beta']]]));
    const first = bm25Search(toQuery(c, [{ term: 'alpha' }]), c.stats, { k: 10 });
    bm25Search(toQuery(c, [{ term: 'beta' }]), c.stats, { k: 1 });
    expect(bm25Search(toQuery(c, [{ term: 'alpha' }]), c.stats, { k: 10 })).toEqual(first);
  });
});

describe('bm25Search edge cases', () => {
  const c = buildCorpus(new Map([[1, ['alpha', 'beta']], [2, ['alpha']]]));

  it('returns nothing for k <= 0, an empty corpus or a query with no postings', () => {
    expect(bm25Search(toQuery(c, [{ term: 'alpha' }]), c.stats, { k: 0 })).toEqual([]);
    expect(bm25Search(toQuery(c, [{ term: 'alpha' }]), { N: 0, totalLength: 0 }, { k: 5 })).toEqual([]);
    expect(bm25Search(toQuery(c, [{ term: 'absent' }]), c.stats, { k: 5 })).toEqual([]);
    expect(bm25Search([], c.stats, { k: 5 })).toEqual([]);
  });

  it('idf is Lucene’s and never negative', () => {
    expect(idf(10, 1)).toBeCloseTo(Math.log(1 + 9.5 / 1.5), 12);
    for (let N = 1; N < 50; N++) for (let df = 1; df <= N; df++) expect(idf(N, df)).toBeGreaterThan(0);
  });

  it('uses the first MAX_QUERY_TERMS terms that occur, and reports all 32 of them', () => {
    const terms = Array.from({ length: 40 }, (_, i) => `t${i}`);
    const docs = new Map<number, string[] | FDoc>([[1, terms.slice(8)], [2, ['t0']]]);
    const corpus = buildCorpus(docs);
    // Eight leading terms that are in no document must not use up slots.
    const query = [...Array.from({ length: 8 }, (_, i) => ({ term: `none${i}` })), ...terms.slice(8).map((term) => ({ term }))];
    const [hit] = bm25Search(toQuery(corpus, query), corpus.stats, { k: 1 });
    expect(hit!.terms).toEqual(terms.slice(8, 8 + MAX_QUERY_TERMS));
    checkAgainstReference(corpus, query, 5, DEFAULT_BM25, null);
  });

  it('scores a repeated term once per occurrence in the document, saturating', () => {
    const d = buildCorpus(new Map([[1, ['alpha']], [2, ['alpha', 'alpha', 'alpha']], [3, ['beta', 'beta', 'beta']]]));
    const [top, second] = bm25Search(toQuery(d, [{ term: 'alpha' }]), d.stats, { k: 2 });
    expect(top!.id).toBe(2);
    expect(second!.id).toBe(1);
    expect(top!.score).toBeLessThan(3 * second!.score);
  });
});

describe('bm25Search fields (BM25F)', () => {
  it('scores field weights as the formula says, for any weights (property)', () => {
    fc.assert(
      fc.property(corpusArb(false), queryArb, fc.record({ heading: fc.double({ min: 0.1, max: 5, noNaN: true }), ancestors: fc.double({ min: 0.1, max: 5, noNaN: true }), title: fc.double({ min: 0.1, max: 5, noNaN: true }) }), (corpus, q, fields) => {
        const got = bm25Search(toQuery(corpus, q), corpus.stats, { k: 100, fields });
        const ref = reference(corpus, q, DEFAULT_BM25, null, fields);
        expect(got.length).toBe(ref.size);
        for (const h of got) expect(Math.abs(h.score - ref.get(h.id)!.score)).toBeLessThan(1e-9);
      }),
      { numRuns: 300 },
    );
  });

  it('ranks a section that names the word in its heading and uses it above one that only names it', () => {
    const c = buildCorpus(
      new Map<number, string[] | FDoc>([
        [1, { body: ['alpha', 'beta', 'gamma', 'alpha'], heading: ['alpha'], ancestors: [], title: [] }],
        [2, { body: ['beta', 'gamma', 'delta', 'eps'], heading: ['alpha'], ancestors: [], title: [] }],
        [3, { body: ['beta', 'gamma', 'delta', 'alpha'], heading: [], ancestors: [], title: [] }],
        [4, { body: ['zeta'], heading: [], ancestors: [], title: [] }],
      ]),
    );
    const ids = bm25Search(toQuery(c, [{ term: 'alpha' }]), c.stats, { k: 3 }).map((h) => h.id);
    expect(ids[0]).toBe(1);
  });
});

describe('addScores (terms that score but do not retrieve)', () => {
  it('gives each hit the score the union of both queries gives it, and re-sorts (property)', () => {
    fc.assert(
      fc.property(corpusArb(false), queryArb, queryArb, (corpus, a, b) => {
        const extra = b.filter((x) => !a.some((y) => y.term === x.term));
        const hits = bm25Search(toQuery(corpus, a), corpus.stats, { k: 1000 });
        const got = addScores(hits, toQuery(corpus, extra), corpus.stats);
        const union = reference(corpus, [...a, ...extra], DEFAULT_BM25, null);
        expect(got.map((h) => h.id).sort((x, y) => x - y)).toEqual(hits.map((h) => h.id).sort((x, y) => x - y));
        for (const h of got) expect(Math.abs(h.score - union.get(h.id)!.score)).toBeLessThan(1e-9);
        for (let i = 1; i < got.length; i++) expect(got[i - 1]!.score >= got[i]!.score).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

describe('bm25Ranked (the lexical lane\'s retrieval on typed arrays)', { timeout: 30_000 }, () => {
  it('gives exactly the hits, scores, terms, fields and order of bm25Search, the word filter, addScores and the cut (property)', () => {
    fc.assert(
      fc.property(
        corpusArb(false),
        queryArb,
        queryArb,
        fc.array(fc.integer({ min: -1, max: 4 }), { minLength: 6, maxLength: 6 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 40 }),
        fc.boolean(),
        paramsArb,
        (corpus, a, b, wordOf, need, k, keep, withScoring, params) => {
          const query = toQuery(corpus, a);
          const scoring = withScoring ? toQuery(corpus, b.filter((x) => !a.some((y) => y.term === x.term))) : undefined;
          const words = query.map((_, i) => wordOf[i]!);
          // The composition search.ts ran before (wordsMatched: distinct words of a hit's terms).
          const word = new Map(query.map((q, i) => [q.term, words[i]!]));
          const found = bm25Search(query, corpus.stats, { k, params });
          let want = need > 1 ? found.filter((h) => new Set(h.terms.map((t) => word.get(t)!).filter((w) => w >= 0)).size >= need) : found;
          if (scoring) want = addScores(want, scoring, corpus.stats, { params });
          want = want.slice(0, keep);
          const got = bm25Ranked(query, corpus.stats, { k, params, words, need, scoring, keep });
          expect(got.found).toBe(found.length);
          expect(got.hits).toEqual(want);
          expect(got.below).toBeUndefined();
          // With `below`: the same hits, and the winners the filter left out, ranked the same way.
          const withBelow = bm25Ranked(query, corpus.stats, { k, params, words, need, scoring, keep, below: true });
          expect(withBelow.hits).toEqual(want);
          if (need > 1) {
            let left = found.filter((h) => new Set(h.terms.map((t) => word.get(t)!).filter((w) => w >= 0)).size < need);
            if (scoring) left = addScores(left, scoring, corpus.stats, { params });
            expect(withBelow.below).toEqual(left.slice(0, keep));
          } else {
            expect(withBelow.below).toBeUndefined();
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});

/** Ids, their scores (ties and tiny values included) and k: up to past the heap's first allocation (256) and its doubling. */
const heapRuns = [
  fc.uniqueArray(fc.integer({ min: 0, max: 10_000 }), { maxLength: 700 }),
  fc.array(fc.constantFrom(0, 1, 1.5, 2, -1, 1e-300, 7), { minLength: 700, maxLength: 700 }),
  fc.oneof(fc.integer({ min: 1, max: 50 }), fc.integer({ min: 200, max: 600 })),
] as const;

describe('TopK', { timeout: 30_000 }, () => {
  it('keeps the k best like a full sort (property)', () => {
    fc.assert(
      fc.property(
        ...heapRuns,
        (ids, scores, k) => {
          const heap = new TopK(k);
          const all = ids.map((id, i) => ({ id, score: scores[i]! }));
          for (const e of all) heap.push(e.id, e.score);
          const want = [...all].sort((a, b) => b.score - a.score || a.id - b.id).slice(0, k);
          expect(heap.size).toBe(Math.min(k, ids.length));
          expect(heap.sorted()).toEqual(want);
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('TopK reuse and drain', { timeout: 30_000 }, () => {
  it('drain gives sorted()\'s order and empties the heap; reset reuses it for another k (property)', () => {
    const heap = new TopK(0);
    fc.assert(
      fc.property(
        ...heapRuns,
        (ids, scores, k) => {
          // One heap across runs, as bm25Search keeps it: what a previous run left must not leak in.
          heap.reset(k);
          const fresh = new TopK(k);
          for (let i = 0; i < ids.length; i++) {
            heap.push(ids[i]!, scores[i]!);
            fresh.push(ids[i]!, scores[i]!);
          }
          const want = fresh.sorted();
          const outIds = new Float64Array(heap.size);
          const outScores = new Float64Array(heap.size);
          expect(heap.drain(outIds, outScores)).toBe(want.length);
          expect(heap.size).toBe(0);
          expect([...outIds].map((id, i) => ({ id, score: outScores[i]! }))).toEqual(want);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('seek', () => {
  it('finds the first index at or after from whose id is >= the target, as a linear scan does (property)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 0, max: 5000 }), { maxLength: 300 }), fc.integer({ min: -1, max: 5001 }), fc.nat(320), (raw, id, from) => {
        const ids = Uint32Array.from(raw.sort((a, b) => a - b));
        let want = Math.min(from, ids.length);
        if (from < ids.length) while (want < ids.length && ids[want]! < id) want++;
        else want = from;
        expect(seek(ids, id, from)).toBe(want);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('bm25Search dense and Map paths give identical hits (property)', { timeout: 30_000 }, () => {
  // Short posting lists with ids spread over the corpus now take the dense path too (they took the Map
  // path before): both must give the very same hits, bit for bit (scores, order, terms, fields), query
  // after query on the shared scratch space. Shifting every id by 4e9 keeps order and ties and forces the Map path.
  const SHIFT = 4_000_000_000;
  it('same corpus, ids compact vs shifted far up', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: 300_000 }), { minLength: 1, maxLength: 60 }).chain((ids) => fc.tuple(fc.constant(ids), fc.array(doc, { minLength: ids.length, maxLength: ids.length }))),
        fc.array(queryArb, { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 70 }),
        paramsArb,
        fc.constantFrom(1, 3000),
        ([ids, docs], queries, k, params, scale) => {
          const near = buildCorpus(new Map<number, string[] | FDoc>(ids.map((id, i) => [id, docs[i]!])));
          const far = buildCorpus(new Map<number, string[] | FDoc>(ids.map((id, i) => [id + SHIFT, docs[i]!])));
          // Scaled statistics (same average length) make the corpus look large, so lists far shorter than
          // N with ids up to a few times N take the dense path, as rare terms do in a large index.
          const stats = { N: near.stats.N * scale, totalLength: near.stats.totalLength * scale };
          for (const q of queries) {
            const a = bm25Search(toQuery(near, q), stats, { k, params });
            const b = bm25Search(toQuery(far, q), stats, { k, params });
            expect(b.map((h) => ({ ...h, id: h.id - SHIFT }))).toEqual(a);
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});
